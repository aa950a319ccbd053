"""The passkey endpoints under ``/api/account/…``: sign-up, sign-in and adding a passkey (each an options
request, then the browser's answer to its challenge), and the challenge of a passkey re-authentication.
Requests are read and answered as every account request is (``http_io.py``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .http_io import (
    accounts_of,
    agent,
    client_net,
    endpoint,
    passkey_party,
    proof,
    read_body,
    signed_in,
    with_session,
)
from .passkeys import Party
from .service import SignedIn

Finish = Callable[[Party, object, Any, str, str], Awaitable[SignedIn]]
"""A ceremony's last step (``Ceremonies.signup``, ``signin``): the browser's answer to its challenge checked,
a session made."""


async def _session_by_passkey(request: Request, finish: Finish, status: int) -> Response:
    """The browser's answer (``challenge_id``, ``credential``) to a sign-up or sign-in ceremony: a session."""
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    signed = await finish(
        passkey_party(request, accounts.settings), data.get("challenge_id"), data.get("credential"),
        client_net(request), agent(request),
    )  # fmt: skip
    return with_session(request, signed, status)


@endpoint
async def reauth_options(request: Request) -> Response:
    accounts = accounts_of(request)
    await read_body(request, accounts.settings)
    player, _ = await signed_in(request)
    answer = await accounts.ceremonies.reauth_options(
        passkey_party(request, accounts.settings), player, client_net(request)
    )
    return JSONResponse(answer)


@endpoint
async def passkey_signup_options(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    answer = await accounts.ceremonies.signup_options(
        passkey_party(request, accounts.settings),
        data.get("username"),
        data.get("display"),
        data.get("token"),
        client_net(request),
    )
    return JSONResponse(answer)


@endpoint
async def passkey_signup(request: Request) -> Response:
    return await _session_by_passkey(request, accounts_of(request).ceremonies.signup, 201)


@endpoint
async def passkey_signin_options(request: Request) -> Response:
    accounts = accounts_of(request)
    await read_body(request, accounts.settings)
    answer = await accounts.ceremonies.signin_options(
        passkey_party(request, accounts.settings), client_net(request)
    )
    return JSONResponse(answer)


@endpoint
async def passkey_signin(request: Request) -> Response:
    return await _session_by_passkey(request, accounts_of(request).ceremonies.signin, 200)


@endpoint
async def passkey_add_options(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    player, _ = await signed_in(request)
    answer = await accounts.ceremonies.add_options(
        passkey_party(request, accounts.settings), player, proof(request, data), client_net(request)
    )
    return JSONResponse(answer)


@endpoint
async def passkey_add(request: Request) -> Response:
    accounts = accounts_of(request)
    data = await read_body(request, accounts.settings)
    player, _ = await signed_in(request)
    account = await accounts.ceremonies.add(
        passkey_party(request, accounts.settings), player, data.get("challenge_id"), data.get("credential")
    )
    return JSONResponse({"account": account.public(accounts.settings)})
