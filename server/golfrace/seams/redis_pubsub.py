"""redis-py's asyncio ``PubSub`` read one reply at a time, as the hub reads it: one long-lived task per
connection awaiting each reply (no polling), a published message handed on as (channel, payload) without the
message dict, the retry wrapper and the observability call that ``get_message`` spends on each.

A ``PubSubLink`` is one pub/sub connection on a client of its own (one connection in its pool). ``read``
takes the next reply straight from the ``PubSub``'s connection (``read_response``, the read that
``get_message(timeout=None)`` makes) while it is connected; otherwise, on a link that ``reconnects``, through
``PubSub.parse_response(block=True)``, which connects again and subscribes again to every channel redis-py
holds (its ``on_connect``). Confirmations go through ``PubSub.handle_message``, which keeps redis-py's channel
bookkeeping. The same link speaks ``SUBSCRIBE`` (classic channels) or ``SSUBSCRIBE`` (shard channels of a
Redis Cluster, one link per master).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import SSLConnection
from redis.asyncio.retry import Retry
from redis.exceptions import ConnectionError as RedisConnectionError

MESSAGE = "message"
"""A message published on a channel: ``(MESSAGE, channel, payload bytes)``."""
SUBSCRIBED = "subscribe"
"""Redis confirmed a subscription: ``(SUBSCRIBED, channel, None)``."""
UNSUBSCRIBED = "unsubscribe"
"""Redis confirmed or made an unsubscription (on a cluster also when a channel's slot moved away)."""

Reply = tuple[str, str, Any]

_CONFIRMATIONS = {
    "subscribe": SUBSCRIBED,
    "ssubscribe": SUBSCRIBED,
    "unsubscribe": UNSUBSCRIBED,
    "sunsubscribe": UNSUBSCRIBED,
}
"""``handle_message``'s message types → ours (patterns are not used)."""


class PubSubLink:
    """One pub/sub connection: ``subscribe``/``unsubscribe`` channels, ``read`` each reply."""

    def __init__(self, client: aioredis.Redis, sharded: bool, reconnects: bool) -> None:
        self.client = client
        self.pubsub = client.pubsub()
        self.sharded = sharded
        self.reconnects = reconnects
        """On a lost connection: the next ``read`` connects again and subscribes again (True), or raises
        until the link is closed (False: a cluster's channels may live elsewhere now)."""
        self._published = b"smessage" if sharded else b"message"
        self._lock = asyncio.Lock()
        """Serializes the link's commands: ``PubSub`` makes its connection on the first command, and two first
        commands at once would each try to (its pool holds one)."""

    @classmethod
    def to_url(cls, url: str, retry: Retry) -> PubSubLink:
        """Classic channels on the single Redis at ``url``; reconnects under ``retry``."""
        return cls(aioredis.Redis.from_url(url, max_connections=1, retry=retry), False, True)

    @classmethod
    def to_node(
        cls, cluster: RedisCluster, host: str, port: int, retry: Retry, connect_timeout: float
    ) -> PubSubLink:
        """Shard channels on one node of ``cluster`` (its credentials, and TLS with its settings when it uses
        TLS); does not reconnect."""
        kwargs = cluster.get_connection_kwargs()
        tls: dict[str, Any] = {}
        if kwargs.get("connection_class") is SSLConnection:
            tls = {name: value for name, value in kwargs.items() if name.startswith("ssl_")}
            tls["ssl"] = True
        client = aioredis.Redis(
            host=host,
            port=port,
            username=kwargs.get("username"),
            password=kwargs.get("password"),
            max_connections=1,
            retry=retry,
            socket_connect_timeout=connect_timeout,
            **tls,
        )
        return cls(client, True, False)

    async def subscribe(self, channel: str) -> None:
        """Send ``SUBSCRIBE`` (``SSUBSCRIBE``); its confirmation comes to ``read``. Connects on first use."""
        async with self._lock:
            await (self.pubsub.ssubscribe if self.sharded else self.pubsub.subscribe)(channel)

    async def unsubscribe(self, channel: str) -> None:
        async with self._lock:
            await (self.pubsub.sunsubscribe if self.sharded else self.pubsub.unsubscribe)(channel)

    async def read(self) -> Reply | None:
        """The next reply: ``(MESSAGE, channel, payload)``, ``(SUBSCRIBED | UNSUBSCRIBED, channel, None)``, or
        None for any other reply. Raises (a redis-py ``ConnectionError``, ``OSError``…) when the connection is
        lost; the caller then ``drop``s it. Call it from one task only."""
        pubsub = self.pubsub
        conn = pubsub.connection
        if conn is not None and conn.is_connected and not conn.health_check_interval:
            # no retry wrapper and its timing per reply: an error reaches the caller, who drops the connection
            reply = await conn.read_response(timeout=math.inf, disconnect_on_error=False, push_request=True)
        elif self.reconnects:
            reply = await self.read_reconnecting()
        else:
            raise RedisConnectionError("the pub/sub connection is closed")
        if isinstance(reply, list) and len(reply) == 3 and reply[0] == self._published:
            return MESSAGE, reply[1].decode(), reply[2]
        message = await pubsub.handle_message(reply)  # type: ignore[no-untyped-call]
        if message is None:
            return None
        kind = _CONFIRMATIONS.get(message["type"])
        if kind is None:
            return None
        name = message["channel"]
        return kind, name.decode() if isinstance(name, bytes) else str(name), None

    async def read_reconnecting(self) -> Any:
        """The next reply through redis-py's ``PubSub``: connects again first (and subscribes again to every
        channel it holds) when the connection was lost, under the client's retry."""
        return await self.pubsub.parse_response(block=True)

    async def drop(self) -> None:
        """Disconnect at once, without waiting for the socket (a reconnecting link connects on its next
        ``read``)."""
        conn = self.pubsub.connection
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.disconnect(nowait=True)

    def channels(self) -> set[str]:
        """The channels redis-py holds for this link (subscribed again on a reconnect)."""
        held = [*self.pubsub.channels, *self.pubsub.shard_channels]
        return {name.decode() if isinstance(name, bytes) else str(name) for name in held}

    def local_address(self) -> str | None:
        """``host:port`` of the connection's own end, as Redis's ``CLIENT LIST`` shows it (``addr``); None
        while not connected."""
        conn = self.pubsub.connection
        writer = getattr(conn, "_writer", None) if conn is not None and conn.is_connected else None
        if writer is None:
            return None
        host, port = writer.get_extra_info("sockname")[:2]
        return f"{host}:{port}"

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self.client.aclose()
