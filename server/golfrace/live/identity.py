"""Who a connection or an HTTP request is: the port through which the core and the races ask it.

The core knows players: the id a signed token carries (``tokens.py``). An extension may know more: accounts
(``golfrace.accounts``) sign a browser in with a session, turn a ``hello`` into the account's player and tell
whether that session still lives. It implements ``Identity`` and is set on the context at start-up
(``Context.identity``); without it every player is a guest (``Guests``). The core and the races call these
methods only, never the accounts package.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from golfrace.live.session import Session


class Identity(Protocol):
    def session_cookie(self, headers: Iterable[tuple[bytes, bytes]] | None) -> str | None:
        """The browser session token a websocket handshake's headers carry, if any."""
        ...

    async def identify(
        self, session: Session, msg: dict[str, Any], player: str, token: str | None
    ) -> tuple[str, str | None, dict[str, Any] | None]:
        """(player, token, public account or None) for this ``hello``; sets ``session.account``."""
        ...

    async def still_signed_in(self, session: Session, ref: str) -> None:
        """Before a ranked action: raise ``not_signed_in`` (and close the connection) when the session that
        ``session`` said hello with has been signed out since."""
        ...

    async def request_player(self, cookie_header: str | None, token_player: str | None) -> str | None:
        """The player an HTTP request may read as, given its cookie header and the player of its token."""
        ...


class Guests:
    """No accounts: every connection is the guest its token names, every request the token's player."""

    def session_cookie(self, headers: Iterable[tuple[bytes, bytes]] | None) -> str | None:
        return None

    async def identify(
        self, session: Session, msg: dict[str, Any], player: str, token: str | None
    ) -> tuple[str, str | None, dict[str, Any] | None]:
        return player, token, None

    async def still_signed_in(self, session: Session, ref: str) -> None:
        return None

    async def request_player(self, cookie_header: str | None, token_player: str | None) -> str | None:
        return token_player
