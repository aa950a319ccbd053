"""Friends tests: an in-process server of their own (cheap argon2, presence stamped every 0.2 s, a movable
clock) on the session's real Redis; accounts signed up over real HTTP, their websockets with the session."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from golfrace.accounts.sessions import COOKIE
from golfrace.settings import Settings
from golfrace.settings.friends import FriendSettings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server
from tests.accounts.conftest import FAST_HASHES, PASSWORD
from tests.clock import MovableClock

T = 10.0
ROOMY = {
    f"{kind}{part}": 1_000_000
    for kind in ("follow", "challenge")
    for part in ("_burst", "_per_hour", "_net_burst", "_net_per_hour")
}
"""Limits no test reaches but the burst tests (which run servers of their own)."""


def friend_settings(settings: Settings, **friends: Any) -> Settings:
    return settings.with_(
        # bursts of 50–100 requests on a shared 2-core machine: storage answers late, never wrongly
        request_timeout_s=10.0,
        accounts=dataclasses.replace(settings.accounts, **FAST_HASHES),
        friends=dataclasses.replace(FriendSettings(), presence_refresh_s=0.2, **{**ROOMY, **friends}),
        races=dataclasses.replace(settings.races, watcher_stale_s=3_600.0),
    )


@pytest.fixture(scope="module")
def fr_clock() -> MovableClock:
    return MovableClock()


@pytest.fixture(scope="module")
async def fr_server(settings: Settings, fr_clock: MovableClock) -> AsyncIterator[RunningServer]:
    async with running_server(friend_settings(settings), clock=fr_clock) as running:
        yield running


@dataclass
class Pal:
    """One account: its username, its HTTP client (holding the session cookie) and its pages."""

    username: str
    player: str
    session: str
    server: RunningServer
    pages: list[Client]

    async def page(self, enrol: bool = True) -> Client:
        """A new websocket of this account; ``enrol``: it asks for its friends (online, gets notices)."""
        client = Client(self.server.ws)
        await client.connect()
        await client.send({"t": "hello", "lang": "en", "session": self.session})
        client.welcome = await client.expect("welcome", T)
        assert client.welcome["account"] is not None
        self.pages.append(client)
        if enrol:
            await client.send({"t": "friends", "rid": "enrol"})
            await client.expect("friends", T, where=lambda m: m.get("rid") == "enrol")
        return client


MakePal = Callable[..., Awaitable[Pal]]


@pytest.fixture
async def make_pal(fr_server: RunningServer) -> AsyncIterator[MakePal]:
    pals: list[Pal] = []

    async def make(server: RunningServer | None = None, display: str = "") -> Pal:
        running = server or fr_server
        username = "f" + secrets.token_hex(5)
        async with httpx.AsyncClient(base_url=running.http, timeout=T) as http:
            r = await http.post(
                "/api/account/signup", json={"username": username, "password": PASSWORD, "display": display}
            )
            assert r.status_code == 201, r.text
            pal = Pal(username, r.json()["account"]["player"], http.cookies[COOKIE], running, [])
        pals.append(pal)
        return pal

    yield make
    for pal in pals:
        for client in pal.pages:
            await client.close()
    strange = [reason for pal in pals for c in pal.pages for reason in c.strange]
    assert not strange, strange[:5]


async def ask(client: Client, msg: dict[str, Any], answer: str, timeout: float = T) -> dict[str, Any]:
    """Send ``msg`` with a fresh rid; its answer of type ``answer`` or its ``error``."""
    rid = secrets.token_hex(4)
    await client.send({**msg, "rid": rid})
    return await client.expect(
        None, timeout, where=lambda m: m.get("rid") == rid and m.get("t") in (answer, "error")
    )


def entry(listing: dict[str, Any], username: str) -> dict[str, Any] | None:
    return next((f for f in listing["following"] if f["username"] == username), None)
