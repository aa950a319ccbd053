"""The websocket seam (``seams/uvicorn_ws.py``): the minimal queue and event that replace asyncio's in
uvicorn's protocol, the server's fallback to uvicorn's own protocol when the seam cannot be imported, and
its contract with the installed uvicorn and websockets."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State

from golfrace.seams.uvicorn_ws import Gate, Inbox, LeanWebSocketProtocol
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

pytestmark = pytest.mark.timeout(30)


async def test_inbox_is_fifo_waits_and_survives_a_cancelled_get() -> None:
    inbox = Inbox()
    assert inbox.empty()
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    getter = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not getter.done()
    for item in (1, 2, 3):
        inbox.put_nowait(item)
    assert await asyncio.wait_for(getter, 1) == 1
    assert inbox.qsize() == 2 and not inbox.empty()
    assert [await asyncio.wait_for(inbox.get(), 1) for _ in range(2)] == [2, 3]
    assert inbox.empty()


async def test_gate_blocks_until_set() -> None:
    gate = Gate()
    waiters = [asyncio.create_task(gate.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters) and not gate.is_set()
    gate.set()
    assert await asyncio.wait_for(asyncio.gather(*waiters), 1) == [True, True, True]
    gate.clear()
    late = asyncio.create_task(gate.wait())
    await asyncio.sleep(0)
    assert not late.done()
    gate.set()
    assert await asyncio.wait_for(late, 1)


async def test_server_falls_back_to_uvicorns_protocol_without_the_seam(settings, monkeypatch) -> None:
    from golfrace.seams.uvicorn_server import SANSIO_MODULE, websocket_protocol
    from golfrace.seams.uvicorn_ws import LeanWebSocketProtocol
    from golfrace_testkit.servers import running_server

    assert websocket_protocol() is LeanWebSocketProtocol
    monkeypatch.setitem(sys.modules, "golfrace.seams.uvicorn_ws", None)  # importing it now raises ImportError
    assert websocket_protocol() == "websockets-sansio"
    async with running_server(settings.with_(port=0)) as running:
        assert running.server.config.ws == "websockets-sansio"
        client = Client(running.ws)
        await client.connect(timeout=5)
        try:
            assert (await client.hello(timeout=5))["t"] == "welcome"
            view = await client.new("GO1-E-AAAAAAB", timeout=5)
            assert view.v == 0 and view.role == "player"
        finally:
            await client.close()
    monkeypatch.setitem(sys.modules, SANSIO_MODULE, None)  # an uvicorn without the sansio protocol
    assert websocket_protocol() == "websockets"


async def test_one_flush_callback_per_loop_iteration_writes_every_connection_and_survives_a_broken_one() -> (
    None
):
    from golfrace.seams.uvicorn_ws import Flusher

    flushed: list[str] = []

    class Conn:
        def __init__(self, name: str) -> None:
            self.name = name

        def flush(self) -> None:
            if self.name == "broken":
                raise OSError("the transport is gone")
            flushed.append(self.name)

    scheduled: list[object] = []

    class Loop:  # the flusher's view of the loop: it only schedules callbacks
        def call_soon(self, callback: object) -> None:
            scheduled.append(callback)

    flusher = Flusher(Loop())  # type: ignore[arg-type]
    for name in ("a", "broken", "b", "c"):
        flusher.add(Conn(name))  # type: ignore[arg-type]
    assert scheduled == [flusher.run]  # one callback for all
    flusher.run()
    assert flushed == ["a", "b", "c"] and flusher.pending == []
    flusher.add(Conn("d"))  # the next iteration schedules again
    assert len(scheduled) == 2


def _frames_may_go(protocol: LeanWebSocketProtocol) -> bool:
    """What ``can_write_frames`` answers, from uvicorn's and websockets' own state (as it was computed for
    every frame before it became one flag kept up to date)."""
    return (
        protocol.writable.is_set()
        and not protocol.close_sent
        and not protocol.disconnected
        and protocol.handshake_complete
        and protocol.initial_response is None
        and not protocol.conn.extensions
        and protocol.conn.state is State.OPEN
    )


async def _protocol_of(server: Any, client: Client) -> LeanWebSocketProtocol:
    await client.connect(timeout=5)
    await client.hello(timeout=5)
    (session,) = [s for s in server.ctx.sessions if s.player == client.player]
    protocol = session.writer.frames
    assert isinstance(protocol, LeanWebSocketProtocol)
    return protocol


async def test_the_frames_flag_follows_the_connection_through_its_life(settings: Any) -> None:
    async with running_server(settings.with_(port=0)) as server:
        client = Client(server.ws)
        protocol = await _protocol_of(server, client)
        try:
            assert protocol.can_write_frames() is _frames_may_go(protocol) is True
            protocol.pause_writing()  # the kernel's buffer to this peer is full
            assert protocol.can_write_frames() is _frames_may_go(protocol) is False
            protocol.resume_writing()
            assert protocol.can_write_frames() is _frames_may_go(protocol) is True
            # the peer's close frame: websockets' connection is closing, uvicorn answers and closes the
            # transport, and nothing has set close_sent or disconnected yet
            close = Frame(Opcode.CLOSE, Close(1000, "").serialize()).serialize(mask=True)
            protocol.data_received(close)
            assert protocol.conn.state is not State.OPEN and not protocol.close_sent
            assert protocol.can_write_frames() is _frames_may_go(protocol) is False
            async with asyncio.timeout(5):
                while not protocol.disconnected:
                    await asyncio.sleep(0.01)
            assert protocol.can_write_frames() is _frames_may_go(protocol) is False
        finally:
            await client.close()


@pytest.mark.parametrize("how", ["server-closes", "shutdown", "compression"])
async def test_the_frames_flag_is_off_once_the_server_closes_and_with_compression(
    settings: Any, how: str
) -> None:
    async with running_server(settings.with_(port=0, compression=how == "compression")) as server:
        client = Client(server.ws, compression=how == "compression")
        protocol = await _protocol_of(server, client)
        try:
            if how == "server-closes":
                (session,) = list(server.ctx.sessions)
                session.close(4000)
                async with asyncio.timeout(5):
                    while not protocol.close_sent:
                        await asyncio.sleep(0.01)
            elif how == "shutdown":
                protocol.shutdown()  # uvicorn's, at a server's stop: a close frame, the transport closed
                assert not protocol.close_sent and not protocol.disconnected
            assert protocol.can_write_frames() is _frames_may_go(protocol) is False
        finally:
            await client.close()


async def test_an_idle_connection_keeps_no_instance_dict_hello_timer_or_channel_set(settings: Any) -> None:
    """What an idle connection holds (bench/server.py's idle phase): every attribute of uvicorn's protocol
    in a slot (no instance dict of its own), and once the hello came, no hello timer and no channel set."""
    async with running_server(settings.with_(port=0)) as server:
        client = Client(server.ws)
        protocol = await _protocol_of(server, client)
        try:
            (session,) = list(server.ctx.sessions)
            assert not getattr(protocol, "__dict__", {})  # every attribute uvicorn set went into a slot
            assert protocol.conn.state is State.OPEN and protocol.can_write_frames()
            assert session.hello_timer is None and not isinstance(session.channels, set)
        finally:
            await client.close()
