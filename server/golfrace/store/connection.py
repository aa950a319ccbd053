"""Which Redis the server talks to, and the clients it builds for it: one seam for a single Redis and for a
Redis Cluster.

``REDIS_URL`` is any redis-py URL (``redis://``, ``rediss://``, ``unix://``) for one Redis, or
``redis+cluster://[user:password@]host:port[,host:port…]`` (``rediss+cluster://`` with TLS) for a Redis
Cluster (>= 7.0): the listed nodes are only where the client starts; it learns the rest from the cluster.

On a cluster:
- the general client is redis-py's asyncio ``RedisCluster`` (``ShardedCluster``: its ``publish`` is sharded);
- the hot path's batcher is a ``ClusterBatcher``: one ``batcher.Batcher`` per master, each command routed by
  its key's slot, re-routed after a ``MOVED`` or a failover, every batch ending with ``WAIT`` so that an
  answer is sent only once a replica holds the write (``redis_wait_replicas``);
- the hub's Redis side is ``sharded_hub.Sharded`` (``SSUBSCRIBE`` on the master that owns each channel).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import AskError, ClusterDownError, MovedError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from golfrace.engine.errors import GolfError
from golfrace.seams import redis_slots
from golfrace.settings import Settings
from golfrace.store.batcher import BATCH_RETRY, Batcher, settings_batcher

log = logging.getLogger("golfrace.redis")
CLUSTER_SCHEMES = {"redis+cluster": False, "rediss+cluster": True}
"""URL scheme → TLS."""
CONNECT_TIMEOUT = 2.0
"""Seconds to open a connection to a cluster node: a dead master must not hold a request for long."""
COMMAND_TIMEOUT = 5.0
"""Seconds a command of the general cluster client may take."""
REFRESH_EVERY = 0.1
"""Seconds between two reloads of the cluster's slot map (each error asks for one; they are coalesced)."""
PIPELINE_ROOM = 4
"""A node's connections: this many times ``redis_connections`` (queued commands take at most one share;
the rest is for pipelines and ``WATCH`` transactions, which redis-py's cluster runs outside
``execute_command``)."""
REDIRECTS = 3
"""A command sent to a node that no longer owns its slot (``MOVED``) is re-routed at most this often."""


class RedisUrlError(GolfError):
    """``REDIS_URL`` cannot be understood."""

    code = "bad_redis_url"


@dataclass(frozen=True, slots=True)
class ClusterUrl:
    nodes: tuple[tuple[str, int], ...]
    username: str | None = None
    password: str | None = None
    tls: bool = False

    @classmethod
    def parse(cls, url: str) -> ClusterUrl:
        scheme, sep, rest = url.partition("://")
        if not sep or scheme not in CLUSTER_SCHEMES:
            raise RedisUrlError(f"a cluster URL starts with redis+cluster://, got {url[:40]!r}")
        auth, at, hosts = rest.rpartition("@")
        hosts = hosts.split("/", 1)[0].split("?", 1)[0]
        username = password = None
        if at:
            user, colon, secret = auth.partition(":")
            username, password = (unquote(user) or None), (unquote(secret) if colon else None)
        nodes = []
        for part in hosts.split(","):
            try:
                parsed = urlsplit(f"//{part.strip()}")
                host, port = parsed.hostname, parsed.port
            except ValueError:
                host = port = None
            if not host or not port:
                raise RedisUrlError(f"each cluster node reads host:port, got {part!r} in {scheme}://…")
            nodes.append((host, port))
        return cls(tuple(nodes), username, password, CLUSTER_SCHEMES[scheme])


def is_cluster(url: str | None) -> bool:
    return bool(url) and str(url).partition("://")[0] in CLUSTER_SCHEMES


def check_url(url: str | None) -> None:
    """Raise ``RedisUrlError`` for a cluster URL that cannot be parsed (redis-py checks the others)."""
    if is_cluster(url):
        ClusterUrl.parse(str(url))


# --- the general client ---------------------------------------------------------------------------------
class ShardedCluster(RedisCluster):
    """redis-py's asyncio ``RedisCluster`` whose ``publish`` is ``SPUBLISH``: on a cluster every channel of
    ours is a shard channel (a classic ``PUBLISH`` would be broadcast to every node, and the hub listens with
    ``SSUBSCRIBE`` only). ``ping`` answers when any master does (``/healthz`` asks whether this instance
    reaches the cluster; one shard in a failover must not take every instance out of the load balancer)."""

    def __init__(self, *args: Any, queue: int = 64, queue_wait_s: float = 5.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queue = asyncio.Semaphore(queue)
        self._queue_wait_s = queue_wait_s

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """redis-py's, behind a queue: its asyncio cluster raises ``MaxConnectionsError`` at once when a
        node's connections are all busy (a burst of requests), where a single Redis's pool waits; here at most
        ``queue`` commands run at once and the others wait up to ``queue_wait_s`` seconds."""
        try:
            async with asyncio.timeout(self._queue_wait_s):
                await self._queue.acquire()
        except TimeoutError:
            raise RedisConnectionError(f"no free Redis connection within {self._queue_wait_s} s") from None
        try:
            return await super().execute_command(*args, **kwargs)
        finally:
            self._queue.release()

    async def publish(self, channel: Any, message: Any, **kwargs: Any) -> int:
        return int(await self.spublish(channel, message))

    async def ping(self, **kwargs: Any) -> bool:
        await redis_slots.ready(self)
        last: Exception | None = None
        for node in random.sample(self.get_primaries(), len(self.get_primaries())):
            try:
                return bool(await self.execute_command("PING", target_nodes=node))
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                last = exc
        raise RedisConnectionError(f"no master of the cluster answers: {last!r}")


def cluster_client(url: str, max_connections: int, wait_s: float = 5.0) -> ShardedCluster:
    """At most ``max_connections`` commands at once (``wait_s`` to get a turn); per node room for as many
    plus the pipelines and transactions (which take a node's connection without the queue)."""
    parsed = ClusterUrl.parse(url)
    return ShardedCluster(
        queue=max_connections,
        queue_wait_s=wait_s,
        startup_nodes=[ClusterNode(host, port) for host, port in parsed.nodes],
        username=parsed.username,
        password=parsed.password,
        ssl=parsed.tls,
        max_connections=max_connections * PIPELINE_ROOM,
        socket_connect_timeout=CONNECT_TIMEOUT,
        socket_timeout=COMMAND_TIMEOUT,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
        decode_responses=False,
    )


async def general_client(settings: Settings) -> aioredis.Redis | ShardedCluster:
    """The pooled client for the less frequent requests (loads, races, boards), connected (it pings)."""
    url = settings.redis_url or ""
    if is_cluster(url):
        client = cluster_client(url, settings.redis_connections, settings.redis_pool_wait_s)
        await client.initialize()
        await client.ping()
        return client
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=settings.redis_connections, timeout=settings.redis_pool_wait_s
    )
    single = aioredis.Redis.from_pool(pool)  # owns the pool: aclose() closes it
    await single.ping()
    return single


def wait_replicas(settings: Settings) -> int:
    """Replicas that must confirm a write before its answer: the setting, else 1 on a cluster, 0 alone."""
    if settings.redis_wait_replicas is not None:
        return int(settings.redis_wait_replicas)
    return 1 if is_cluster(settings.redis_url) else 0


def batcher(client: aioredis.Redis | ShardedCluster, settings: Settings) -> Batcher | ClusterBatcher:
    """The store's hot-path batcher for ``client`` (what ``general_client`` built)."""
    if isinstance(client, RedisCluster):
        return ClusterBatcher(client, ClusterUrl.parse(settings.redis_url or ""), settings)
    return settings_batcher(settings)


def hub(client: aioredis.Redis | ShardedCluster, settings: Settings, origin: bytes) -> Any:
    """The process's pub/sub hub: classic channels on one Redis, shard channels on a cluster."""
    if isinstance(client, RedisCluster):
        from golfrace.store.sharded_pubsub import sharded_hub

        return sharded_hub(client, origin)
    from golfrace.store.pubsub import classic_hub

    return classic_hub(client, settings.redis_url or "", origin)


# --- the cluster batcher --------------------------------------------------------------------------------
def node_client(host: str, port: int, auth: ClusterUrl, settings: Settings) -> aioredis.Redis:
    """A plain client of one cluster node for a batcher: ``batch_connections`` connections, short retries,
    no socket timeout (the batcher times each batch); credentials and TLS from the cluster URL."""
    return aioredis.Redis(
        host=host,
        port=port,
        username=auth.username,
        password=auth.password,
        ssl=auth.tls,
        max_connections=settings.batch_connections,
        retry=BATCH_RETRY,
        socket_timeout=None,
        socket_connect_timeout=min(settings.batch_timeout_s, CONNECT_TIMEOUT),
        decode_responses=False,
    )


REROUTE = (MovedError, AskError, TryAgainError, ClusterDownError)
"""Replies that mean "not here (any more)": the slot map is reloaded and the command sent again."""


class ClusterBatcher:
    """The store's ``Batcher`` interface on a Redis Cluster: one ``Batcher`` per master (the commands of one
    event-loop iteration for that master in one write), each call routed by its first key's hash slot. Every
    call's commands touch one slot (the store's keys carry hash tags), so a ``MULTI`` or a script runs on
    one node. ``MOVED`` (a slot moved, a replica promoted) reloads the slot map and sends the call again; a
    lost connection (a dead master) reloads it in the background and reaches the caller as
    ``ConnectionError`` (``unavailable``: the client resends the same seq, which the new master answers)."""

    def __init__(self, cluster: RedisCluster, auth: ClusterUrl, settings: Settings) -> None:
        self.cluster = cluster
        self.auth = auth
        self.settings = settings
        self.wait_replicas = wait_replicas(settings)
        """Replicas that confirm every batch's writes (``Batcher.wait_replicas``)."""
        self._batchers: dict[tuple[str, int], Batcher] = {}
        self._scripts: dict[str, str] = {}
        self._refreshing: asyncio.Task[None] | None = None
        self._refreshed_at = 0.0

    def _for_key(self, key: str) -> Batcher:
        where = redis_slots.master_of(self.cluster, key)
        found = self._batchers.get(where)
        if found is None:
            settings = self.settings
            found = Batcher(
                node_client(where[0], where[1], self.auth, settings),
                settings.batch_connections,
                settings.batch_timeout_s,
                self.wait_replicas,
                settings.redis_wait_timeout_ms,
            )
            for body in self._scripts.values():
                found.script(body)
            self._batchers[where] = found
        return found

    async def _routed(self, key: Any, run: Callable[[Batcher], Awaitable[Any]]) -> Any:
        await redis_slots.ready(self.cluster)
        name = key.decode() if isinstance(key, bytes) else str(key)
        for attempt in range(REDIRECTS + 1):
            target = self._for_key(name)
            try:
                return await run(target)
            except REROUTE:
                if attempt == REDIRECTS:
                    raise
                await self.refresh(wait=True)
            except (RedisConnectionError, RedisTimeoutError, OSError):
                self.refresh_later()
                raise
        raise AssertionError("unreachable")

    async def refresh(self, wait: bool = False) -> None:
        """Reload the slot map (at most one reload at a time, and not more often than ``REFRESH_EVERY``)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.get_running_loop().create_task(self._reload())
        if wait:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._refreshing)

    def refresh_later(self) -> None:
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.get_running_loop().create_task(self._reload())

    async def _reload(self) -> None:
        pause = self._refreshed_at + REFRESH_EVERY - time.monotonic()
        if pause > 0:
            await asyncio.sleep(pause)
        try:
            await redis_slots.reload(self.cluster)
        except Exception as exc:
            log.warning("reloading the cluster's slot map failed: %r", exc)
        finally:
            self._refreshed_at = time.monotonic()
        live = redis_slots.masters(self.cluster)
        for where in [w for w in self._batchers if w not in live]:  # a master that is gone or a replica now
            old = self._batchers.pop(where)
            with contextlib.suppress(
                Exception
            ):  # here, in this reload (awaited by ``aclose``): none left over
                await old.aclose()

    # --- the Batcher interface (store.py) ---
    async def call(self, *args: Any) -> Any:
        return await self._routed(args[1], lambda b: b.call(*args))

    async def transaction(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        key = next(args[1] for args in commands if len(args) > 1)
        return list(await self._routed(key, lambda b: b.transaction(commands)))

    def script(self, body: str) -> str:
        sha = hashlib.sha1(body.encode()).hexdigest()
        self._scripts[sha] = body
        for found in self._batchers.values():
            found.script(body)
        return sha

    async def evalsha(self, sha: str, keys: list[str], args: list[Any]) -> Any:
        return await self._routed(keys[0], lambda b: b.evalsha(sha, keys, args))

    async def aclose(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(BaseException):
                await self._refreshing
        for found in list(self._batchers.values()):
            with contextlib.suppress(Exception):
                await found.aclose()
        self._batchers.clear()
