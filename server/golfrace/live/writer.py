"""A connection's way to its socket (``Writer``): the frames the follow machine queued in its ``outbox`` are
written at once when the websocket protocol takes frames directly (``FrameSink``: a broadcast as the bytes
framed once for all its followers, an answer framed here), otherwise a writer task, which exists only while
something could not be written at once, drains them through the ASGI ``send`` (``Socket``); either way the
machine then hears ``drained``. A close cancels even a send to a stalled socket, then the close frame gets
``close_timeout_s`` seconds. The only code that writes to a connection's socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

from golfrace.live import metrics
from golfrace.live.follow_machine import Connection
from golfrace.live.follow_state import Action
from golfrace.seams.ws_frames import frame
from golfrace.store.pubsub import Envelope

log = logging.getLogger("golfrace.live.session")  # a connection's events under one name


class Socket(Protocol):
    """What a session writes to (``app.Socket`` over the ASGI callables)."""

    async def send_bytes(self, data: bytes) -> None: ...
    async def send_text(self, data: str) -> None: ...
    async def close(self, code: int = 1000) -> None: ...


class FrameSink(Protocol):
    """The websocket protocol's way in for frames framed once for many connections
    (``seams.uvicorn_ws``): when it can take one now, the frame skips the ASGI ``send``."""

    def can_write_frames(self) -> bool: ...
    def write_frame(self, data: bytes) -> None: ...


class Writer:
    """Writes one connection's queued frames (``machine.outbox``) to its socket."""

    __slots__ = ("_act", "_sending", "binary", "close_timeout_s", "frames", "machine", "task", "websocket")

    def __init__(
        self,
        machine: Connection,
        websocket: Socket,
        frames: FrameSink | None,
        binary: bool,
        close_timeout_s: float,
        act: Callable[[tuple[Action, ...]], None],
    ) -> None:
        self.machine = machine
        self.websocket = websocket
        self.frames = frames
        """Where frames go straight when the protocol can take them (else through ``websocket``)."""
        self.binary = binary
        """msgpack frames (binary), else JSON text."""
        self.close_timeout_s = close_timeout_s
        self._act = act
        """Carries out the actions the machine answers ``drained`` with (the session's)."""
        self.task: asyncio.Task[Any] | None = None
        """The writer task, while one runs."""
        self._sending = False

    def write(self) -> None:
        """Frames are queued: unless the writer task runs, write them now when the protocol takes frames
        directly (a broadcast as the bytes framed once for all its followers, an answer framed here), else
        start the writer task."""
        task = self.task
        if task is not None and not task.done():
            return
        frames = self.frames
        if frames is None or not frames.can_write_frames():
            self.task = asyncio.create_task(self._drain())
            return
        machine = self.machine
        queue = machine.outbox
        if queue:
            binary = self.binary
            for item in queue:
                frames.write_frame(item.framed(binary) if type(item) is Envelope else frame(item))
            _count_sent(len(queue))
            queue.clear()
        actions = machine.drained()
        if actions:
            self._act(actions)

    def closed(self) -> None:
        """The machine closed: stop a send in progress (the socket may be stalled) and let the writer task
        send the close frame."""
        if self._sending and self.task is not None:
            self.task.cancel()
        self.start()

    def start(self) -> None:
        task = self.task
        if task is None or task.done():
            self.task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        """Drain the outbox into the socket, then end (an idle connection holds no task and no queue);
        ``closed`` cancels it even in the middle of a send to a stalled socket, then the close frame gets
        ``close_timeout_s`` seconds."""
        ws = self.websocket
        machine = self.machine
        binary = self.binary
        sent = 0
        try:
            queue = machine.outbox
            while queue:
                frame = queue.pop(0)
                if type(frame) is Envelope:
                    frame = frame.raw if binary else frame.json
                self._sending = True
                if binary:
                    await ws.send_bytes(frame)
                else:
                    await ws.send_text(frame)
                self._sending = False
                sent += 1
                queue = machine.outbox
        except asyncio.CancelledError:
            self._sending = False
            if machine.close_code is None:
                raise
        except Exception as exc:  # the peer is gone: the reader ends the session
            log.debug("send failed: %r", exc)
            self._sending = False
            machine.outbox = None
            self.task = None
            return
        finally:
            metrics.MESSAGES_OUT.inc(sent)
        if machine.close_code is None:
            self.task = None
            actions = machine.drained()
            if actions:
                self._act(actions)
            if machine.outbox:
                self.write()
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(machine.close_code), self.close_timeout_s)

    async def stop(self) -> None:
        """The connection ends: let a close frame in progress go out (bounded), else stop writing."""
        task = self.task
        if task is None or task.done():
            return
        if self.machine.close_code is None:
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, self.close_timeout_s + 1)


def write_in_step(frames: FrameSink, data: bytes) -> None:
    """The fan-out's fast path (``Session.deliver``): a diff that the machine let go straight
    (``Connection.diff_in_step``: nothing queued, so no writer task is draining this connection, since a
    running writer keeps the outbox at least an empty list until ``drained``), written now to a protocol that
    takes frames (``can_write_frames``, checked by the caller)."""
    frames.write_frame(data)
    _count_sent(1)


_unreported = 0
"""Frames written directly since the metric was last told (once per event-loop iteration, not per frame)."""


def _count_sent(n: int) -> None:
    global _unreported
    if not _unreported:
        asyncio.get_running_loop().call_soon(_report_sent)
    _unreported += n


def _report_sent() -> None:
    global _unreported
    metrics.MESSAGES_OUT.inc(_unreported)
    _unreported = 0
