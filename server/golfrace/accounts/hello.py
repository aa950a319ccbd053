"""Which player a websocket is: the websocket ``hello`` asks ``identify`` (one call in ``handlers.on_hello``).

- A live session (``hello.session``, or the ``golfrace_session`` cookie of the handshake) makes the
  connection the account's player, whatever token came with it; ``welcome.account`` describes the account.
- A token whose player id belongs to an account counts only with a session of that account: without one the
  connection gets a new anonymous identity (a signed-out browser's old token opens nothing), charged to the
  network's ``identity`` bucket like a ``hello`` without token (``limits.py``).
- Anything else is as before: the token's player, or a new one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..protocol import ProtocolError

if TYPE_CHECKING:
    from ..session import Session
    from .service import Accounts

COOKIE_EXTRA = "cookie_session"
"""``session.extras`` key of the session token read from the handshake's cookie (``app.websocket_asgi``)."""


async def identify(
    session: Session, msg: dict[str, Any], player: str, token: str | None
) -> tuple[str, str | None, dict[str, Any] | None]:
    """(player, token, public account or None) for this ``hello``."""
    accounts: Accounts | None = session.ctx.extras.get("accounts")
    if accounts is None:
        return player, token, None
    presented = msg.get("session") or session.extras.get(COOKIE_EXTRA)
    found = await accounts.session_player(presented) if presented else None
    if found is not None:
        account_player, hashed = found
        if session.player is not None and session.player != account_player:
            raise ProtocolError("bad_token", "this connection is another player's; reconnect", ref="hello")
        account = await accounts.store.load(account_player)
        if account is not None:
            session.extras["account"] = account_player
            session.extras["account_session"] = hashed
            tokens = session.ctx.tokens
            return account_player, tokens.sign(account_player), account.public(accounts.settings)
    if session.extras.get("account") == player:  # a second hello after the session was signed out
        raise ProtocolError("bad_token", "signed out: reconnect", ref="hello")
    from .. import limits

    if not msg.get("token") and session.player is None:  # on_hello made a new identity for this hello
        if msg.get("session"):  # not charged by limits.kind_of: it had a session, but no live one
            await limits.charge(session, {"t": "hello"})
        return player, token, None
    if await accounts.is_account(player):  # a new identity costs what a hello without token costs
        await limits.charge(session, {"t": "hello"})
        player, token = session.ctx.tokens.issue()
    return player, token, None


async def still_signed_in(session: Session, ref: str) -> None:
    """Before a ranked action (``race_new``, ``race_join``, ``daily_play``): a connection that said hello with
    a session checks that the session still lives. A sign-out closes its websockets through a pub/sub
    message, which an instance can miss (unsubscribed, its Redis link down at that moment); an expiry sends
    none. A dead session's connection (or a deleted account's) is closed (``CLOSE_SIGNED_OUT``: the page
    reconnects as a guest) and the action refused ``not_signed_in``. Two Redis reads; guests' connections
    are not checked."""
    account = account_of(session)
    accounts: Accounts | None = session.ctx.extras.get("accounts")
    if account is None or accounts is None:
        return
    hashed = session.extras.get("account_session")
    live = isinstance(hashed, str) and await accounts.store.check_session(account, hashed)
    if live and await accounts.store.exists(account):
        return
    from .service import CLOSE_SIGNED_OUT

    session.close(CLOSE_SIGNED_OUT)
    raise ProtocolError("not_signed_in", "this connection's session was signed out: reconnect", ref=ref)


def account_of(session: Session) -> str | None:
    """The account player id of a connection that said hello with a live session, else None."""
    value = session.extras.get("account")
    return value if isinstance(value, str) else None
