"""Which player an HTTP request of another part is (the read-only ``/api/players/me/…``, ``/api/daily`` and
a board's ``you``), resolved as a websocket ``hello`` is (``hello.identify``):

- no token: a live session cookie makes the request the account's player (none: no one);
- a token whose player is an account counts only with a session of that account: alone (a leaked or old
  long-lived token, a signed-out browser's) it reads nothing of that account;
- any other token is its guest player, as before (the token says whose data is asked for).

A public board's ``you`` (a rank anyone can read off the board) still takes the token alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import sessions

if TYPE_CHECKING:
    from starlette.requests import Request

    from .service import Accounts


async def request_player(request: Request, token_player: str | None) -> str | None:
    """The caller's player id, given the player of the token it sent (None: no valid token); None when the
    request is no one it may read as."""
    accounts: Accounts | None = request.app.state.ctx.extras.get("accounts")
    if accounts is None:
        return token_player
    found = await accounts.session_player(sessions.from_cookie_header(request.headers.get("cookie")))
    session_player = found[0] if found is not None else None
    if token_player is None or token_player == session_player:
        return session_player
    if await accounts.is_account(token_player):
        return None  # an account's token without that account's session
    return token_player
