"""HTTP JSON endpoints under ``/api/account/…`` and the extension hooks (listed in ``app.EXTENSIONS``): the
route table, the password, session and profile endpoints here, the passkey ones in ``passkey_routes.py``;
every request read and answered by ``http_io.py`` (its body, origin, session cookie, refusals).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.http.extension import Extension
from golfrace.live.services import Context

from . import passkey_routes as passkey
from . import sessions
from .hello import AccountIdentity
from .http_io import (
    accounts_of,
    agent,
    cleared,
    client_net,
    endpoint,
    proof,
    read_body,
    signed_in,
    with_session,
)
from .service import SIGNOUT_CHANNEL, Accounts


# --- password, session and profile endpoints ---------------------------------------------------------------
@endpoint
async def me(request: Request) -> Response:
    accounts = accounts_of(request)
    found = await accounts.session_player(sessions.from_cookie_header(request.headers.get("cookie")))
    account = await accounts.store.load(found[0]) if found else None
    return JSONResponse({"account": account.public(accounts.settings) if account else None})


@endpoint
async def signup(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    signed = await accounts.sign_up_password(
        data.get("username"), data.get("password"), data.get("display"), data.get("token"),
        client_net(request), agent(request),
    )  # fmt: skip
    return with_session(request, signed, 201)


@endpoint
async def signin(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    signed = await accounts.sign_in_password(
        data.get("username"), data.get("password"), client_net(request), agent(request)
    )
    return with_session(request, signed)


@endpoint
async def signout(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    player, current = await signed_in(request)
    which = data.get("sessions")
    if data.get("all") is True:
        n = await accounts.sign_out(player, None)
    elif isinstance(which, list) and all(isinstance(i, str) for i in which):
        n = await accounts.sign_out(player, which[:100])
        if current not in {h for h, _ in await accounts.store.list_sessions(player)}:
            return cleared({"signed_out": n})
        return JSONResponse({"signed_out": n})
    else:
        await accounts.store.drop_sessions(player, [current])
        await accounts.close_connections(player, {current})
        n = 1
    return cleared({"signed_out": n})


@endpoint
async def session_list(request: Request) -> Response:
    player, current = await signed_in(request)
    return JSONResponse({"sessions": await accounts_of(request).list_sessions(player, current)})


@endpoint
async def change_password(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    player, current = await signed_in(request)
    account = await accounts.profile.change_password(
        player, current, proof(request, data, "current"), data.get("password"), client_net(request)
    )
    return JSONResponse({"account": account.public(accounts.settings)})


@endpoint
async def display(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    player, _ = await signed_in(request)
    account = await accounts.profile.set_display(player, data.get("display"))
    return JSONResponse({"account": account.public(accounts.settings)})


@endpoint
async def rename(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    player, _ = await signed_in(request)
    account = await accounts.profile.rename(player, data.get("username"))
    return JSONResponse({"account": account.public(accounts.settings)})


@endpoint
async def profile(request: Request) -> Response:
    player, _ = await signed_in(request)
    return JSONResponse(await accounts_of(request).profile.read(player))


@endpoint
async def delete(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    player, _ = await signed_in(request)
    await accounts.profile.delete(player, data.get("confirm"), proof(request, data), client_net(request))
    return cleared({"deleted": True})


def routes() -> list[BaseRoute]:
    base = "/api/account"
    post = ["POST"]
    return [
        Route(base, me),
        Route(base + "/signup", signup, methods=post),
        Route(base + "/signin", signin, methods=post),
        Route(base + "/signout", signout, methods=post),
        Route(base + "/sessions", session_list),
        Route(base + "/password", change_password, methods=post),
        Route(base + "/display", display, methods=post),
        Route(base + "/rename", rename, methods=post),
        Route(base + "/profile", profile),
        Route(base + "/delete", delete, methods=post),
        Route(base + "/reauth/options", passkey.reauth_options, methods=post),
        Route(base + "/passkey/signup/options", passkey.passkey_signup_options, methods=post),
        Route(base + "/passkey/signup", passkey.passkey_signup, methods=post),
        Route(base + "/passkey/signin/options", passkey.passkey_signin_options, methods=post),
        Route(base + "/passkey/signin", passkey.passkey_signin, methods=post),
        Route(base + "/passkey/add/options", passkey.passkey_add_options, methods=post),
        Route(base + "/passkey/add", passkey.passkey_add, methods=post),
    ]


async def startup(ctx: Context) -> None:
    accounts = Accounts(ctx, ctx.settings.accounts)
    await accounts.passwords.warm()
    await ctx.hub.subscribe(SIGNOUT_CHANNEL, accounts)  # sign-outs made on other instances
    ctx.provide(accounts)
    ctx.identity = AccountIdentity(accounts)


EXTENSION = Extension("accounts", routes=routes, startup=startup)
