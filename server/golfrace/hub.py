"""Fan-out: one Redis pub/sub connection per server instance, shared by every local subscriber.

A subscriber (a websocket session, or anything with ``deliver``) subscribes to channels; each published
payload (a msgpack map) is decoded once and handed to every local subscriber of its channel, in the order
Redis delivered it. ``deliver`` must not block: sessions only queue frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .protocol import pack, to_json, unpack

log = logging.getLogger("golfrace.hub")
HUB_CHANNEL = "golfrace:hub"
SUBSCRIBE_TIMEOUT = 5.0


class Envelope:
    """A published message: the raw msgpack bytes (forwarded as-is to msgpack clients), the decoded map, and
    its JSON text made at most once for all JSON clients."""

    __slots__ = ("_json", "channel", "message", "raw")

    def __init__(self, channel: str, raw: bytes, message: dict[str, Any]) -> None:
        self.channel = channel
        self.raw = raw
        self.message = message
        self._json: str | None = None

    @property
    def json(self) -> str:
        if self._json is None:
            self._json = to_json(self.message)
        return self._json

    @classmethod
    def of(cls, channel: str, message: dict[str, Any]) -> Envelope:
        return cls(channel, pack(message), message)


class Subscriber(Protocol):
    def deliver(self, envelope: Envelope) -> None: ...


class Hub:
    def __init__(self, redis: aioredis.Redis, on_error: Callable[[str], None] | None = None) -> None:
        self.redis = redis
        self.pubsub: Any = redis.pubsub()
        self.subscribers: dict[str, set[Subscriber]] = {}
        self._ready: dict[str, asyncio.Future[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._on_error = on_error

    async def start(self) -> None:
        await self.pubsub.subscribe(HUB_CHANNEL)
        self._task = asyncio.create_task(self._read(), name="golfrace-hub")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    async def subscribe(self, channel: str, subscriber: Subscriber) -> None:
        """Add ``subscriber``; returns once Redis confirmed the channel subscription, so that a state read
        after this call cannot miss a message published after it."""
        subs = self.subscribers.setdefault(channel, set())
        subs.add(subscriber)
        ready = self._ready.get(channel)
        if ready is None:
            ready = asyncio.get_running_loop().create_future()
            self._ready[channel] = ready
            await self.pubsub.subscribe(channel)
        await asyncio.wait_for(asyncio.shield(ready), SUBSCRIBE_TIMEOUT)

    async def unsubscribe(self, channel: str, subscriber: Subscriber) -> None:
        subs = self.subscribers.get(channel)
        if not subs:
            return
        subs.discard(subscriber)
        if not subs:
            del self.subscribers[channel]
            self._ready.pop(channel, None)
            with contextlib.suppress(RedisError, OSError):
                await self.pubsub.unsubscribe(channel)

    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        """Publish a message map to every instance's subscribers of ``channel``."""
        return int(await self.redis.publish(channel, pack(message)))

    def deliver_local(self, channel: str, message: dict[str, Any]) -> None:
        """Hand a message this process just published to its local subscribers now, without waiting for
        the pub/sub echo (subscribers drop the echo: diffs carry versions)."""
        if self.subscribers.get(channel):
            self._deliver(Envelope.of(channel, message))

    async def _read(self) -> None:
        backoff = 0.05
        while True:
            try:
                item = await self.pubsub.get_message(timeout=1.0)
                backoff = 0.05
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # connection lost: redis-py reconnects and resubscribes on next read
                log.warning("pub/sub read failed: %s", exc)
                if self._on_error:
                    self._on_error("pubsub")
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            if item is None:
                continue
            kind = item["type"]
            name = item["channel"].decode() if isinstance(item["channel"], bytes) else str(item["channel"])
            if kind == "subscribe":
                ready = self._ready.get(name)
                if ready is not None and not ready.done():
                    ready.set_result(None)
            elif kind == "message":
                self._dispatch(name, item["data"])

    def _dispatch(self, channel: str, raw: bytes) -> None:
        subs = self.subscribers.get(channel)
        if not subs:
            return
        try:
            message = unpack(raw)
        except Exception:
            log.warning("undecodable payload on %s", channel)
            return
        if not isinstance(message, dict):
            return
        self._deliver(Envelope(channel, raw, message))

    def _deliver(self, envelope: Envelope) -> None:
        for sub in list(self.subscribers.get(envelope.channel, ())):
            try:
                sub.deliver(envelope)
            except Exception:
                log.exception("subscriber failed on %s", envelope.channel)
