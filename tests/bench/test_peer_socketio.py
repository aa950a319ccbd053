"""The bench's peer (bench/peer_socketio.py, issue 18.11) starts, and answers a move as the game server would:
the engine's diff to the game's room and the ack to the mover, spoken in Socket.IO over a real websocket by
the bench's own client (bench/peer_client.py). A smoke test of the comparison's other side, not a benchmark.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import ClientConnection

from golfrace.engine import Draw, Game, GameCode, Tap
from golfrace.store.embedded import free_port, terminate
from golfrace.wire.views import diff

from .bench_modules import BENCH, bench_module

CODE = "GO1-E-AAAAAAB"

peer_client = bench_module("peer_client")


@pytest.fixture
def peer_url(redis_url: str) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(BENCH / "peer_socketio.py"), "--port", str(port), "--redis", redis_url]
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # until it listens (or has died)
            assert proc.poll() is None, f"the peer exited with {proc.returncode}"
            assert time.monotonic() < deadline, "the peer did not listen in 30 s"
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield peer_client.socket_url(f"ws://127.0.0.1:{port}")
    finally:
        terminate(proc)


async def _frames_until(ws: ClientConnection, heads: tuple[str, ...]) -> dict[str, str]:
    """Frames read until one starting with each of ``heads`` has come (pings answered): head → frame."""
    got: dict[str, str] = {}
    while len(got) < len(heads):
        frame = await asyncio.wait_for(ws.recv(), 10)
        if frame == peer_client.PING:
            await ws.send(peer_client.PONG)
        for head in heads:
            if isinstance(frame, str) and frame.startswith(head):
                got[head] = frame
    return got


async def test_the_peer_answers_a_move_with_the_engines_diff_and_an_ack(peer_url: str) -> None:
    ws = await peer_client.open_peer(peer_url, "smoke-player")
    try:
        player = peer_client.PeerPlayer(ws, [], 0)
        snapshot = await player.call("new", {"code": CODE})
        before = Game.new(GameCode.parse(CODE))
        assert snapshot["v"] == 0
        assert snapshot["columns"] == [[c.code for c in col] for col in before.columns]
        action = Tap(before.playable_columns()[0] + 1) if before.playable_columns() else Draw()
        move = {"a": "tap", "col": action.column} if isinstance(action, Tap) else {"a": "draw"}
        await ws.send("427" + json.dumps(["act", {"game": snapshot["game"], "seq": 1, **move}]))
        frames = await _frames_until(ws, ('42["diff",', "437["))
        after = before.apply(action)
        expected = json.loads(json.dumps(diff(snapshot["game"], 0, before, after, action, False)))
        assert json.loads(frames['42["diff",'][2:]) == ["diff", expected]
        assert json.loads(frames["437["][3:]) == [{"t": "ack", "game": snapshot["game"], "seq": 1, "v": 1}]
    finally:
        await ws.close()


async def test_the_peer_refuses_a_move_of_another_player(peer_url: str) -> None:
    owner = await peer_client.open_peer(peer_url, "owner")
    other = await peer_client.open_peer(peer_url, "other")
    try:
        game = (await peer_client.PeerPlayer(owner, [], 0).call("new", {"code": CODE}))["game"]
        await other.send("421" + json.dumps(["act", {"game": game, "seq": 1, "a": "draw"}]))
        frames = await _frames_until(other, ("431[",))
        assert json.loads(frames["431["][3:]) == [{"t": "error", "code": "not_player", "seq": 1}]
    finally:
        await owner.close()
        await other.close()
