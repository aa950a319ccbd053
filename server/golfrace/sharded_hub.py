"""Fan-out on a Redis Cluster: sharded pub/sub (``SSUBSCRIBE``), one connection per master that owns a
channel we follow, so that a diff travels only inside its shard (a classic ``PUBLISH`` is copied to every
node over the cluster bus).

Why not redis-py's ``ClusterPubSub``: its asyncio version (8.x) keeps one ``PubSub`` per node too, but is read
by polling (``get_sharded_message(timeout)`` visits the nodes in turn), and a node's ``PubSub`` that
reconnects re-subscribes through redis-py's bookkeeping; we need one task per connection awaiting each reply
(no polling, a diff dispatched as soon as it is read) and to know which channels were away, to catch their
followers up. So this hub holds, per master, a plain redis-py ``PubSub`` read straight from its connection
(as ``hub.Hub`` does); a channel is subscribed on the master its hash slot maps to. When a connection fails
(a master killed, a failover) or Redis drops a channel (``sunsubscribe``: its slot moved), the channels of
that connection are marked lost; the slot map is reloaded and each is subscribed again where its slot lives
now (retried with backoff while the shard has no master), and once confirmed its local followers catch up
from the store (``Hub.resume``), as after a reconnect on a single Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from .hub import LISTEN_RETRY, SUBSCRIBE_TIMEOUT, Hub, Subscriber
from .protocol import pack
from .seams import redis_slots

log = logging.getLogger("golfrace.hub")
RECOVER_MAX = 0.5
"""Seconds between attempts, at most, to subscribe a lost channel again (a failover takes a second or two)."""


class _Link:
    """The pub/sub connection to one master, and the channels subscribed on it."""

    def __init__(self, host: str, port: int, cluster: RedisCluster) -> None:
        kwargs = cluster.get_connection_kwargs()
        self.where = (host, port)
        self.client = aioredis.Redis(
            host=host,
            port=port,
            username=kwargs.get("username"),
            password=kwargs.get("password"),
            max_connections=1,
            retry=LISTEN_RETRY,
            socket_connect_timeout=SUBSCRIBE_TIMEOUT,
        )
        self.pubsub = self.client.pubsub()
        self.channels: set[str] = set()
        self.task: asyncio.Task[None] | None = None
        self.dead = False
        self.lock = asyncio.Lock()
        """Serializes the link's commands: redis-py's ``PubSub`` makes its connection on the first command,
        and two first commands at once would each try to (its pool holds one)."""

    async def close(self) -> None:
        self.dead = True
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self.client.aclose()


class ShardedHub(Hub):
    """``hub.Hub``'s local side (subscribers, delivery, catch-up) over shard channels of a Redis Cluster."""

    def __init__(self, cluster: RedisCluster, origin: bytes = b"") -> None:
        host, port = cluster.get_primaries()[0].host, cluster.get_primaries()[0].port
        super().__init__(cluster, f"redis://{host}:{port}", origin)  # type: ignore[arg-type]
        self.cluster = cluster
        self._links: dict[tuple[str, int], _Link] = {}
        self._owner: dict[str, _Link] = {}
        """Channel → the link it was subscribed on (wanted channels only)."""
        self._leaving: dict[str, int] = {}
        """Channels we unsubscribed whose ``sunsubscribe`` confirmation has not come yet."""
        self._recovering: asyncio.Task[None] | None = None
        self._orphans: set[str] = set()
        """Wanted channels with no live subscription: subscribed again by ``_recover``."""

    async def start(self) -> None:
        """Nothing to connect yet: a master's connection is made by the first channel that lives there."""
        with contextlib.suppress(Exception):
            await self.listen_client.aclose()  # hub.Hub's single-connection client is not used here

    async def stop(self) -> None:
        if self._recovering is not None:
            self._recovering.cancel()
            with contextlib.suppress(BaseException):
                await self._recovering
        for link in list(self._links.values()):
            await link.close()
        self._links.clear()

    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        return int(await self.cluster.spublish(channel, pack(message)))

    # --- subscriptions ---
    async def unsubscribe(self, channel: str, subscriber: Subscriber) -> None:
        link = self._owner.get(channel)
        if self._remove(channel, subscriber):
            self._orphans.discard(channel)
            self._owner.pop(channel, None)
            if link is not None and not link.dead:
                link.channels.discard(channel)
                self._leaving[channel] = self._leaving.get(channel, 0) + 1
                await self._sunsubscribe(link, channel)

    async def _join(self, channel: str, timeout: float, start: bool = False) -> None:
        if channel in self.confirmed:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirm.setdefault(channel, []).append(future)
        try:
            if channel not in self.wanted:
                self.wanted.add(channel)
                try:
                    await asyncio.wait_for(self._send(channel), timeout)
                except BaseException:
                    self.wanted.discard(channel)
                    self._owner.pop(channel, None)
                    raise
            await asyncio.wait_for(future, timeout)
        except BaseException:
            waiting = self._confirm.get(channel)
            if waiting and future in waiting:
                waiting.remove(future)
            raise

    def _link_for(self, channel: str) -> _Link:
        where = redis_slots.master_of(self.cluster, channel)
        link = self._links.get(where)
        if link is None or link.dead:
            link = self._links[where] = _Link(where[0], where[1], self.cluster)
        return link

    async def _send(self, channel: str) -> None:
        """``SSUBSCRIBE`` on the master that owns ``channel`` now (its confirmation comes to the listener)."""
        await redis_slots.ready(self.cluster)
        link = self._link_for(channel)
        link.channels.add(channel)
        self._owner[channel] = link
        try:
            async with link.lock:
                await link.pubsub.ssubscribe(channel)
        except BaseException:
            link.channels.discard(channel)
            raise
        if link.task is None:  # the first subscription made the connection: now it can be read
            link.task = asyncio.create_task(self._listen_to(link), name=f"golfrace-hub-{link.where[1]}")

    # --- reading ---
    async def _listen_to(self, link: _Link) -> None:
        """Read one master's pub/sub connection until it fails; then its channels go elsewhere."""
        while True:
            conn = link.pubsub.connection
            try:
                if conn is None or not conn.is_connected:
                    raise ConnectionError("the pub/sub connection is closed")
                reply = await conn.read_response(
                    timeout=math.inf, disconnect_on_error=False, push_request=True
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("sharded pub/sub connection to %s:%d lost: %s", *link.where, exc)
                self._lose(link, set(link.channels))
                if self._links.get(link.where) is link:
                    del self._links[link.where]
                await link.close()
                return
            if not isinstance(reply, list) or len(reply) < 3:
                continue
            kind = reply[0]
            if kind == b"smessage":  # the hot case: a diff straight to _dispatch
                self._dispatch(reply[1].decode(), reply[2])
            elif kind == b"ssubscribe":
                self._confirmed(link, reply[1].decode())
            elif kind == b"sunsubscribe":
                await self._dropped(link, reply[1].decode())

    def _confirmed(self, link: _Link, name: str) -> None:
        if name in self.wanted and self._owner.get(name) is link:
            self.confirmed.add(name)
            if name in self._lost:  # subscribed again after a failover: catch up what was missed
                self._lost.discard(name)
                self.resume(name)
        elif name not in self.wanted and not self._confirm.get(name):
            # left meanwhile: confirmed too late
            self._leaving[name] = self._leaving.get(name, 0) + 1
            link.channels.discard(name)
            asyncio.get_running_loop().create_task(self._sunsubscribe(link, name))
        for future in self._confirm.pop(name, ()):
            if not future.done():
                future.set_result(None)

    @staticmethod
    async def _sunsubscribe(link: _Link, name: str) -> None:
        with contextlib.suppress(Exception):  # gone with the connection anyway
            async with link.lock:
                await link.pubsub.sunsubscribe(name)

    async def _dropped(self, link: _Link, name: str) -> None:
        if self._leaving.get(name):
            self._leaving[name] -= 1
            if not self._leaving[name]:
                del self._leaving[name]
            return
        if name in self.wanted and self._owner.get(name) is link:
            # Redis dropped it: its slot moved to another node (a migration, or this node became a replica)
            link.channels.discard(name)
            self._lose(link, {name})

    def _lose(self, link: _Link, channels: set[str]) -> None:
        for name in channels:
            if self._owner.get(name) is link:
                self._owner.pop(name, None)
                if name in self.confirmed:
                    self.confirmed.discard(name)
                    self._lost.add(name)
                if name in self.wanted:
                    self._orphans.add(name)
        if self._orphans and (self._recovering is None or self._recovering.done()):
            self._recovering = asyncio.get_running_loop().create_task(self._recover())

    async def _recover(self) -> None:
        """Subscribe every orphaned channel again where the cluster's slot map says it lives now, until all
        are."""
        backoff = 0.05
        while self._orphans:
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, RECOVER_MAX)
            try:
                await redis_slots.reload(self.cluster)
            except Exception as exc:
                log.warning("reloading the cluster's slot map failed: %r", exc)
                continue
            for name in sorted(self._orphans):
                if name not in self.wanted:
                    self._orphans.discard(name)
                    continue
                try:
                    await asyncio.wait_for(self._send(name), SUBSCRIBE_TIMEOUT)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    log.info("subscribing %s again failed: %r", name, exc)
                    link = self._owner.pop(name, None)
                    if link is not None:
                        link.channels.discard(name)
                    continue
                self._orphans.discard(name)
        primaries = redis_slots.masters(self.cluster)
        for where, link in list(self._links.items()):
            if where not in primaries and not link.channels:  # a master that is gone or a replica now
                del self._links[where]
                await link.close()
