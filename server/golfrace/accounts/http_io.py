"""How an account request is read and answered over HTTP: the JSON body (its size, its nesting, its text,
and the page's own ``Origin``), the caller's network and device, the relying party of a passkey ceremony,
the session cookie, and a refusal as its JSON answer (``endpoint``).

Every POST takes a JSON object (``Content-Type: application/json``, at most ``BODY_MAX`` bytes) and, when the
browser sends an ``Origin``, only from the page's own origin: with the SameSite=Strict cookie this stops
cross-site requests. Answers are JSON; a refusal is ``{"error": code, "message", "params"?}`` with the status
of ``errors.STATUS``. The session token only ever travels in the ``Set-Cookie`` of the answer that made it.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from golfrace.live import limits, metrics
from golfrace.settings.accounts import AccountSettings
from golfrace.wire.errors import storage_full

from . import sessions
from .ceremonies import Reauth
from .devices import MAX_AGENT
from .errors import AccountError
from .passkeys import Party
from .service import Accounts, SignedIn

log = logging.getLogger("golfrace.accounts")
BODY_MAX = 16 * 1024
"""Bytes of a request body (a passkey answer is a few KB)."""
MAX_DEPTH = 8
"""Nesting of a request body's objects and arrays (a passkey answer has 3 levels)."""
Endpoint = Callable[[Request], Awaitable[Response]]


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.ctx.get(Accounts)
    return accounts


def client_net(request: Request) -> str:
    """The client network for per-client limits, as the fair-play limits see it (``limits.py``: the peer, or
    ``X-Forwarded-For`` through ``Settings.trusted_proxies`` only; IPv4 per address, IPv6 per /64)."""
    settings = request.app.state.ctx.settings
    return limits.network(limits.scope_client_ip(dict(request.scope), settings.trusted_proxies))


def agent(request: Request) -> str:
    """The User-Agent, whole enough to tell the device (``devices.MAX_AGENT``); the store keeps 120 of it."""
    return request.headers.get("user-agent", "")[:MAX_AGENT]


def page_origin(request: Request, settings: AccountSettings) -> str:
    if settings.public_origin:
        return settings.public_origin.rstrip("/")
    return f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}"


def party(request: Request, settings: AccountSettings) -> Party:
    origin = page_origin(request, settings)
    host = urlsplit(origin).hostname or ""
    return Party(host, settings.rp_name, origin)


def passkey_party(request: Request, settings: AccountSettings) -> Party:
    """``party`` for a passkey ceremony: WebAuthn needs a domain name as the relying party's id, so a page
    opened on an IP address (``http://127.0.0.1:8000``) is told so (``passkey_needs_domain``, with the
    ``localhost`` address of a loopback one) instead of a ceremony no browser can complete (issue 20.4)."""
    found = party(request, settings)
    try:
        address = ipaddress.ip_address(found.id)
    except ValueError:
        return found
    params: dict[str, Any] = {}
    if address.is_loopback:
        port = urlsplit(found.origin).port
        params["use"] = f"{urlsplit(found.origin).scheme}://localhost" + (f":{port}" if port else "")
    raise AccountError(
        "passkey_needs_domain", "passkeys need a domain name, not an IP address: use a password", **params
    )


async def read_body(request: Request, settings: AccountSettings) -> dict[str, Any]:
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
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise AccountError("bad_request", "the body is not JSON") from None
    if not isinstance(data, dict):
        raise AccountError("bad_request", "the body is a JSON object")
    if not _encodable(data):
        raise AccountError("bad_request", "the body's text has a lone surrogate (not Unicode text)")
    return data


def _encodable(value: Any, depth: int = 0) -> bool:
    """Whether every string of a parsed body is Unicode text: JSON's ``\\ud800`` escapes give lone
    surrogates, which no UTF-8 encoder (Redis's, the passkey library's) takes. Nesting deeper than
    ``MAX_DEPTH`` is refused too: no account request needs it."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_encodable(k, depth) and _encodable(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_encodable(v, depth + 1) for v in value)
    return True


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
            if storage_full(exc):
                metrics.STORAGE_FULL.labels("http").inc()
                return _error(AccountError("storage_full", "storage is full; this was not done: retry later"))
            log.warning("account storage failed: %s", type(exc).__name__)
            return _error(AccountError("unavailable", "storage is unreachable, retry later"))

    return wrapped


async def signed_in(request: Request) -> tuple[str, str]:
    """(player id, session hash) of the caller's session cookie, else ``not_signed_in``."""
    found = await accounts_of(request).session_player(
        sessions.from_cookie_header(request.headers.get("cookie"))
    )
    if found is None:
        raise AccountError("not_signed_in", "sign in first")
    return found


def with_session(request: Request, signed: SignedIn, status: int = 200) -> JSONResponse:
    accounts = accounts_of(request)
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


def proof(request: Request, data: dict[str, Any], password: str = "password") -> Reauth:
    """The re-authentication a request brings: ``password`` (or the field named so), or ``challenge_id`` and
    ``credential`` answering ``/reauth/options``."""
    settings = accounts_of(request).settings
    return Reauth(
        party(request, settings), data.get(password), data.get("challenge_id"), data.get("credential")
    )


def cleared(body: dict[str, Any]) -> JSONResponse:
    response = JSONResponse(body)
    response.delete_cookie(sessions.COOKIE, path="/", httponly=True, samesite="strict")
    return response
