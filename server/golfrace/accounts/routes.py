"""HTTP JSON endpoints under ``/api/account/…`` and the extension hooks (listed in ``app.EXTENSIONS``).

Every POST takes a JSON object (``Content-Type: application/json``, at most ``BODY_MAX`` bytes) and, when the
browser sends an ``Origin``, only from the page's own origin: with the SameSite=Strict cookie this stops
cross-site requests. Answers are JSON; a refusal is ``{"error": code, "message", "params"?}`` with the status
of ``errors.STATUS``. The session token only ever travels in the ``Set-Cookie`` of the answer that made it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .. import limits
from ..context import Context
from . import sessions
from .ceremonies import Reauth
from .errors import AccountError
from .passkeys import Party
from .service import SIGNOUT_CHANNEL, Accounts, SignedIn
from .settings import AccountSettings

log = logging.getLogger("golfrace.accounts")
BODY_MAX = 16 * 1024
"""Bytes of a request body (a passkey answer is a few KB)."""
Endpoint = Callable[[Request], Awaitable[Response]]


def _accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.ctx.extras["accounts"]
    return accounts


def client_net(request: Request) -> str:
    """The client network for per-client limits, as the fair-play limits see it (``limits.py``: the peer, or
    ``X-Forwarded-For`` through ``Settings.trusted_proxies`` only; IPv4 per address, IPv6 per /64)."""
    settings = request.app.state.ctx.settings
    return limits.network(limits.scope_client_ip(dict(request.scope), settings.trusted_proxies))


def agent(request: Request) -> str:
    return request.headers.get("user-agent", "")[:120]


def page_origin(request: Request, settings: AccountSettings) -> str:
    if settings.public_origin:
        return settings.public_origin.rstrip("/")
    return f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}"


def party(request: Request, settings: AccountSettings) -> Party:
    origin = page_origin(request, settings)
    host = urlsplit(origin).hostname or ""
    return Party(host, settings.rp_name, origin)


async def _body(request: Request, settings: AccountSettings) -> dict[str, Any]:
    origin = request.headers.get("origin")
    if origin is not None and origin != page_origin(request, settings):
        raise AccountError("bad_origin", "account requests come from this site's own pages")
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise AccountError("bad_request", "send a JSON object (Content-Type: application/json)")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > BODY_MAX:
            raise AccountError("bad_request", f"a request body has at most {BODY_MAX} bytes")
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise AccountError("bad_request", "the body is not JSON") from None
    if not isinstance(data, dict):
        raise AccountError("bad_request", "the body is a JSON object")
    return data


def _error(exc: AccountError) -> JSONResponse:
    return JSONResponse(exc.body(), status_code=exc.status)


def endpoint(fn: Endpoint) -> Endpoint:
    """Refusals become their JSON answer; Redis trouble ``unavailable``; nothing of a request is logged."""

    async def wrapped(request: Request) -> Response:
        try:
            return await fn(request)
        except AccountError as exc:
            return _error(exc)
        except (RedisError, OSError) as exc:
            log.warning("account storage failed: %s", type(exc).__name__)
            return _error(AccountError("unavailable", "storage is unreachable, retry later"))

    return wrapped


async def _signed_in(request: Request) -> tuple[str, str]:
    """(player id, session hash) of the caller's session cookie, else ``not_signed_in``."""
    found = await _accounts(request).session_player(
        sessions.from_cookie_header(request.headers.get("cookie"))
    )
    if found is None:
        raise AccountError("not_signed_in", "sign in first")
    return found


def _with_session(request: Request, signed: SignedIn, status: int = 200) -> JSONResponse:
    accounts = _accounts(request)
    body = {
        "account": signed.account.public(accounts.settings),
        "token": accounts.ctx.tokens.sign(signed.account.player),
    }
    response = JSONResponse(body, status_code=status)
    response.set_cookie(
        sessions.COOKIE,
        signed.session,
        max_age=accounts.settings.session_max_s,
        path="/",
        httponly=True,
        samesite="strict",
        secure=accounts.settings.cookie_secure or request.url.scheme == "https",
    )
    return response


def _proof(request: Request, data: dict[str, Any], password: str = "password") -> Reauth:
    """The re-authentication a request brings: ``password`` (or the field named so), or ``challenge_id`` and
    ``credential`` answering ``/reauth/options``."""
    settings = _accounts(request).settings
    return Reauth(
        party(request, settings), data.get(password), data.get("challenge_id"), data.get("credential")
    )


def _cleared(body: dict[str, Any]) -> JSONResponse:
    response = JSONResponse(body)
    response.delete_cookie(sessions.COOKIE, path="/", httponly=True, samesite="strict")
    return response


# --- endpoints ----------------------------------------------------------------------------------------------
@endpoint
async def me(request: Request) -> Response:
    accounts = _accounts(request)
    found = await accounts.session_player(sessions.from_cookie_header(request.headers.get("cookie")))
    account = await accounts.store.load(found[0]) if found else None
    return JSONResponse({"account": account.public(accounts.settings) if account else None})


@endpoint
async def signup(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    signed = await accounts.sign_up_password(
        data.get("username"), data.get("password"), data.get("display"), data.get("token"),
        client_net(request), agent(request),
    )  # fmt: skip
    return _with_session(request, signed, 201)


@endpoint
async def signin(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    signed = await accounts.sign_in_password(
        data.get("username"), data.get("password"), client_net(request), agent(request)
    )
    return _with_session(request, signed)


@endpoint
async def signout(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    player, current = await _signed_in(request)
    which = data.get("sessions")
    if data.get("all") is True:
        n = await accounts.sign_out(player, None)
    elif isinstance(which, list) and all(isinstance(i, str) for i in which):
        n = await accounts.sign_out(player, which[:100])
        if current not in {h for h, _ in await accounts.store.list_sessions(player)}:
            return _cleared({"signed_out": n})
        return JSONResponse({"signed_out": n})
    else:
        await accounts.store.drop_sessions(player, [current])
        await accounts.close_connections(player, {current})
        n = 1
    return _cleared({"signed_out": n})


@endpoint
async def session_list(request: Request) -> Response:
    player, current = await _signed_in(request)
    return JSONResponse({"sessions": await _accounts(request).list_sessions(player, current)})


@endpoint
async def change_password(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    player, current = await _signed_in(request)
    account = await accounts.profile.change_password(
        player, current, _proof(request, data, "current"), data.get("password"), client_net(request)
    )
    return JSONResponse({"account": account.public(accounts.settings)})


@endpoint
async def display(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    player, _ = await _signed_in(request)
    account = await accounts.profile.set_display(player, data.get("display"))
    return JSONResponse({"account": account.public(accounts.settings)})


@endpoint
async def rename(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    player, _ = await _signed_in(request)
    account = await accounts.profile.rename(player, data.get("username"))
    return JSONResponse({"account": account.public(accounts.settings)})


@endpoint
async def profile(request: Request) -> Response:
    player, _ = await _signed_in(request)
    return JSONResponse(await _accounts(request).profile.read(player))


@endpoint
async def delete(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    player, _ = await _signed_in(request)
    await accounts.profile.delete(player, data.get("confirm"), _proof(request, data), client_net(request))
    return _cleared({"deleted": True})


@endpoint
async def reauth_options(request: Request) -> Response:
    accounts = _accounts(request)
    await _body(request, accounts.settings)
    player, _ = await _signed_in(request)
    answer = await accounts.ceremonies.reauth_options(
        party(request, accounts.settings), player, client_net(request)
    )
    return JSONResponse(answer)


@endpoint
async def passkey_signup_options(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    answer = await accounts.ceremonies.signup_options(
        party(request, accounts.settings), data.get("username"), data.get("display"), data.get("token"),
        client_net(request),
    )  # fmt: skip
    return JSONResponse(answer)


@endpoint
async def passkey_signup(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    signed = await accounts.ceremonies.signup(
        party(request, accounts.settings), data.get("challenge_id"), data.get("credential"),
        client_net(request), agent(request),
    )  # fmt: skip
    return _with_session(request, signed, 201)


@endpoint
async def passkey_signin_options(request: Request) -> Response:
    accounts = _accounts(request)
    await _body(request, accounts.settings)
    answer = await accounts.ceremonies.signin_options(party(request, accounts.settings), client_net(request))
    return JSONResponse(answer)


@endpoint
async def passkey_signin(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    signed = await accounts.ceremonies.signin(
        party(request, accounts.settings), data.get("challenge_id"), data.get("credential"),
        client_net(request), agent(request),
    )  # fmt: skip
    return _with_session(request, signed)


@endpoint
async def passkey_add_options(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    player, _ = await _signed_in(request)
    answer = await accounts.ceremonies.add_options(
        party(request, accounts.settings), player, _proof(request, data), client_net(request)
    )
    return JSONResponse(answer)


@endpoint
async def passkey_add(request: Request) -> Response:
    accounts = _accounts(request)
    data = await _body(request, accounts.settings)
    player, _ = await _signed_in(request)
    account = await accounts.ceremonies.add(
        party(request, accounts.settings), player, data.get("challenge_id"), data.get("credential")
    )
    return JSONResponse({"account": account.public(accounts.settings)})


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
        Route(base + "/reauth/options", reauth_options, methods=post),
        Route(base + "/passkey/signup/options", passkey_signup_options, methods=post),
        Route(base + "/passkey/signup", passkey_signup, methods=post),
        Route(base + "/passkey/signin/options", passkey_signin_options, methods=post),
        Route(base + "/passkey/signin", passkey_signin, methods=post),
        Route(base + "/passkey/add/options", passkey_add_options, methods=post),
        Route(base + "/passkey/add", passkey_add, methods=post),
    ]


async def startup(ctx: Context) -> None:
    accounts = Accounts(ctx, ctx.settings.accounts)
    await accounts.passwords.warm()
    await ctx.hub.subscribe(SIGNOUT_CHANNEL, accounts)  # sign-outs made on other instances
    ctx.extras["accounts"] = accounts
