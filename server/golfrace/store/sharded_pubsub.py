"""The hub's Redis side on a Redis Cluster: sharded pub/sub (``SSUBSCRIBE``), one connection per master that
owns a channel we follow, so that a diff travels only inside its shard (a classic ``PUBLISH`` is copied to
every node over the cluster bus).

Why not redis-py's ``ClusterPubSub``: its asyncio version (8.x) keeps one ``PubSub`` per node too, but is read
by polling (``get_sharded_message(timeout)`` visits the nodes in turn), and a node's ``PubSub`` that
reconnects re-subscribes through redis-py's bookkeeping; we need one task per connection awaiting each reply
(no polling, a diff dispatched as soon as it is read) and to know which channels were away, to catch their
followers up. So this side holds, per master, a ``seams.redis_pubsub.PubSubLink`` (as ``hub.Classic`` does on
one Redis) that does not reconnect; a channel is subscribed on the master its hash slot maps to. When a
connection fails (a master killed, a failover) or Redis drops a channel (``sunsubscribe``: its slot moved),
the channels of that connection are lost (``Hub._lose``); the slot map is reloaded and each is subscribed
again where its slot lives now (retried with backoff while the shard has no master), and once confirmed its
local followers catch up from the store (``Hub.resume``), as after a reconnect on a single Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from redis.asyncio.cluster import RedisCluster

from golfrace.seams import redis_slots
from golfrace.seams.redis_pubsub import MESSAGE, SUBSCRIBED, UNSUBSCRIBED, PubSubLink
from golfrace.store.pubsub import LISTEN_RETRY, SUBSCRIBE_TIMEOUT, Hub

log = logging.getLogger("golfrace.store.pubsub")
RECOVER_MAX = 0.5
"""Seconds between attempts, at most, to subscribe a lost channel again (a failover takes a second or two)."""


class _Shard:
    """The pub/sub connection to one master, and the channels subscribed on it."""

    def __init__(self, host: str, port: int, cluster: RedisCluster) -> None:
        self.where = (host, port)
        self.pubsub = PubSubLink.to_node(cluster, host, port, LISTEN_RETRY, SUBSCRIBE_TIMEOUT)
        self.channels: set[str] = set()
        self.task: asyncio.Task[None] | None = None
        self.dead = False

    async def close(self) -> None:
        self.dead = True
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        await self.pubsub.aclose()


class Sharded:
    """``hub.Hub``'s Redis side on shard channels of a Redis Cluster."""

    standing: tuple[str, ...] = ()
    """Nothing at start: a master's connection is made by the first channel that lives there."""

    def __init__(self, cluster: RedisCluster) -> None:
        self.cluster = cluster
        self.hub: Hub
        self._links: dict[tuple[str, int], _Shard] = {}
        self._owner: dict[str, _Shard] = {}
        """Channel → the connection it was subscribed on (wanted channels only)."""
        self._leaving: dict[str, int] = {}
        """Channels we unsubscribed whose ``sunsubscribe`` confirmation has not come yet."""
        self._recovering: asyncio.Task[None] | None = None
        self._orphans: set[str] = set()
        """Wanted channels with no live subscription: subscribed again by ``_recover``."""
        self._leaves: set[asyncio.Task[None]] = set()
        """``SUNSUBSCRIBE``s sent from the reader (held: the event loop keeps only weak references)."""

    def attach(self, hub: Hub) -> None:
        self.hub = hub

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        if self._recovering is not None:
            self._recovering.cancel()
            with contextlib.suppress(BaseException):
                await self._recovering
        while leaves := [task for task in self._leaves if not task.done()]:  # cancelled again if one runs on
            for task in leaves:
                task.cancel()
            await asyncio.wait(leaves, timeout=0.5)
        for link in list(self._links.values()):
            await link.close()
        self._links.clear()

    async def publish(self, channel: str, raw: bytes) -> int:
        return int(await self.cluster.spublish(channel, raw))

    # --- subscriptions ---
    async def subscribe(self, channel: str) -> None:
        try:
            await self._send(channel)
        except BaseException:
            self._owner.pop(channel, None)
            raise

    async def unsubscribe(self, channel: str) -> None:
        self._orphans.discard(channel)
        link = self._owner.pop(channel, None)
        if link is not None and not link.dead:
            link.channels.discard(channel)
            self._leaving[channel] = self._leaving.get(channel, 0) + 1
            await self._sunsubscribe(link, channel)

    def _link_for(self, channel: str) -> _Shard:
        where = redis_slots.master_of(self.cluster, channel)
        link = self._links.get(where)
        if link is None or link.dead:
            link = self._links[where] = _Shard(where[0], where[1], self.cluster)
        return link

    async def _send(self, channel: str) -> None:
        """``SSUBSCRIBE`` on the master that owns ``channel`` now (its confirmation comes to the listener)."""
        await redis_slots.ready(self.cluster)
        link = self._link_for(channel)
        link.channels.add(channel)
        self._owner[channel] = link
        try:
            await link.pubsub.subscribe(channel)
        except BaseException:
            link.channels.discard(channel)
            raise
        if link.task is None:  # the first subscription made the connection: now it can be read
            link.task = asyncio.create_task(self._listen_to(link), name=f"golfrace-hub-{link.where[1]}")

    # --- reading ---
    async def _listen_to(self, link: _Shard) -> None:
        """Read one master's pub/sub connection until it fails; then its channels go elsewhere."""
        hub = self.hub
        while True:
            try:
                reply = await link.pubsub.read()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("sharded pub/sub connection to %s:%d lost: %s", *link.where, exc)
                self._lose(link, set(link.channels))
                if self._links.get(link.where) is link:
                    del self._links[link.where]
                await link.close()
                return
            if reply is None:
                continue
            kind, name, payload = reply
            if kind == MESSAGE:  # the hot case: a diff straight to the hub
                hub._dispatch(name, payload)
            elif kind == SUBSCRIBED:
                if hub._confirmed(name, current=self._owner.get(name) is link):  # left meanwhile
                    self._leaving[name] = self._leaving.get(name, 0) + 1
                    link.channels.discard(name)
                    leave = asyncio.get_running_loop().create_task(self._sunsubscribe(link, name))
                    self._leaves.add(leave)
                    leave.add_done_callback(self._leaves.discard)
            elif kind == UNSUBSCRIBED:
                self._dropped(link, name)

    @staticmethod
    async def _sunsubscribe(link: _Shard, name: str) -> None:
        with contextlib.suppress(Exception):  # gone with the connection anyway
            await link.pubsub.unsubscribe(name)

    def _dropped(self, link: _Shard, name: str) -> None:
        if self._leaving.get(name):
            self._leaving[name] -= 1
            if not self._leaving[name]:
                del self._leaving[name]
            return
        if name in self.hub.wanted and self._owner.get(name) is link:
            # Redis dropped it: its slot moved to another node (a migration, or this node became a replica)
            link.channels.discard(name)
            self._lose(link, {name})

    def _lose(self, link: _Shard, channels: set[str]) -> None:
        owned = {name for name in channels if self._owner.get(name) is link}
        for name in owned:
            del self._owner[name]
        self.hub._lose(owned)
        self._orphans |= owned & self.hub.wanted
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
                if name not in self.hub.wanted:
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


def sharded_hub(cluster: RedisCluster, origin: bytes = b"") -> Hub:
    """The hub of a Redis Cluster (``cluster``: the client it publishes with and routes by)."""
    return Hub(Sharded(cluster), origin)
