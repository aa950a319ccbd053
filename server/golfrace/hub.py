"""The pub/sub hub: one Redis pub/sub connection per server instance, fanned out to every local subscriber.

A subscriber (a websocket session, or anything with ``deliver``) subscribes to channels; each published
payload (a msgpack map) is decoded once and handed to every local subscriber of its channel, in the order
Redis delivered it. ``deliver`` must not block: sessions only queue frames.

The connection is redis-py's ``PubSub``, read by one long-lived task that awaits each reply (no polling):
while connected, straight from the ``PubSub``'s connection (``read_response``, what
``get_message(timeout=None)`` reads, minus the retry wrapper and the message dict for data messages);
otherwise through ``PubSub.parse_response(block=True)``, which reconnects and subscribes again to every
channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from .protocol import pack, to_json, unpack
from .seams.ws_frames import frame
from .store import ORIGIN_LEN, ORIGIN_MARK

log = logging.getLogger("golfrace.hub")
HUB_CHANNEL = "golfrace:hub"
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
            (game, message.get("v"), message.get("from"))
            if message.get("t") == "diff" and type(game) is str
            else None
        )
        """A game's diff: (game id, v, from) read once for all followers (their sessions check the types)."""
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


class Hub:
    def __init__(self, redis: aioredis.Redis, url: str, origin: bytes = b"") -> None:
        self.redis = redis  # publishing
        self.origin = origin
        """The prefix this process's commits put on what they publish (``Store.origin``)."""
        # One pub/sub connection per process, on a client of its own (short retries).
        self.listen_client = aioredis.Redis.from_url(url, max_connections=1, retry=LISTEN_RETRY)
        self.pubsub = self.listen_client.pubsub()
        self.subscribers: dict[str, set[Subscriber]] = {}
        self.wanted: set[str] = set()
        """Channels subscribed (confirmed or not)."""
        self.confirmed: set[str] = set()
        """Channels Redis confirmed on the current connection."""
        self._confirm: dict[str, list[asyncio.Future[None]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._lost: set[str] = set()
        """Channels confirmed before the connection was lost and not confirmed again yet: what was published
        on them meanwhile never reached this process."""

    async def start(self) -> None:
        await self._join(HUB_CHANNEL, SUBSCRIBE_TIMEOUT, start=True)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self.listen_client.aclose()

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
            with contextlib.suppress(Exception):  # gone with the connection anyway
                await self.pubsub.unsubscribe(channel)

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

    async def _join(self, channel: str, timeout: float, start: bool = False) -> None:
        """Subscribe to ``channel`` and wait for Redis's confirmation (at once when it is confirmed)."""
        if channel in self.confirmed:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirm.setdefault(channel, []).append(future)
        try:
            if channel not in self.wanted:
                self.wanted.add(channel)
                try:
                    await asyncio.wait_for(self.pubsub.subscribe(channel), timeout)
                except BaseException:
                    self.wanted.discard(channel)
                    raise
            if start:  # the first subscription made the connection: now it can be read
                self._task = asyncio.create_task(self._listen(), name="golfrace-hub-listen")
            await asyncio.wait_for(future, timeout)
        except BaseException:
            waiting = self._confirm.get(channel)
            if waiting and future in waiting:
                waiting.remove(future)
            raise

    async def _listen(self) -> None:
        """Read the pub/sub connection for good: messages to ``_dispatch``, confirmations to ``_join``."""
        backoff = 0.05
        while True:
            conn = self.pubsub.connection
            try:
                if conn is not None and conn.is_connected and not conn.health_check_interval:
                    # connected: read the next reply straight from redis-py's connection (no retry wrapper
                    # and its timing per message); an error disconnects, and the next turn reads through
                    # PubSub, which reconnects and subscribes again
                    reply = await conn.read_response(
                        timeout=math.inf, disconnect_on_error=False, push_request=True
                    )
                else:
                    reply = await self.pubsub.parse_response(block=True)
                if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"message":
                    # the hot case (a diff) straight to _dispatch: no message dict per diff
                    self._dispatch(reply[1].decode(), reply[2])
                    continue
                # the rest (confirmations) through redis-py, which keeps its channel bookkeeping
                message = await self.pubsub.handle_message(reply)  # type: ignore[no-untyped-call]
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis gone: the next read reconnects and subscribes again
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.disconnect(nowait=True)
                self._lost |= self.confirmed
                self.confirmed.clear()
                log.warning("pub/sub connection lost: %s", exc)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RETRY_MAX)
                continue
            backoff = 0.05
            if message is None:
                continue
            if message["type"] == "subscribe":
                name = message["channel"].decode()
                if name in self.wanted:
                    self.confirmed.add(name)
                    if name in self._lost:  # subscribed again after a reconnect: catch up what was missed
                        self._lost.discard(name)
                        self.resume(name)
                elif not self._confirm.get(name):
                    # left while the connection was down: redis-py subscribed it again on reconnect
                    self._lost.discard(name)
                    with contextlib.suppress(Exception):
                        await self.pubsub.unsubscribe(name)
                for future in self._confirm.pop(name, ()):
                    if not future.done():
                        future.set_result(None)

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
