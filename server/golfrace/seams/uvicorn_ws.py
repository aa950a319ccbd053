"""uvicorn's websockets-sansio protocol, trimmed for thousands of long-lived, mostly idle connections, and
able to take frames framed once for many connections.

Per connection uvicorn keeps the handshake's request and response (their headers, ~3 KB, also held by the
websockets parser's generator frame), an ``asyncio.Queue`` (three deques and an ``Event``, ~3 KB) and an
``asyncio.Event`` (~0.8 KB). After the handshake the headers are emptied; the queue and the event are
replaced by minimal equivalents of the operations uvicorn uses. Data frames are coalesced into one socket
write per event-loop iteration. Behaviour is otherwise uvicorn's.

Fan-out: a broadcast goes to every follower as the same bytes, so it is framed once (``frame``, by
websockets' ``Frame.serialize``) and each connection appends those bytes to its output (``write_frame``)
instead of framing per send through the ASGI ``send``. The protocol offers itself to the app as the ASGI
scope extension ``FRAMES``; ``can_write_frames`` says when that is right (open, no per-connection
compression, the transport not paused), otherwise the app uses the ASGI ``send`` as usual.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.http11 import Request
from websockets.protocol import State

from .ws_frames import FRAMES

log = logging.getLogger("golfrace.ws")
OPEN = State.OPEN


class Inbox:
    """The part of ``asyncio.Queue`` uvicorn uses (``put_nowait``, ``get``, ``empty``) for one consumer."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        if self._items is None:
            self._items = [item]
        else:
            self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        item = self._items.pop(0)
        if not self._items:
            self._items = None
        return item

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items or ())


class Gate:
    """The part of ``asyncio.Event`` uvicorn uses (``set``, ``clear``, ``is_set``, ``wait``)."""

    __slots__ = ("_open", "_waiters")

    def __init__(self) -> None:
        self._open = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._open

    def set(self) -> None:
        if not self._open:
            self._open = True
            waiters, self._waiters = self._waiters, None
            for waiter in waiters or ():
                if not waiter.done():
                    waiter.set_result(None)

    def clear(self) -> None:
        self._open = False

    async def wait(self) -> bool:
        if self._open:
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    # every attribute in a slot: uvicorn's protocol sets over 30, more than an instance dict shares its keys
    # for, so each connection held a dict of its own (~1.6 KB at 5,000 idle connections; slots: 8 bytes each)
    __slots__ = (
        *("app", "app_state", "asgi_version", "client", "close_timeout", "close_timer", "config", "conn"),
        *("connections", "curr_msg_data_type", "default_headers", "handshake_complete", "logger", "loop"),
        *("handshake_initiated", "initial_response", "last_ping_rtt", "pending_ping_payload", "server"),
        *("ping_interval", "ping_sent_at", "ping_timeout", "ping_timer", "pong_timer", "queue", "scheme"),
        *("read_paused", "request", "response", "root_path", "scope", "tasks", "transport", "writable"),
        *("_close_sent", "_disconnected", "flusher", "frames", "frames_ok", "open_plain", "out", "sink"),
        "write_paused",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # what the fan-out reads per frame first, so that it lies together at the start of this object's
        # attributes: whether frames may be written now, and where they go
        self.frames_ok = False
        """``can_write_frames``: ``open_plain`` and neither ``write_paused``, ``close_sent`` nor
        ``disconnected``, made again whenever one of them changes (``_frames_ok_again``)."""
        self.out: list[bytes] | None = None
        self.flusher: Flusher = None  # type: ignore[assignment]  # the loop's, once uvicorn has set it
        self.sink: asyncio.Transport = None  # type: ignore[assignment]
        """``transport``, beside ``out`` (what ``flush`` reads)."""
        self._close_sent = False
        self._disconnected = False
        self.open_plain = False
        """Accepted with nothing (such as permessage-deflate) that transforms frames per connection, and
        websockets' connection still ``OPEN``: set by the accept; cleared where uvicorn lets ``conn`` leave
        ``OPEN`` without setting ``close_sent`` (a frame received: the peer's close or a protocol error;
        ``shutdown``)."""
        self.write_paused = False
        """The transport's buffer is over its high-water mark (``writable`` cleared)."""
        super().__init__(*args, **kwargs)
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Gate()  # type: ignore[assignment]
        self.writable.set()
        self.flusher = _flusher(self.loop)

    # uvicorn's own flags, kept as before, each change also making ``frames_ok`` again
    @property
    def close_sent(self) -> bool:
        return self._close_sent

    @close_sent.setter
    def close_sent(self, value: bool) -> None:
        self._close_sent = value
        self._frames_ok_again()

    @property
    def disconnected(self) -> bool:
        return self._disconnected

    @disconnected.setter
    def disconnected(self, value: bool) -> None:
        self._disconnected = value
        self._frames_ok_again()

    def _frames_ok_again(self) -> None:
        self.frames_ok = (
            self.open_plain and not self.write_paused and not self._close_sent and not self._disconnected
        )

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.sink = self.transport

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake was refused
        if scope is not None:
            scope["extensions"][FRAMES] = self

    def can_write_frames(self) -> bool:
        """Whether a frame made by ``frame`` may be written now: the connection is open, nothing (such as
        permessage-deflate) transforms frames per connection, and the transport is not paused. One
        attribute (``frames_ok``), since it is asked for every frame of a broadcast to every follower."""
        return self.frames_ok

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.open_plain and self.conn.state is not OPEN:
            self.open_plain = False
            self._frames_ok_again()

    def shutdown(self) -> None:
        super().shutdown()
        self.open_plain = False
        self._frames_ok_again()

    def pause_writing(self) -> None:
        super().pause_writing()
        self.write_paused = True
        self._frames_ok_again()

    def resume_writing(self) -> None:
        super().resume_writing()
        self.write_paused = False
        self._frames_ok_again()

    def write_frame(self, data: bytes) -> None:
        """Append one framed frame to this iteration's socket write (check ``can_write_frames`` first)."""
        out = self.out
        if out is None:
            self.out = [data]
            pending = self.flusher.pending  # Flusher.add, inline: it runs for every frame of a broadcast
            if not pending:
                self.loop.call_soon(self.flusher.run)
            pending.append(self)
        else:
            out.append(data)

    async def send(self, message: Any) -> None:
        """Data frames are written once per event-loop iteration: an answer and the diff it caused (or a
        burst of diffs) leave in one socket write instead of one system call each."""
        if (
            message["type"] == "websocket.send"
            and self.handshake_complete
            and self.initial_response is None
            and not self.close_sent
            and not self.disconnected
            and self.writable.is_set()
        ):
            try:
                data = message.get("bytes")
                if data is not None:
                    self.conn.send_binary(data)
                else:
                    self.conn.send_text(message["text"].encode())
            except InvalidState:
                raise ClientDisconnected() from None
            if self.out is None:
                self.out = []
                self.flusher.add(self)
            self.out.extend(self.conn.data_to_send())
            return
        self.flush()
        await super().send(message)
        if message["type"] == "websocket.accept":
            conn = self.conn
            self.open_plain = (
                self.handshake_complete
                and self.initial_response is None
                and not conn.extensions
                and conn.state is OPEN
            )
            self._frames_ok_again()
        if message["type"] == "websocket.accept" and self.handshake_complete and self.request is not None:
            self.request.headers.clear()  # also referenced from the parser's finished handshake frame
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]

    def flush(self) -> None:
        out, self.out = self.out, None
        if out and not (sink := self.sink).is_closing():
            sink.write(out[0] if len(out) == 1 else b"".join(out))


class Flusher:
    """One callback per event-loop iteration for every connection with output (not one each): a broadcast
    to 200 followers schedules one callback, not 200."""

    __slots__ = ("__weakref__", "loop", "pending")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: list[LeanWebSocketProtocol] = []

    def add(self, protocol: LeanWebSocketProtocol) -> None:
        if not self.pending:
            self.loop.call_soon(self.run)
        self.pending.append(protocol)

    def run(self) -> None:
        pending, self.pending = self.pending, []
        for protocol in pending:
            try:
                protocol.flush()
            except Exception:  # one broken transport must not keep the others' output back
                log.exception("websocket write failed")


_FLUSHERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Flusher] = weakref.WeakKeyDictionary()


_last: Flusher | None = None


def _flusher(loop: asyncio.AbstractEventLoop) -> Flusher:
    """The loop's flusher (a server has one loop: the last one found is kept at hand, since a weak
    dictionary's lookup makes a weak reference each time)."""
    global _last
    last = _last
    if last is not None and last.loop is loop:
        return last
    flusher = _FLUSHERS.get(loop)
    if flusher is None:
        flusher = _FLUSHERS[loop] = Flusher(loop)
    _last = flusher
    return flusher
