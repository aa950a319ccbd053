"""Fan-out: one Redis pub/sub connection per server instance, shared by every local subscriber.

A subscriber (a websocket session, or anything with ``deliver``) subscribes to channels; each published
payload (a msgpack map) is decoded once and handed to every local subscriber of its channel, in the order
Redis delivered it. ``deliver`` must not block: sessions only queue frames.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Protocol

import redis.asyncio as aioredis

from .protocol import pack, to_json, unpack
from .resp import Subscription
from .store import ORIGIN_LEN, ORIGIN_MARK

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
    def __init__(self, redis: aioredis.Redis, url: str, origin: bytes = b"") -> None:
        self.redis = redis  # publishing
        self.origin = origin
        """The prefix this process's commits put on what they publish (``Store.origin``)."""
        self.subscription = Subscription(url, self._dispatch)  # one pub/sub connection per process
        self.subscribers: dict[str, set[Subscriber]] = {}

    async def start(self) -> None:
        await self.subscription.start()
        await self.subscription.subscribe(HUB_CHANNEL, SUBSCRIBE_TIMEOUT)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.subscription.stop()

    async def subscribe(self, channel: str, subscriber: Subscriber) -> None:
        """Add ``subscriber``; returns once Redis confirmed the channel subscription, so that a state read
        after this call cannot miss a message published after it."""
        subs = self.subscribers.setdefault(channel, set())
        subs.add(subscriber)
        await self.subscription.subscribe(channel, SUBSCRIBE_TIMEOUT)

    async def unsubscribe(self, channel: str, subscriber: Subscriber) -> None:
        subs = self.subscribers.get(channel)
        if not subs:
            return
        subs.discard(subscriber)
        if not subs:
            del self.subscribers[channel]
            self.subscription.unsubscribe(channel)

    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        """Publish a message map to every instance's subscribers of ``channel``."""
        return int(await self.redis.publish(channel, pack(message)))

    def deliver_local(self, channel: str, message: dict[str, Any], raw: bytes = b"") -> None:
        """Hand a message this process just published to its local subscribers now, without waiting for
        the pub/sub echo (which ``_dispatch`` skips by its origin prefix). ``raw``: the message packed."""
        if self.subscribers.get(channel):
            self._deliver(Envelope(channel, raw, message) if raw else Envelope.of(channel, message))

    def _dispatch(self, channel: str, raw: bytes) -> None:
        subs = self.subscribers.get(channel)
        if not subs:
            return
        if raw[:1] == ORIGIN_MARK:  # a diff from a commit: ours was delivered locally already
            if raw[:ORIGIN_LEN] == self.origin:
                return
            raw = raw[ORIGIN_LEN:]
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
