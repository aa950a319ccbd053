"""A client whose socket does not drain: its queue fills, broadcasts to it are dropped (never blocking the
player), it catches up with the missed versions once it drains, or it is closed with 4008."""

from __future__ import annotations

import asyncio
import time

import pytest

from golfrace.live import metrics
from golfrace.wire.protocol import CLOSE_TOO_SLOW
from golfrace_testkit.servers import running_server

from ..clock import MovableClock
from .helpers import WIN_CODE, WIN_MOVES

pytestmark = pytest.mark.timeout(60)


def _stall(server, player: str) -> asyncio.Event:
    """Make the server's writes to ``player``'s connection wait until the returned event is set: what the
    transport does when the peer stopped reading and the kernel buffers are full (it pauses the protocol's
    writing; the protocol then takes no frame directly and the ASGI ``send`` waits)."""
    (session,) = [s for s in server.ctx.sessions if s.player == player]
    protocol = session.writer.frames
    assert protocol is not None and protocol.can_write_frames()
    protocol.pause_writing()
    release = asyncio.Event()

    async def resume() -> None:
        await release.wait()
        protocol.resume_writing()

    task = asyncio.create_task(resume())
    _held.add(task)
    task.add_done_callback(_held.discard)
    return release


_held: set[asyncio.Task[None]] = set()


async def _until(condition, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def _play(client, game: str, moves: list[str]) -> float:
    worst = 0.0
    for token in moves:
        action = {"a": "draw"} if token == "d" else {"a": "tap", "col": int(token)}
        start = time.perf_counter()
        assert (await client.act(game, **action))["t"] == "ack"
        worst = max(worst, time.perf_counter() - start)
    return worst


async def test_slow_watcher_catches_up_without_slowing_the_player(settings, make_client) -> None:
    async with running_server(settings.with_(port=0, send_queue=4, slow_grace=30)) as server:
        player = await make_client(server.ws)
        watcher = await make_client(server.ws)
        view = await player.new(WIN_CODE)
        await watcher.open(view.game, "watcher")
        release = _stall(server, watcher.player)
        dropped = metrics.DROPPED._value.get()
        moves = WIN_MOVES.split()[:20]
        worst = await _play(player, view.game, moves)
        assert worst < 1.0
        assert metrics.DROPPED._value.get() > dropped  # the watcher's queue did overflow
        release.set()
        wview = await watcher.wait_version(view.game, len(moves), timeout=10)
        assert wview.state == view.state
        versions = [d["v"] for d in wview.applied]
        assert versions == sorted(set(versions))  # in order, none twice (the view also checks the chain)


async def test_stalled_client_is_closed_4008(settings, make_client) -> None:
    clock = MovableClock()  # the slow client's grace runs on the server's clock: moved on, not waited for
    async with running_server(settings.with_(port=0, send_queue=2), clock=clock) as server:
        player = await make_client(server.ws)
        watcher = await make_client(server.ws)
        view = await player.new(WIN_CODE)
        await watcher.open(view.game, "watcher")
        (session,) = [s for s in server.ctx.sessions if s.player == watcher.player]
        release = _stall(server, watcher.player)
        moves = WIN_MOVES.split()
        dropped = metrics.DROPPED._value.get()
        await _play(player, view.game, moves[:5])
        await _until(lambda: metrics.DROPPED._value.get() > dropped)  # its queue is full: broadcasts dropped
        assert session.machine.full_since is not None and not session.closing  # within the grace: open
        await clock.advance(server.settings.slow_grace + 1)  # past it: the next broadcast closes it
        await _play(player, view.game, moves[5:10])
        await _until(lambda: session.closing)
        assert (await player.ping())["t"] == "pong"  # the player was never held up
        release.set()  # the peer reads again, within close_timeout_s: the close frame reaches it
        assert await watcher.wait_closed(5) == CLOSE_TOO_SLOW
