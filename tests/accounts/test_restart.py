"""Accounts, credentials and sessions live in Redis without a TTL: a new server process on the same Redis
knows them."""

from __future__ import annotations

import httpx
import redis.asyncio as aioredis

from golfrace.accounts.sessions import COOKIE
from golfrace.settings import Settings
from golfrace.store import account_keys as keys
from golfrace_testkit.servers import running_server

from .conftest import PASSWORD, TIMEOUT, new_name, sign_up, ws_client


async def test_a_session_and_the_account_survive_a_restart(
    acct_settings: Settings, rds: aioredis.Redis
) -> None:
    name = new_name("Rs")
    async with (
        running_server(acct_settings) as first,
        httpx.AsyncClient(base_url=first.http, timeout=TIMEOUT) as http,
    ):
        body = await sign_up(http, name)
        session = http.cookies[COOKIE]
    player = body["account"]["player"]
    for key in (keys.account(player), keys.username(name.lower())):
        assert await rds.ttl(key) == -1, key  # kept for good
    assert 0 < await rds.ttl(keys.sessions(player)) <= 365 * 86_400
    async with running_server(acct_settings) as second:
        client = await ws_client(second, session=session)
        assert (
            client.player == player
            and client.welcome is not None
            and client.welcome["account"]["username"] == name
        )
        await client.close()
        async with httpx.AsyncClient(base_url=second.http, timeout=TIMEOUT) as http:
            r = await http.post("/api/account/signin", json={"username": name, "password": PASSWORD})
            assert r.status_code == 200
