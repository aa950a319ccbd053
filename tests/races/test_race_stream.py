"""A watcher's race as a versioned stream on the game pipeline (``races/race_stream.py``): the numbers of a
race's events on an instance, and, over a real socket, a watcher that stops reading while the racers play on:
the server keeps a bounded queue for it, drops the rest, and once it reads again it catches up by itself
with one snapshot of the race as it is now, then goes on with the stream."""

from __future__ import annotations

import asyncio
import socket
from typing import Any
from urllib.parse import urlsplit

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from golfrace.live import metrics
from golfrace.races.followers import RaceWire
from golfrace.races.race_stream import EventNumbers
from golfrace.settings import Settings
from golfrace.store.pubsub import Envelope
from golfrace.wire.protocol import MSGPACK
from golfrace_testkit.servers import running_server

from ..clock import MovableClock
from .test_wire import T, act, join, new_race, start, wait_start


def test_an_event_gets_one_number_for_every_follower_and_races_count_apart() -> None:
    numbers = EventNumbers()
    first, second = Envelope.of("race:{a}", {"k": "move"}), Envelope.of("race:{a}", {"k": "move"})
    assert numbers.current("ra") == 0
    assert [numbers.number(first, "ra") for _ in range(3)] == [1, 1, 1]  # the channel's followers in turn
    assert numbers.number(second, "ra") == 2 and numbers.current("ra") == 2
    assert numbers.number(Envelope.of("race:{b}", {}), "rb") == 1
    numbers.missed("rb")  # a pub/sub reconnect: events of "rb" may have been lost
    assert numbers.current("rb") == 2 and numbers.number(second, "rb") == 3
    numbers.keep({"rb"})  # "ra" is followed here no more
    assert numbers.current("ra") == 0 and numbers.current("rb") == 3


SMALL = 4096
"""Bytes of the socket buffers on both sides, and of the server's transport high-water mark: a few dozen
frames stall the connection, not a few megabytes."""


async def stalling_watcher(url: str) -> ClientConnection:
    """A websocket whose reading stops when its program stops reading: websockets pauses the transport once
    ``max_queue`` frames wait, and the small receive buffer fills at once."""
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (parts.hostname, parts.port))
    return await connect(
        url,
        sock=sock,
        subprotocols=[Subprotocol(MSGPACK)],
        max_queue=2,
        max_size=2**20,
        ping_interval=None,
        open_timeout=T,
    )


async def receive(ws: ClientConnection) -> dict[str, Any]:
    message = msgpack.unpackb(await asyncio.wait_for(ws.recv(), T), raw=False)
    assert isinstance(message, dict)
    return message


async def until(ws: ClientConnection, seen: list[dict[str, Any]], where: Any) -> dict[str, Any]:
    while True:
        message = await receive(ws)
        seen.append(message)
        if where(message):
            return message


async def test_a_stalled_watcher_costs_a_bounded_queue_and_catches_up_by_itself(
    settings: Settings, make_client: Any
) -> None:
    clock = MovableClock()  # a slow_grace long enough for a starved machine: the watcher is not closed
    async with running_server(settings.with_(port=0, send_queue=16, slow_grace=600), clock=clock) as server:
        await _stalled_watcher_catches_up(server, clock, make_client)


async def _stalled_watcher_catches_up(server: Any, clock: MovableClock, make_client: Any) -> None:
    ann, bob = await make_client(server.ws, name="Ann"), await make_client(server.ws, name="Bob")
    rid = (await new_race(ann, name="Ann", seats=2, undo=True))["race"]
    await join(bob, rid, name="Bob")
    await wait_start(await start(ann, rid, bob), clock)
    ws = await stalling_watcher(server.ws)
    try:
        await ws.send(msgpack.packb({"t": "hello", "name": "Eve"}))
        player = (await receive(ws))["player"]
        await ws.send(msgpack.packb({"t": "watch", "race": rid}))
        seen: list[dict[str, Any]] = []
        first = await until(ws, seen, lambda m: m["t"] == "race_watch")
        (session,) = [s for s in server.ctx.sessions if s.player == player]
        protocol = session.writer.frames
        assert protocol is not None
        transport = protocol.transport
        transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL)
        transport.set_write_buffer_limits(high=SMALL)
        send_queue = server.settings.send_queue
        follow = session.follows[rid]
        assert follow.source is not None and follow.v >= first["v"]  # its own watchers event may follow

        # the watcher reads no more; Ann draws and takes it back, again and again
        dropped, seq, biggest = metrics.DROPPED._value.get(), 0, 0

        async def move(a: str) -> None:
            nonlocal seq, biggest
            seq += 1
            assert (await act(ann, rid, seq, {"a": a}))["t"] == "ack"
            outbox = session.machine.outbox or []
            assert len(outbox) <= send_queue  # the server's memory for it: its queue's bound
            assert transport.get_write_buffer_size() <= 2 * SMALL + 2048  # one frame over the high-water
            biggest = max(biggest, sum(len(f.raw if isinstance(f, Envelope) else f) for f in outbox))

        while not follow.lagging:  # until the socket stalled and the queue filled: events are dropped
            assert seq < 4000, "the watcher's connection never stalled"
            await move("draw" if seq % 2 == 0 else "undo")
        for _ in range(3 * send_queue):  # many more moves: nothing more is kept for it
            await move("draw" if seq % 2 == 0 else "undo")
        assert metrics.DROPPED._value.get() > dropped and not session.closing
        assert follow.lagging and not follow.pending and biggest > 0
        racers_v = follow.v  # the last event it was given
        await move("draw")  # Ann leaves a card drawn: the state to catch up with

        # it reads again: the frames queued, then one snapshot of the race as it is now
        service = server.ctx.get(RaceWire).service
        race, seats = await service.load_with_seats(rid)
        moves = {r.seat: seats[r.seat].game.moves for r in race.racers}
        caught = await until(
            ws,
            seen,
            lambda m: m["t"] == "race_watch" and m["v"] > racers_v and m is not first,
        )
        assert {b["seat"]: b["moves"] for b in caught["boards"]} == moves
        assert caught["boards"][0]["stock_count"] == seats[1].game.stock_count
        stream = [m["v"] for m in seen if "v" in m]
        assert stream == sorted(stream)  # in order, whatever was dropped
        assert not follow.lagging

        # and goes on with the stream from there
        await act(ann, rid, seq + 1, {"a": "undo"})
        board = await until(ws, seen, lambda m: m["t"] == "race_board")
        undos = (await service.load_with_seats(rid))[1][1].game.undos
        assert (
            board["v"] > caught["v"] and board["board"]["undos"] == undos == caught["boards"][0]["undos"] + 1
        )
    finally:
        await ws.close()
