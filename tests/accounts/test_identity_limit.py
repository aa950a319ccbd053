"""An account's token without its session gives a new guest identity: that costs what a new identity costs
(the fair-play ``identity`` bucket), so a token of an account cannot mint identities for free."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from golfrace.live.limits import GENEROUS
from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer
from golfrace_testkit.servers import running_server

from ..own_server import private_redis
from .conftest import FAST_HASHES, TIMEOUT, sign_up, ws_client


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis(tmp_path) as server:
        yield server


async def test_an_account_token_without_session_is_charged_as_a_new_identity(
    settings: Settings, own_redis: RedisServer
) -> None:
    tight = {key: 3 if key == "limit_identity_burst" else value for key, value in GENEROUS.items()}
    tight["limit_identity_per_hour"] = 1.0
    limited = settings.with_(
        port=0,
        redis_url=own_redis.url,
        accounts=dataclasses.replace(settings.accounts, **FAST_HASHES),
        **tight,
    )
    async with (
        running_server(limited) as server,
        httpx.AsyncClient(base_url=server.http, timeout=TIMEOUT) as http,
    ):
        guest = await ws_client(server)  # identity 1
        await sign_up(http, token=guest.token)
        account_token = guest.token
        assert account_token is not None
        fresh = await ws_client(server, token=account_token)  # identity 2: a new guest
        assert fresh.player != guest.player
        await ws_client(server, token=account_token)  # identity 3
        refused = await ws_client_refused(server, account_token)
        assert refused["code"] == "rate_limited" and refused["params"]["kind"] == "identity"
        signed = await ws_client(server, session=http.cookies["golfrace_session"])  # the account itself: free
        assert signed.player == guest.player
        forged = await ws_client_refused(server, None, session=f"{guest.player}.{'A' * 43}")  # no free guest
        assert forged["code"] == "rate_limited" and forged["params"]["kind"] == "identity"


async def ws_client_refused(
    server: object, token: str | None, session: str | None = None
) -> dict[str, object]:
    from golfrace_client.client import Client

    client = Client(server.ws)  # type: ignore[attr-defined]
    await client.connect()
    hello = {"t": "hello", "lang": "en"}
    if token:
        hello["token"] = token
    if session:
        hello["session"] = session
    await client.send(hello)
    error = await client.expect("error", TIMEOUT)
    await client.close()
    return error
