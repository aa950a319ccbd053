"""The hot path's batching: the commands issued during one event-loop iteration go to Redis in one write
(``Batcher``), with the batcher's own small redis-py client (``batch_client``). ``store.py`` and the race
storage send through it; on a Redis Cluster, ``redis_conn.ClusterBatcher`` keeps one per master."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError

from golfrace.seams import redis_wire
from golfrace.seams.redis_wire import AbstractConnection
from golfrace.settings import Settings

BATCH_RETRY = Retry(ExponentialBackoff(cap=0.2, base=0.02), 2)
"""A lost connection is retried twice, quickly; then the callers get ``ConnectionError`` (``unavailable``)."""

_Job = tuple[list[tuple[Any, ...]], "asyncio.Future[Any]"]


def batch_client(url: str, connections: int, timeout: float) -> aioredis.Redis:
    """The batcher's own redis-py client: a small pool of its own (``Settings.batch_connections``), short
    retries, no socket timeout (the batcher times each batch: ``Settings.batch_timeout_s``)."""
    return aioredis.Redis.from_url(
        url,
        max_connections=connections,
        retry=BATCH_RETRY,
        socket_timeout=None,
        socket_connect_timeout=timeout,
    )


def settings_batcher(settings: Settings) -> Batcher:
    """The batcher of ``settings``: its own client on ``settings.redis_url``."""
    connections, timeout = settings.batch_connections, settings.batch_timeout_s
    client = batch_client(settings.redis_url or "", connections, timeout)
    replicas = settings.redis_wait_replicas or 0  # a Redis Cluster's batcher: redis_conn.batcher
    return Batcher(client, connections, timeout, replicas, settings.redis_wait_timeout_ms)


class Batcher:
    """Commands issued during one event-loop iteration go to Redis in one write on one of the batcher's own
    redis-py connections (what a ``transaction=False`` pipeline sends, without the pipeline object and the
    pool checkout); each caller gets its own reply or error. At thousands of moves per second this saves a
    round trip per command; at low load, where most batches hold one command, the per-batch overhead.
    ``await batcher.call("ZREM", key, member)``."""

    def __init__(
        self,
        client: aioredis.Redis,
        connections: int,
        timeout: float,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 0,
    ) -> None:
        self.client = client
        self.connections = connections
        self.timeout = timeout
        """Seconds a batch may take (write and every reply) before its callers get a Redis timeout; one
        timeout scope per batch instead of redis-py's socket timeout (a task per write and a scope per
        reply)."""
        self.wait_replicas = wait_replicas
        """When > 0, every batch ends with ``WAIT wait_replicas wait_timeout_ms``: its writes are answered
        only once that many replicas have them; if fewer confirm in time, the callers of writes get
        ``NotReplicated`` (a ``ConnectionError``: ``unavailable``, the client resends the same seq)."""
        self.wait_timeout_ms = wait_timeout_ms
        self._queue: list[_Job] = []
        self._scheduled = False
        self._running: set[asyncio.Task[None]] = set()
        self._scripts: dict[str, str] = {}
        self._idle: list[AbstractConnection] = []
        """The batcher's connections not in use: made by the client's pool but held here (at most
        ``connections``, one per batch in flight), so a batch pays no pool checkout, readiness probe or
        pipeline object."""

    def _enqueue(self, commands: list[tuple[Any, ...]]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.append((commands, future))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return future

    def _flush(self) -> None:
        self._scheduled = False
        if self._queue and len(self._running) < self.connections:
            batch, self._queue = self._queue, []
            task = asyncio.get_running_loop().create_task(self._run(batch))
            self._running.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if self._queue and not self._scheduled:
            self._flush()

    async def _run(self, batch: list[_Job]) -> None:
        conn = self._idle.pop() if self._idle else redis_wire.connection(self.client)
        packed: list[Any] = []
        good: list[_Job] = []
        for job in batch:  # a command that cannot be encoded fails its own caller, not the whole batch
            try:
                packed += redis_wire.pack(conn, job[0])
            except Exception as exc:
                if not job[1].done():
                    job[1].set_exception(exc)
                continue
            good.append(job)
        batch = good
        commands = [args for commands, _future in batch for args in commands]
        if not commands:
            self._idle.append(conn)
            return
        if self.wait_replicas:
            wait = ("WAIT", self.wait_replicas, self.wait_timeout_ms)
            commands.append(wait)
            packed += redis_wire.pack(conn, [wait])
        try:
            replies = await redis_wire.with_retry(conn, lambda: self._exchange(conn, commands, packed))
        except BaseException as exc:
            # whatever was on the wire is unknown now: the next batch on this connection reconnects
            with contextlib.suppress(Exception):
                await redis_wire.drop(conn)
            for _commands, future in batch:
                if not future.done():
                    future.set_exception(_copy(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        finally:
            self._idle.append(conn)
        shortfall: NotReplicated | None = None
        if self.wait_replicas:
            acked = replies.pop()
            if not isinstance(acked, int) or acked < self.wait_replicas:
                shortfall = NotReplicated(
                    f"{acked} of {self.wait_replicas} replicas confirmed within {self.wait_timeout_ms} ms"
                )
        at = 0
        for commands, future in batch:
            mine = replies[at : at + len(commands)]
            at += len(commands)
            if future.done():
                continue
            error = next((r for r in mine if isinstance(r, Exception)), None)
            if error is not None:  # first: a MOVED from a former master is no replication shortfall
                future.set_exception(error)
            elif shortfall is not None and any(args[0] not in READ_ONLY for args in commands):
                future.set_exception(NotReplicated(*shortfall.args))
            else:
                future.set_result(mine[-1])

    async def _exchange(
        self, conn: AbstractConnection, commands: list[tuple[Any, ...]], packed: list[Any]
    ) -> list[Any]:
        """One write of the batch, then each reply (``redis_wire.exchange``), timed as a whole."""
        return await redis_wire.exchange(self.client, conn, commands, packed, self.timeout)

    async def call(self, *args: Any) -> Any:
        return await self._enqueue([args])

    async def transaction(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """``MULTI``, the commands, ``EXEC``, back to back in one batch; returns EXEC's replies."""
        return list(await self._enqueue([("MULTI",), *commands, ("EXEC",)]))

    def script(self, body: str) -> str:
        """Register a Lua script; returns its SHA1 for ``evalsha``."""
        sha = hashlib.sha1(body.encode()).hexdigest()
        self._scripts[sha] = body
        return sha

    async def evalsha(self, sha: str, keys: list[str], args: list[Any]) -> Any:
        """Run a registered script by its SHA; loads it the first time Redis does not know it."""
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            await self.call("SCRIPT", "LOAD", self._scripts[sha])
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)

    async def aclose(self) -> None:
        if self._running:
            await asyncio.wait(list(self._running), timeout=CLOSE_WAIT)
        # past the wait: ended here, none outlives its batcher (cancelled again while one runs on: a Redis
        # client's timeout may swallow a cancellation)
        while left := [task for task in self._running if not task.done()]:
            for task in left:
                task.cancel()
            await asyncio.wait(left, timeout=CLOSE_WAIT / 4)
        for conn in self._idle:
            with contextlib.suppress(Exception):
                await redis_wire.close(conn)
        await self.client.aclose()


CLOSE_WAIT = 2.0  # seconds aclose waits for batches in flight before it cancels them
READ_ONLY = frozenset(
    {"GET", "EXISTS", "HGET", "HMGET", "HGETALL", "LINDEX", "LRANGE", "ZRANGE", "ZREVRANGE", "PING"}
    | {"MULTI", "EXEC"}  # a transaction of reads only
)
"""Commands whose callers need no replica's confirmation (the batch's WAIT concerns the others)."""


class NotReplicated(RedisConnectionError):
    """A write reached its master but no replica confirmed it in time (``WAIT``): not acknowledged, since a
    failover could lose it. The caller answers ``unavailable``; a resent seq gets the stored answer."""


def _copy(exc: BaseException) -> BaseException:
    """One exception per waiting caller; anything but a Redis error becomes a ``ConnectionError``."""
    if isinstance(exc, RedisError):
        return type(exc)(*exc.args)
    return RedisConnectionError(f"Redis batch failed: {exc!r}")
