"""A server of its own on a Saturday's clock (the weekend's daily course), moved on by the tests that need
the day over or a weekday."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from ..clock import MovableClock

SATURDAY_MS = int(datetime(2027, 1, 2, 10, 0, tzinfo=UTC).timestamp() * 1000)
"""10:00 UTC on Saturday 2 January 2027."""


@pytest.fixture(scope="module")
def course_clock() -> MovableClock:
    return MovableClock(SATURDAY_MS)


@pytest.fixture(scope="module")
async def course_server(settings: Settings, course_clock: MovableClock) -> AsyncIterator[RunningServer]:
    async with running_server(settings.with_(port=0), clock=course_clock) as running:
        yield running


@pytest.fixture
async def course_client(course_server: RunningServer) -> AsyncIterator[Callable[..., Awaitable[Client]]]:
    clients: list[Client] = []

    async def make(**kwargs: Any) -> Client:
        client = Client(course_server.ws, **kwargs)
        clients.append(client)
        await client.connect()
        await client.hello()
        return client

    yield make
    for client in clients:
        await client.close()
    strange = [reason for client in clients for reason in client.strange]
    assert not strange, strange
