"""Which player a websocket or an HTTP request is: the accounts' ``Identity`` (``live/identity.py``), set on
the context at start-up; the websocket ``hello`` asks ``identify`` (one call in ``handlers.on_hello``).

- A live session (``hello.session``, or the ``golfrace_session`` cookie of the handshake) makes the
  connection the account's player, whatever token came with it; ``welcome.account`` describes the account.
- A token whose player id belongs to an account counts only with a session of that account: without one the
  connection gets a new anonymous identity (a signed-out browser's old token opens nothing), charged to the
  network's ``identity`` bucket like a ``hello`` without token (``limits.py``).
- Anything else is as before: the token's player, or a new one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from golfrace.live import limits
from golfrace.wire.protocol import CLOSE_SIGNED_OUT, ProtocolError

from . import sessions

if TYPE_CHECKING:
    from golfrace.live.session import Session

    from .service import Accounts


class AccountIdentity:
    """``Identity`` with accounts: sessions make a connection or a request the account's player."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    def session_cookie(self, headers: Iterable[tuple[bytes, bytes]] | None) -> str | None:
        return sessions.from_asgi_headers(list(headers) if headers is not None else None)

    async def identify(
        self, session: Session, msg: dict[str, Any], player: str, token: str | None
    ) -> tuple[str, str | None, dict[str, Any] | None]:
        """(player, token, public account or None) for this ``hello``."""
        accounts = self.accounts
        presented = msg.get("session") or session.cookie
        found = await accounts.session_player(presented) if presented else None
        if found is not None:
            account_player, hashed = found
            if session.player is not None and session.player != account_player:
                raise ProtocolError(
                    "bad_token", "this connection is another player's; reconnect", ref="hello"
                )
            account = await accounts.store.load(account_player)
            if account is not None:
                session.account = account_player
                session.account_session = hashed
                tokens = session.ctx.tokens
                return account_player, tokens.sign(account_player), account.public(accounts.settings)
        if session.account == player:  # a second hello after the session was signed out
            raise ProtocolError("bad_token", "signed out: reconnect", ref="hello")
        if not msg.get("token") and session.player is None:  # on_hello made a new identity for this hello
            if msg.get("session"):  # not charged by limits.kind_of: it had a session, but no live one
                await limits.charge(session, {"t": "hello"})
            return player, token, None
        if await accounts.is_account(player):  # a new identity costs what a hello without token costs
            await limits.charge(session, {"t": "hello"})
            player, token = session.ctx.tokens.issue()
        return player, token, None

    async def still_signed_in(self, session: Session, ref: str) -> None:
        """Before a ranked action (``race_new``, ``race_join``, ``daily_play``): a connection that said hello
        with a session checks that the session still lives. A sign-out closes its websockets through a
        pub/sub message, which an instance can miss (unsubscribed, its Redis link down at that moment); an
        expiry sends none. A dead session's connection (or a deleted account's) is closed
        (``CLOSE_SIGNED_OUT``: the page reconnects as a guest) and the action refused ``not_signed_in``. Two
        Redis reads; guests' connections are not checked."""
        account = session.account
        if account is None:
            return
        store = self.accounts.store
        hashed = session.account_session
        live = isinstance(hashed, str) and await store.check_session(account, hashed)
        if live and await store.exists(account):
            return
        session.close(CLOSE_SIGNED_OUT)
        raise ProtocolError("not_signed_in", "this connection's session was signed out: reconnect", ref=ref)

    async def request_player(self, cookie_header: str | None, token_player: str | None) -> str | None:
        """The player an HTTP request of another part may read as (the read-only ``/api/players/me/…``,
        ``/api/daily`` and a board's ``you``), resolved as a websocket ``hello`` is:
        - no token: a live session cookie makes the request the account's player (none: no one);
        - a token whose player is an account counts only with a session of that account: alone (a leaked or
          old long-lived token, a signed-out browser's) it reads nothing of that account;
        - any other token is its guest player (the token says whose data is asked for).
        A public board's ``you`` (a rank anyone can read off the board) still takes the token alone."""
        accounts = self.accounts
        found = await accounts.session_player(sessions.from_cookie_header(cookie_header))
        session_player = found[0] if found is not None else None
        if token_player is None or token_player == session_player:
            return session_player
        if await accounts.is_account(token_player):
            return None  # an account's token without that account's session
        return token_player
