"""The app's end (``http/app.py``'s lifespan): a connection still open then is closed with 1001 (going away),
and its close frame goes out before the hub and Redis are stopped (waited for, not slept on; a socket that
does not take it is given up after ``close_timeout_s``). Driven through the app's own ASGI callables on a real
Redis; the socket is a queue the test holds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from golfrace.http.app import create_app
from golfrace.settings import Settings
from golfrace.wire.protocol import CLOSE_GOING_AWAY

pytestmark = pytest.mark.timeout(60)
T = 10.0
SCOPE = {"type": "websocket", "path": "/ws", "subprotocols": [], "headers": [], "client": ("127.0.0.1", 1)}


async def _end_with_a_connection_open(settings: Settings, stalled: bool) -> tuple[list[str], list[Any]]:
    """Start the app, open one connection, end the app: what happened in which order, and what was sent.
    ``stalled``: the socket never takes the close frame."""
    app = create_app(settings.with_(hello_timeout=3_600.0))  # no hello: the test ends it first
    starlette = app.starlette
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    order: list[str] = []
    sent: list[Any] = []
    accepted = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "websocket.close":
            order.append("close frame")
            try:
                if stalled:
                    await asyncio.Event().wait()  # until the writer gives up on it
            finally:
                order.append("close frame done")
        sent.append(message)
        accepted.set()

    lifespan = starlette.router.lifespan_context(starlette)
    await lifespan.__aenter__()
    hub = starlette.state.ctx.hub
    stop = hub.stop

    async def stopping() -> None:
        order.append("hub stops")
        await stop()

    hub.stop = stopping
    await inbox.put({"type": "websocket.connect"})
    connection = asyncio.create_task(app(SCOPE, inbox.get, send))
    await asyncio.wait_for(accepted.wait(), T)
    await asyncio.wait_for(lifespan.__aexit__(None, None, None), T)
    await inbox.put({"type": "websocket.disconnect", "code": CLOSE_GOING_AWAY})
    await asyncio.wait_for(connection, T)
    return order, sent


async def test_a_connection_open_at_the_end_is_closed_going_away_before_the_hub_stops(
    settings: Settings,
) -> None:
    order, sent = await _end_with_a_connection_open(settings, stalled=False)
    assert order == ["close frame", "close frame done", "hub stops"]
    assert sent[-1] == {"type": "websocket.close", "code": CLOSE_GOING_AWAY}


async def test_a_socket_that_does_not_take_the_close_frame_is_given_up(settings: Settings) -> None:
    order, _ = await _end_with_a_connection_open(settings.with_(close_timeout_s=0.3), stalled=True)
    assert order == ["close frame", "close frame done", "hub stops"]  # the hub waited for it, bounded
