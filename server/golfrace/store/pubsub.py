"""The pub/sub hub: each server instance's pub/sub connections to Redis, fanned out to every local subscriber.

A subscriber (a websocket session, or anything with ``deliver``) subscribes to channels; each published
payload (a msgpack map) is decoded once and handed to every local subscriber of its channel, in the order
Redis delivered it. ``deliver`` must not block: sessions only queue frames.

``Hub`` keeps that local side and the bookkeeping of subscriptions (which channels are wanted, which Redis
confirmed, who waits for a confirmation, which were lost and must be caught up) over a Redis side
(``PubSubSide``): ``Classic`` here, ``SUBSCRIBE`` on one connection of a single Redis;
``sharded_hub.Sharded``, ``SSUBSCRIBE`` on one connection per master of a Redis Cluster. Each side reads its
connections through ``seams/redis_pubsub.py`` (redis-py's ``PubSub`` read reply by reply, one task per
connection, no polling).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from golfrace.seams import redis_pubsub
from golfrace.seams.redis_pubsub import MESSAGE, SUBSCRIBED
from golfrace.seams.ws_frames import frame
from golfrace.store import keys
from golfrace.store.commit import ORIGIN_LEN, ORIGIN_MARK
from golfrace.wire.protocol import pack, to_json, unpack

log = logging.getLogger("golfrace.store.pubsub")
HUB_CHANNEL = keys.HUB_CHANNEL
SUBSCRIBE_TIMEOUT = 5.0
LISTEN_RETRY = Retry(ExponentialBackoff(cap=0.2, base=0.02), 2)
"""A lost pub/sub connection: redis-py retries twice at once, then the listener backs off (RETRY_MAX)."""
RETRY_MAX = 2.0


class Envelope:
    """A published message: the raw msgpack bytes (forwarded as-is to msgpack clients), the decoded map, its
    JSON text made at most once for all JSON clients, and each as a websocket frame made at most once for
    all local followers."""

    __slots__ = ("_binary_frame", "_json", "_text_frame", "channel", "diff", "message", "raw")

    def __init__(self, channel: str, raw: bytes, message: dict[str, Any]) -> None:
        self.channel = channel
        self.raw = raw
        self.message = message
        game = message.get("game")
        self.diff: tuple[str, Any, Any] | None = (
            (sys.intern(game), message.get("v"), message.get("from"))
            if message.get("t") == "diff" and type(game) is str
            else None
        )
        """A game's diff: (game id, v, from) read once for all followers (their sessions check the types); the
        id interned, as the sessions' keys of the games they follow are (``follow.intern``)."""
        self._json: str | None = None
        self._binary_frame: bytes | None = None
        self._text_frame: bytes | None = None

    @property
    def json(self) -> str:
        if self._json is None:
            self._json = to_json(self.message)
        return self._json

    def framed(self, binary: bool) -> bytes:
        """The message as one websocket frame: msgpack in a binary frame, or JSON in a text frame."""
        if binary:
            if self._binary_frame is None:
                self._binary_frame = frame(self.raw)
            return self._binary_frame
        if self._text_frame is None:
            self._text_frame = frame(self.json)
        return self._text_frame

    @classmethod
    def of(cls, channel: str, message: dict[str, Any]) -> Envelope:
        return cls(channel, pack(message), message)


class Subscriber(Protocol):
    def deliver(self, envelope: Envelope) -> None: ...


def resume(subscriber: Subscriber, channel: str) -> None:
    """Tell ``subscriber`` that messages on ``channel`` may have been missed (its optional ``resume``): it
    brings its client up to date from what Redis stores."""
    hook = getattr(subscriber, "resume", None)
    if hook is not None:
        try:
            hook(channel)
        except Exception:
            log.exception("resume failed on %s", channel)


class PubSubSide(Protocol):
    """The Redis side of a ``Hub``: where its channels are subscribed and how they are read. It reports to
    the hub it is attached to: each message (``Hub._dispatch``), each confirmation (``Hub._confirmed``) and
    the channels whose subscription was lost (``Hub._lose``)."""

    standing: tuple[str, ...]
    """Channels subscribed at start (a single Redis: the connection is made then, not by the first game)."""

    def attach(self, hub: Hub) -> None: ...
    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def subscribe(self, channel: str) -> None:
        """Ask Redis for ``channel`` (its confirmation comes to ``Hub._confirmed``); on failure nothing of
        it stays."""

    async def unsubscribe(self, channel: str) -> None:
        """Tell Redis nobody here follows ``channel`` any more (never raises: gone with the connection)."""

    async def publish(self, channel: str, raw: bytes) -> int: ...


class Hub:
    """The local side of pub/sub (subscribers, confirmed subscriptions, delivery, catch-up) over a Redis side:
    ``Classic`` (``SUBSCRIBE`` on one connection) or ``sharded_hub.Sharded`` (``SSUBSCRIBE`` per master)."""

    def __init__(self, side: PubSubSide, origin: bytes = b"") -> None:
        self.side = side
        self.origin = origin
        """The prefix this process's commits put on what they publish (``Store.origin``)."""
        self.subscribers: dict[str, set[Subscriber]] = {}
        self.wanted: set[str] = set()
        """Channels subscribed (confirmed or not)."""
        self.confirmed: set[str] = set()
        """Channels Redis confirmed on their current connection."""
        self._confirm: dict[str, list[asyncio.Future[None]]] = {}
        self._lost: set[str] = set()
        """Channels confirmed before their connection was lost and not confirmed again yet: what was published
        on them meanwhile never reached this process."""
        side.attach(self)

    async def start(self) -> None:
        await self.side.start()
        for channel in self.side.standing:
            await self._join(channel, SUBSCRIBE_TIMEOUT)

    async def stop(self) -> None:
        await self.side.stop()

    async def subscribe(self, channel: str, subscriber: Subscriber) -> None:
        """Add ``subscriber``; returns once Redis confirmed the channel subscription, so that a state read
        after this call cannot miss a message published after it."""
        self.subscribers.setdefault(channel, set()).add(subscriber)
        try:
            await self._join(channel, SUBSCRIBE_TIMEOUT)
        except BaseException:  # not subscribed: the caller may try again from scratch (a confirmation
            self._remove(channel, subscriber)  # that comes late is unsubscribed by the listener)
            raise

    def resume(self, channel: str) -> None:
        """Messages on ``channel`` may have been missed here (a pub/sub reconnect, a commit whose reply was
        lost): every local subscriber catches up from the store."""
        for sub in list(self.subscribers.get(channel, ())):
            resume(sub, channel)

    async def unsubscribe(self, channel: str, subscriber: Subscriber) -> None:
        if self._remove(channel, subscriber):
            await self.side.unsubscribe(channel)

    def _remove(self, channel: str, subscriber: Subscriber) -> bool:
        """Take ``subscriber`` off ``channel``; once nobody here is left on it, forget the channel. True when
        Redis still has it (subscribed or being subscribed) and should be told to unsubscribe."""
        subs = self.subscribers.get(channel)
        if subs is None:
            return False
        subs.discard(subscriber)
        if subs:
            return False
        del self.subscribers[channel]
        self._lost.discard(channel)
        wanted = channel in self.wanted
        self.wanted.discard(channel)
        self.confirmed.discard(channel)
        return wanted

    async def _join(self, channel: str, timeout: float) -> None:
        """Subscribe to ``channel`` and wait for Redis's confirmation (at once when it is confirmed)."""
        if channel in self.confirmed:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirm.setdefault(channel, []).append(future)
        try:
            if channel not in self.wanted:
                self.wanted.add(channel)
                try:
                    await asyncio.wait_for(self.side.subscribe(channel), timeout)
                except BaseException:
                    self.wanted.discard(channel)
                    raise
            await asyncio.wait_for(future, timeout)
        except BaseException:
            waiting = self._confirm.get(channel)
            if waiting and future in waiting:
                waiting.remove(future)
            raise

    # --- what the Redis side reports ---
    def _confirmed(self, channel: str, current: bool = True) -> bool:
        """Redis confirmed ``channel`` (``current``: on the connection it is subscribed on now, not on one
        given up). Returns True when nobody here wants it any more (left before the confirmation came, or
        while a connection was down and a reconnect subscribed it again): the side unsubscribes it."""
        stale = False
        if channel in self.wanted:
            if current:
                self.confirmed.add(channel)
                if channel in self._lost:  # subscribed again after a reconnect: catch up what was missed
                    self._lost.discard(channel)
                    self.resume(channel)
        elif not self._confirm.get(channel):
            self._lost.discard(channel)
            stale = True
        for future in self._confirm.pop(channel, ()):
            if not future.done():
                future.set_result(None)
        return stale

    def _lose(self, channels: set[str]) -> None:
        """The subscriptions of ``channels`` are gone (their connection failed, or Redis dropped them): not
        confirmed any more, and caught up once confirmed again."""
        for channel in channels:
            if channel in self.confirmed:
                self.confirmed.discard(channel)
                self._lost.add(channel)

    # --- publishing and delivery ---
    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        """Publish a message map to every instance's subscribers of ``channel``."""
        return await self.side.publish(channel, pack(message))

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


class Classic:
    """The Redis side on a single Redis: ``SUBSCRIBE`` on one connection of its own (short retries), read by
    one task for good; a lost connection is made again by the next read, which subscribes again to every
    channel (redis-py's bookkeeping), and those channels are lost until confirmed again."""

    standing: tuple[str, ...] = (HUB_CHANNEL,)

    def __init__(self, redis: aioredis.Redis, url: str) -> None:
        self.redis = redis  # publishing
        self.link = redis_pubsub.PubSubLink.to_url(url, LISTEN_RETRY)
        self._task: asyncio.Task[None] | None = None
        self.hub: Hub

    def attach(self, hub: Hub) -> None:
        self.hub = hub

    async def start(self) -> None:
        """Nothing yet: the first subscription (``standing``) makes the connection."""

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self.link.aclose()

    async def subscribe(self, channel: str) -> None:
        await self.link.subscribe(channel)
        if self._task is None:  # the first subscription made the connection: now it can be read
            self._task = asyncio.create_task(self._listen(), name="golfrace-hub-listen")

    async def unsubscribe(self, channel: str) -> None:
        with contextlib.suppress(Exception):  # gone with the connection anyway
            await self.link.unsubscribe(channel)

    async def publish(self, channel: str, raw: bytes) -> int:
        return int(await self.redis.publish(channel, raw))

    async def _listen(self) -> None:
        """Read the connection for good: messages to ``Hub._dispatch``, confirmations to
        ``Hub._confirmed``."""
        hub, link = self.hub, self.link
        backoff = 0.05
        while True:
            try:
                reply = await link.read()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis gone: the next read reconnects and subscribes again
                await link.drop()
                hub._lose(set(hub.confirmed))
                log.warning("pub/sub connection lost: %s", exc)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RETRY_MAX)
                continue
            backoff = 0.05
            if reply is None:
                continue
            kind, name, payload = reply
            if kind == MESSAGE:
                hub._dispatch(name, payload)
            elif kind == SUBSCRIBED and hub._confirmed(name):
                await self.unsubscribe(name)  # left while the connection was down: subscribed on reconnect


def classic_hub(redis: aioredis.Redis, url: str, origin: bytes = b"") -> Hub:
    """The hub of a single Redis at ``url`` (``redis``: the client it publishes with)."""
    return Hub(Classic(redis, url), origin)
