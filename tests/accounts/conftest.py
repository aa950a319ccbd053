"""Accounts tests: an in-process server of their own (cheaper argon2 parameters, roomy sign-up quota) on the
session's real Redis, and helpers to sign up and sign in over real HTTP."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

FAST_HASHES: dict[str, Any] = {
    "password_memory_kib": 8192,
    "password_time_cost": 1,
    "password_parallelism": 1,
    "signups_per_ip": 1000,
}
PASSWORD = "correct horse battery"
TIMEOUT = 10.0


@pytest.fixture(scope="module")
def account_changes() -> dict[str, Any]:
    """What the account tests change in ``AccountSettings`` (a module may ask for more)."""
    return FAST_HASHES


@pytest.fixture(scope="module")
def acct_settings(settings: Settings, account_changes: dict[str, Any]) -> Settings:
    """The session's settings with cheaper argon2 parameters: injected, not read from the environment."""
    return settings.with_(accounts=dataclasses.replace(settings.accounts, **account_changes))


@pytest.fixture(scope="module")
async def acct_server(acct_settings: Settings) -> AsyncIterator[RunningServer]:
    async with running_server(acct_settings) as running:
        yield running


@pytest.fixture
async def rds(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """The server's own database, with the per-address limits cleared before the test and after it: every
    test here comes from 127.0.0.1, and so do the browser tests' pages on the same Redis (a throttle test's
    delays for that address would hold their sign-ins back)."""
    client = aioredis.Redis.from_url(redis_url, socket_timeout=5)
    await _clear_limits(client)
    try:
        yield client
    finally:
        await _clear_limits(client)
        await client.aclose()


async def _clear_limits(client: aioredis.Redis) -> None:
    for pattern in ("thr:*", "signup:*", "wa-rate:*"):
        async for key in client.scan_iter(match=pattern):
            await client.delete(key)


@pytest.fixture
async def http(acct_server: RunningServer, rds: aioredis.Redis) -> AsyncIterator[httpx.AsyncClient]:
    # by name: passkeys need a domain (on 127.0.0.1 the server answers passkey_needs_domain)
    async with httpx.AsyncClient(base_url=acct_server.site, timeout=TIMEOUT) as client:
        yield client


def new_name(prefix: str = "u") -> str:
    return f"{prefix}{secrets.token_hex(4)}"


async def sign_up(
    http: httpx.AsyncClient, username: str | None = None, password: str = PASSWORD, **extra: Any
) -> dict[str, Any]:
    r = await http.post(
        "/api/account/signup", json={"username": username or new_name(), "password": password, **extra}
    )
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def ws_client(server: Any, session: str | None = None, token: str | None = None) -> Client:
    client = Client(server.ws, token=token)
    await client.connect()
    msg: dict[str, Any] = {"t": "hello", "lang": "en"}
    if session:
        msg["session"] = session
    if token:
        msg["token"] = token
    await client.send(msg)
    client.welcome = await client.expect("welcome", TIMEOUT)
    client.token, client.player = client.welcome["token"], client.welcome["player"]
    return client
