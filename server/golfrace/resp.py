"""A lean Redis connection for the hot path: many concurrent callers share one socket.

redis-py checks a connection out of its pool, wraps every command in retry and timeout layers and reads
each reply on its own; at thousands of moves per second that costs more CPU than the move itself. Here
commands are queued in the order they are issued, written with one socket write per event-loop iteration,
and their replies (parsed by ``hiredis``) resolve the callers' futures in the same order — Redis answers a
connection's commands in order, so this pipelining needs no bookkeeping beyond a FIFO.

``Pipe`` runs commands; ``Subscription`` holds a pub/sub connection and hands every message to a callback.
Both connect lazily, fail pending callers with ``redis.exceptions.ConnectionError`` when the socket is lost
(so handlers answer ``unavailable``, as with redis-py) and reconnect on next use.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

log = logging.getLogger("golfrace.resp")
_pack: Callable[[tuple[Any, ...]], bytes] = hiredis.pack_command
CONNECT_TIMEOUT = 5.0  # seconds to open the socket and pass AUTH/SELECT


class _Link(asyncio.Protocol):
    """One socket: writes coalesced per loop iteration, replies parsed by hiredis, handed to ``on_reply``."""

    def __init__(self, on_reply: Callable[[Any], None], on_lost: Callable[[Exception], None]) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        self.on_reply = on_reply
        self.on_lost = on_lost
        self.out: list[bytes] = []
        self.flush_scheduled = False
        self.loop = asyncio.get_running_loop()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports do not subclass

    def write(self, data: bytes) -> None:
        self.out.append(data)
        if not self.flush_scheduled:
            self.flush_scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        self.flush_scheduled = False
        if self.out and self.transport is not None and not self.closed:
            data = self.out[0] if len(self.out) == 1 else b"".join(self.out)
            self.out.clear()
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        try:
            while True:
                reply = reader.gets()
                if reply is False:
                    return
                self.on_reply(reply)
        except hiredis.ProtocolError as exc:
            log.warning("redis protocol error: %s", exc)
            if self.transport is not None:
                self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.on_lost(exc or RedisConnectionError("connection closed by the server"))


async def _open(url: str, on_reply: Callable[[Any], None], on_lost: Callable[[Exception], None]) -> _Link:
    """Connect to ``url`` (redis:// or unix://, with optional user/password and db)."""
    opts = parse_url(url)
    if url.startswith("rediss://"):
        raise ValueError("resp: TLS URLs are not supported on the hot path")
    loop = asyncio.get_running_loop()
    link: _Link | None = None

    def factory() -> _Link:
        nonlocal link
        link = _Link(on_reply, on_lost)
        return link

    try:
        if opts.get("path"):
            await asyncio.wait_for(loop.create_unix_connection(factory, opts["path"]), CONNECT_TIMEOUT)
        else:
            host, port = opts.get("host", "localhost"), int(opts.get("port", 6379))
            await asyncio.wait_for(loop.create_connection(factory, host, port), CONNECT_TIMEOUT)
    except (TimeoutError, OSError) as exc:
        raise RedisConnectionError(f"cannot connect to {url}: {exc}") from exc
    assert link is not None
    return link


def _setup_commands(url: str) -> list[tuple[Any, ...]]:
    opts = parse_url(url)
    commands: list[tuple[Any, ...]] = []
    if opts.get("password"):
        user = opts.get("username")
        commands.append(("AUTH", user, opts["password"]) if user else ("AUTH", opts["password"]))
    if int(opts.get("db") or 0):
        commands.append(("SELECT", int(opts["db"])))
    return commands


def _error(reply: hiredis.ReplyError) -> ResponseError:
    text = str(reply)
    return NoScriptError(text) if text.startswith("NOSCRIPT") else ResponseError(text)


class Pipe:
    """A shared, pipelined command connection. ``await pipe.call("HGET", key, field)``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._link: _Link | None = None
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._connecting: asyncio.Future[_Link] | None = None
        self._scripts: dict[str, str] = {}

    async def _connected(self) -> _Link:
        link = self._link
        if link is not None and not link.closed:
            return link
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        try:
            return await asyncio.shield(self._connecting)
        finally:
            if self._connecting is not None and self._connecting.done():
                self._connecting = None

    async def _connect(self) -> _Link:
        link = await _open(self.url, self._on_reply, self._on_lost)
        self._link = link
        for command in _setup_commands(self.url):
            await asyncio.wait_for(self._send(link, command), CONNECT_TIMEOUT)
        return link

    def _send(self, link: _Link, args: Iterable[Any]) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = link.loop.create_future()
        self._waiting.append(future)
        link.write(_pack(tuple(args)))
        return future

    def _on_reply(self, reply: Any) -> None:
        future = self._waiting.popleft()
        if future.done():
            return
        if isinstance(reply, hiredis.ReplyError):
            future.set_exception(_error(reply))
        else:
            future.set_result(reply)

    def _on_lost(self, exc: Exception) -> None:
        self._link = None
        waiting, self._waiting = self._waiting, deque()
        for future in waiting:
            if not future.done():
                future.set_exception(RedisConnectionError(f"lost the Redis connection: {exc}"))

    async def call(self, *args: Any) -> Any:
        link = self._link
        if link is None or link.closed:
            link = await self._connected()
        return await self._send(link, args)

    async def transaction(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """``MULTI``, the commands, ``EXEC``: written back to back on the shared connection, so nothing from
        other callers falls in between. Returns EXEC's replies."""
        link = self._link
        if link is None or link.closed:
            link = await self._connected()
        futures = [self._send(link, ("MULTI",))]
        futures += [self._send(link, command) for command in commands]
        futures.append(self._send(link, ("EXEC",)))
        replies: list[Any] = await asyncio.gather(*futures, return_exceptions=True)
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return list(replies[-1])

    def script(self, body: str) -> str:
        """Register a Lua script; returns its SHA1 for ``evalsha``."""
        sha = hashlib.sha1(body.encode()).hexdigest()
        self._scripts[sha] = body
        return sha

    async def evalsha(self, sha: str, keys: list[str], args: list[Any]) -> Any:
        """Run a registered script by its SHA; loads it (EVAL) the first time Redis does not know it."""
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self.call("EVAL", self._scripts[sha], len(keys), *keys, *args)

    async def aclose(self) -> None:
        link = self._link
        self._link = None
        if link is not None and link.transport is not None:
            link.flush()
            link.transport.close()


class Subscription:
    """One pub/sub connection. ``subscribe`` returns once Redis confirmed the subscription; every message
    goes to ``on_message(channel, data)`` in the order Redis sent it. On a lost connection it reconnects
    (backing off) and subscribes again to every channel it held."""

    RETRY_MAX = 2.0

    def __init__(self, url: str, on_message: Callable[[str, bytes], None]) -> None:
        self.url = url
        self.on_message = on_message
        self.channels: set[str] = set()
        """Channels wanted (confirmed or not)."""
        self.confirmed: set[str] = set()
        self._confirm: dict[str, list[asyncio.Future[None]]] = {}
        self._link: _Link | None = None
        self._task: asyncio.Task[None] | None = None
        self._lost: asyncio.Event | None = None
        self._up: asyncio.Event | None = None
        self._stopping = False

    async def start(self) -> None:
        self._lost = asyncio.Event()
        self._up = asyncio.Event()
        await self._connect()
        self._task = asyncio.create_task(self._keep(), name="golfrace-subscription")

    async def _connect(self) -> None:
        assert self._up is not None and self._lost is not None
        link = await _open(self.url, self._on_reply, self._on_lost)
        for command in _setup_commands(self.url):
            if command[0] == "AUTH":
                link.write(_pack(command))  # SELECT does not matter to pub/sub
        self._link = link
        self._lost.clear()
        if self.channels:
            link.write(_pack(("SUBSCRIBE", *sorted(self.channels))))
        self._up.set()

    async def _keep(self) -> None:
        assert self._lost is not None and self._up is not None
        backoff = 0.05
        while not self._stopping:
            await self._lost.wait()
            self._up.clear()
            while not self._stopping:
                try:
                    await self._connect()
                    backoff = 0.05
                    break
                except Exception as exc:
                    log.warning("pub/sub reconnect failed: %s", exc)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, self.RETRY_MAX)

    def _on_reply(self, reply: Any) -> None:
        if not isinstance(reply, list) or len(reply) < 3:
            return  # AUTH's +OK and the like
        kind = reply[0]
        if kind == b"message":
            self.on_message(reply[1].decode(), reply[2])
        elif kind == b"subscribe":
            name = reply[1].decode()
            if name in self.channels:
                self.confirmed.add(name)
            for future in self._confirm.pop(name, ()):
                if not future.done():
                    future.set_result(None)

    def _on_lost(self, exc: Exception) -> None:
        self._link = None
        self.confirmed.clear()
        if not self._stopping:
            log.warning("pub/sub connection lost: %s", exc)
        if self._lost is not None:
            self._lost.set()

    async def subscribe(self, channel: str, timeout: float) -> None:
        """Subscribe to ``channel`` and wait for Redis's confirmation (at once when it is confirmed)."""
        if channel in self.confirmed:
            return
        assert self._up is not None
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirm.setdefault(channel, []).append(future)
        try:
            if channel not in self.channels:
                self.channels.add(channel)
                await asyncio.wait_for(self._up.wait(), timeout)
                link = self._link
                if link is not None:  # else: the reconnect subscribes to every channel, confirming this one
                    link.write(_pack(("SUBSCRIBE", channel)))
            await asyncio.wait_for(future, timeout)
        except BaseException:
            waiting = self._confirm.get(channel)
            if waiting and future in waiting:
                waiting.remove(future)
            raise

    def unsubscribe(self, channel: str) -> None:
        if channel in self.channels:
            self.channels.discard(channel)
            self.confirmed.discard(channel)
            link = self._link
            if link is not None:
                link.write(_pack(("UNSUBSCRIBE", channel)))

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        link = self._link
        self._link = None
        if link is not None and link.transport is not None:
            link.transport.close()
