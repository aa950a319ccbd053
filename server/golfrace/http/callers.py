"""Which player an HTTP request is: the one rule for every route that reads a player's own data.

The request's token (``Authorization: Bearer <token>``, else ``?token=``) names a player; the app's
``Identity`` (``live/identity.py``: the accounts' when installed) decides whom the request may read as, from
that token and the request's cookies (an account's token counts only with that account's session).
"""

from __future__ import annotations

from starlette.requests import Request

from golfrace.live.services import Context


def token_player(request: Request) -> str | None:
    """The player of the token the request carries (None: no token, or one this server did not sign). A
    rank on a public board is public: that alone may be read with the token alone."""
    auth = request.headers.get("authorization", "")
    token = auth[7:].strip() if auth.lower().startswith("bearer ") else request.query_params.get("token")
    if not token:
        return None
    ctx: Context = request.app.state.ctx
    return ctx.tokens.verify(token)


async def caller(request: Request) -> str | None:
    """Who reads their own private data: the token's player, or the session's account (``Identity``)."""
    ctx: Context = request.app.state.ctx
    return await ctx.identity.request_player(request.headers.get("cookie"), token_player(request))
