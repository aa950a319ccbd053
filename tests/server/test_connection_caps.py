"""Connections are capped per client network and per player (issue 19.4), over real websockets: beyond
``max_connections_per_network`` a new connection is closed at once, beyond ``max_connections_per_player`` a
``hello`` of that player closes its connection, both with close code 4030; a connection that goes makes
room.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from golfrace.settings import Settings
from golfrace.wire.protocol import CLOSE_TOO_MANY_CONNECTIONS
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

T = 5.0


@pytest.fixture
async def capped(settings: Settings) -> AsyncIterator[RunningServer]:
    ours = settings.with_(port=0, max_connections_per_network=6, max_connections_per_player=3)
    async with running_server(ours) as server:
        yield server


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        await client.close()


async def _connect(server: RunningServer, made: list[Client], **kwargs: object) -> Client:
    client = Client(server.ws, **kwargs)  # type: ignore[arg-type]
    made.append(client)
    await client.connect(T)
    return client


async def test_connections_of_one_player_are_capped(capped: RunningServer, clients: list[Client]) -> None:
    first = await _connect(capped, clients)
    await first.hello(T)
    for _ in range(2):
        await (await _connect(capped, clients, token=first.token)).hello(T)
    fourth = await _connect(capped, clients, token=first.token)
    await fourth.send({"t": "hello", "token": first.token, "lang": "en"})
    assert await fourth.wait_closed(T) == CLOSE_TOO_MANY_CONNECTIONS
    other = await _connect(capped, clients)  # another player from the same network is let in
    assert (await other.hello(T))["player"] != first.player
    await first.close()
    again = await _connect(capped, clients, token=first.token)  # one went: room for one
    assert (await again.hello(T))["player"] == first.player


async def test_connections_of_one_network_are_capped(capped: RunningServer, clients: list[Client]) -> None:
    open_ = [await _connect(capped, clients) for _ in range(6)]
    seventh = await _connect(capped, clients)
    assert await seventh.wait_closed(T) == CLOSE_TOO_MANY_CONNECTIONS
    await open_[0].close()
    await open_[0].wait_closed(T)
    deadline = asyncio.get_running_loop().time() + T
    while len(capped.ctx.sessions) > 5:  # the server has seen it go
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.01)
    assert (await (await _connect(capped, clients)).hello(T))["t"] == "welcome"
