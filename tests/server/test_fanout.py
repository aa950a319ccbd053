"""Two server processes on one Redis: a watcher on instance B sees, in order, every move made on A."""

from __future__ import annotations

import asyncio

import pytest

from golfrace_client.client import Client
from golfrace_testkit.servers import start_process, stop_process

from .helpers import WIN_CODE, WIN_MOVES, assert_no_leak

pytestmark = pytest.mark.timeout(90)


async def test_watcher_on_other_instance_sees_every_move_in_order(settings, tmp_path) -> None:
    a, b = await asyncio.gather(
        asyncio.to_thread(start_process, settings.with_(port=0), log=tmp_path / "a.log"),
        asyncio.to_thread(start_process, settings.with_(port=0), log=tmp_path / "b.log"),
    )
    player = watcher = json_watcher = None
    try:
        player = await Client(a.ws).start()
        watcher = await Client(b.ws).start()
        json_watcher = await Client(b.ws, codec="golfrace.json").start()
        view = await player.new(WIN_CODE)
        await watcher.open(view.game, "watcher")
        await json_watcher.open(view.game, "watcher")
        moves = WIN_MOVES.split()
        for token in moves:
            action = {"a": "draw"} if token == "d" else {"a": "tap", "col": int(token)}
            answer = await player.act(view.game, **action)
            assert answer["t"] == "ack", answer
        for w in (watcher, json_watcher):
            wview = await w.wait_version(view.game, len(moves), timeout=10)
            assert [d["v"] for d in wview.applied] == list(range(1, len(moves) + 1))
            assert wview.state == view.state and wview.status == "won"
            diffs = [f for f in w.frames if f["t"] == "diff"]
            assert len(diffs) == len(moves)  # each version exactly once
            assert_no_leak(w, {view.game: WIN_CODE})
    finally:
        for c in (player, watcher, json_watcher):
            if c is not None:
                await c.close()
        await asyncio.gather(asyncio.to_thread(stop_process, a), asyncio.to_thread(stop_process, b))
