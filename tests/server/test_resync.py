"""Reconnecting: the token resumes the player's games; resync replays missed diffs or sends a snapshot."""

from __future__ import annotations

import pytest

from golfrace_testkit.servers import running_server

from .helpers import WIN_CODE, WIN_MOVES

pytestmark = pytest.mark.timeout(60)
MOVES = WIN_MOVES.split()


def _act(token: str) -> dict:
    return {"a": "draw"} if token == "d" else {"a": "tap", "col": int(token)}


async def test_reconnect_and_resync_from_buffer(make_client) -> None:
    player = await make_client()
    view = await player.new(WIN_CODE)
    watcher = await make_client()
    await watcher.open(view.game, "watcher")
    await watcher.close()
    for token in MOVES[:6]:
        assert (await player.act(view.game, **_act(token)))["t"] == "ack"

    back = await make_client()
    await back.open(view.game, "watcher")
    assert back.views[view.game].v == 6
    del back.views[view.game]  # pretend we hold version 2 and ask for the rest
    await back.send({"t": "resync", "game": view.game, "v": 2})
    replayed = [await back.expect("diff") for _ in range(4)]
    assert [d["v"] for d in replayed] == [3, 4, 5, 6]
    await back.ping()
    assert not [m for m in back.drain() if m["t"] in ("diff", "snapshot")]

    resumed = await make_client(token=player.token)
    assert resumed.welcome["games"][0] == view.game
    assert (await resumed.open(view.game)).state == view.state


async def test_resync_too_far_back_gets_snapshot(settings, make_client) -> None:
    async with running_server(settings.with_(port=0, resync_buffer=3)) as small:
        player = await make_client(small.ws)
        view = await player.new(WIN_CODE)
        for token in MOVES[:8]:
            await player.act(view.game, **_act(token))
        await player.wait_version(view.game, 8)
        player.drain()
        await player.send({"t": "resync", "game": view.game, "v": 1})
        snap = await player.expect("snapshot")
        assert snap["v"] == 8 and snap["state"]["moves"] == 8
        del player.views[view.game]  # the local view holds 8; drop it to accept 7 and 8 again
        await player.send({"t": "resync", "game": view.game, "v": 6})
        assert [(await player.expect("diff"))["v"] for _ in range(2)] == [7, 8]
        await player.send({"t": "resync", "game": "nope", "v": 0})
        assert (await player.expect("error"))["code"] == "not_open"
