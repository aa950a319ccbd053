"""``http/app.py``'s lifespan: an app that shuts down with a connection open, a move's follow-up and a hint
in flight, leaves no task behind in its event loop (every background task has an owner that ends it)."""

from __future__ import annotations

import asyncio

import pytest

from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from ..server.helpers import WIN_CODE

pytestmark = pytest.mark.timeout(60)
T = 10.0


async def _serve_then_stop(settings: Settings) -> list[str]:
    """A server in this loop: a guest plays a move, asks for a hint, watches a board; the server stops with
    all of it open. The tasks left in the loop after (but this one)."""
    async with running_server(settings.with_(port=0)) as running:
        client = Client(running.ws)
        await client.connect()
        await client.hello()
        view = await client.new(WIN_CODE)
        reply = await client.act(view.game, a="draw")
        assert reply["t"] == "ack", reply
        await client.send({"t": "board_watch", "board": "daily:2026-01-01"})
        await client.expect("board", T)
        await client.send({"t": "hint", "game": view.game})  # its answer still being computed
        assert running.ctx.sessions  # the connection is open as the server stops
    await client.close()
    return sorted(repr(t) for t in asyncio.all_tasks() if t is not asyncio.current_task())


def test_shutdown_leaves_no_task(settings: Settings) -> None:
    # a loop of its own: the session's shared server runs no task in it
    assert asyncio.run(_serve_then_stop(settings)) == []
