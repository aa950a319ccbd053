"""The ways a session's frames reach the socket (``writer.py``), each over a real server, real websockets and
Redis: written directly as framed once for all followers, through the ASGI ``send`` (``direct_frames`` off, or
permessage-deflate negotiated, where frames differ per connection), and through the writer task while the
transport is paused. Every path delivers every version once, in order, to clients of both codecs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from golfrace.wire.protocol import JSON, MSGPACK
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from .helpers import WIN_CODE, WIN_MOVES, assert_no_leak

pytestmark = pytest.mark.timeout(60)
T = 10.0
MOVES = WIN_MOVES.split()[:12]


def _act(token: str) -> dict[str, Any]:
    return {"a": "draw"} if token == "d" else {"a": "tap", "col": int(token)}


async def _watch_a_game(url: str, compression: bool = False) -> tuple[Client, list[Client], str]:
    player = Client(url, compression=compression)
    watchers = [Client(url, codec=c, compression=compression) for c in (MSGPACK, JSON)]
    for c in (player, *watchers):
        await c.connect(timeout=T)
        await c.hello(timeout=T)
    view = await player.new(WIN_CODE, timeout=T)
    for w in watchers:
        await w.open(view.game, "watcher", timeout=T)
    return player, watchers, view.game


async def _play_and_check(player: Client, watchers: list[Client], game: str) -> None:
    for token in MOVES:
        assert (await player.act(game, **_act(token), timeout=T))["t"] == "ack"
    for c in (player, *watchers):
        got = await c.wait_version(game, len(MOVES), timeout=T)
        assert [d["v"] for d in got.applied] == list(range(1, len(MOVES) + 1))
        assert assert_no_leak(c, {game: WIN_CODE}) > len(MOVES)
    assert watchers[0].views[game].state == watchers[1].views[game].state == player.views[game].state


@pytest.mark.parametrize(
    ("direct", "compression", "direct_path"),
    [(True, False, True), (False, False, False), (True, True, False)],
    ids=["framed-once", "asgi-send", "permessage-deflate"],
)
async def test_every_path_delivers_every_version_in_order(
    settings: Any, direct: bool, compression: bool, direct_path: bool
) -> None:
    config = settings.with_(port=0, direct_frames=direct, compression=compression)
    async with running_server(config) as server:
        player, watchers, game = await _watch_a_game(server.ws, compression)
        try:
            sessions = list(server.ctx.sessions)
            assert len(sessions) == 3
            for s in sessions:
                assert (s.writer.frames is not None and s.writer.frames.can_write_frames()) is direct_path
            await _play_and_check(player, watchers, game)
        finally:
            for c in (player, *watchers):
                await c.close()


async def test_a_paused_transport_goes_through_the_writer_and_back_to_direct_writes(settings: Any) -> None:
    async with running_server(settings.with_(port=0)) as server:
        player, watchers, game = await _watch_a_game(server.ws)
        try:
            (session,) = [s for s in server.ctx.sessions if s.player == watchers[0].player]
            protocol = session.writer.frames
            assert protocol is not None
            protocol.pause_writing()  # the kernel's buffer to this peer is full
            assert not protocol.can_write_frames()
            for token in MOVES[:4]:
                assert (await player.act(game, **_act(token), timeout=T))["t"] == "ack"
            await watchers[1].wait_version(game, 4, timeout=T)  # the others are not held up
            assert watchers[0].views[game].v == 0  # nothing reached the paused one meanwhile
            assert session.machine.queued == 3  # the writer holds the first diff, waiting for the socket
            assert session.writer.task is not None and not session.writer.task.done()
            protocol.resume_writing()
            await watchers[0].wait_version(game, 4, timeout=T)
            async with asyncio.timeout(T):  # the writer drained the queue and ended
                while session.writer.task is not None:
                    await asyncio.sleep(0.01)
            assert protocol.can_write_frames()
            for token in MOVES[4:]:
                assert (await player.act(game, **_act(token), timeout=T))["t"] == "ack"
            for c in (player, *watchers):
                got = await c.wait_version(game, len(MOVES), timeout=T)
                assert [d["v"] for d in got.applied] == list(range(1, len(MOVES) + 1))
        finally:
            for c in (player, *watchers):
                await c.close()
