"""One websocket connection (``Session``): its identity, its rate limit, the answers to its requests, and the
asyncio adapter of what it follows. The rules of following games and of the bounded send queue are the
sans-I/O state machine in ``follow.py`` (``Connection``): every frame to the client goes through ``send``
(answers to its own messages, with the ``rid`` of the ``Request`` being handled) or ``deliver``
(broadcasts from the hub) into the machine's ``outbox``, which ``writer.py`` puts on the socket; the
machine's actions become tasks here (``Fill``: read the store) and timers (``RetryAfter``)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from golfrace.engine.i18n import DEFAULT_LOCALE
from golfrace.live import metrics, streams
from golfrace.live.follow_machine import Connection
from golfrace.live.follow_state import Action, CancelRetry, Close, Fill, Follow, RetryAfter, StreamSource
from golfrace.live.request import REQUEST
from golfrace.live.services import Context
from golfrace.live.tasks import end
from golfrace.live.writer import FrameSink, Socket, Writer, write_in_step
from golfrace.store.keys import channel
from golfrace.store.pubsub import Envelope
from golfrace.store.stored_game import Stored
from golfrace.wire.protocol import CLOSE_FLOOD, MSGPACK, ProtocolError, encode, unpack
from golfrace.wire.views import public_state

__all__ = ["CloseHook", "Follow", "Session", "snapshot"]

log = logging.getLogger("golfrace.live.session")

CloseHook = Callable[["Session"], Awaitable[None]]
"""What an extension does when one of its connections ends (``Session.on_close``): drop what it keeps."""
_SERIALS = itertools.count(1)
NO_CHANNELS: frozenset[str] = frozenset()  # the channels of a connection subscribed to none (no set each)


class Session:
    # thousands live at once, mostly idle: slots, and containers only once they are needed
    __slots__ = (
        "_hooks",
        "_refilled",
        "_tasks",
        "_timers",
        "_tokens",
        "account",
        "account_session",
        "binary",
        "caps_net",
        "caps_player",
        "channels",
        "codec",
        "cookie",
        "ctx",
        "dropped_for_rate",
        "ended",
        "frames",
        "hello_timer",
        "hints_busy",
        "lang",
        "machine",
        "name",
        "network",
        "player",
        "serial",
        "settings",
        "sid",
        "writer",
    )

    def __init__(self, ctx: Context, websocket: Socket, codec: str, frames: FrameSink | None = None) -> None:
        self.ctx = ctx
        settings = self.settings = ctx.settings
        self.codec = codec
        self.player: str | None = None
        self.name: str | None = None
        self.lang = DEFAULT_LOCALE
        self.sid = secrets.token_hex(6)
        self.serial = next(_SERIALS)
        """This connection's number, unique in the process (``sid`` survives a reconnect): how Redis tells it
        from the player's other connections (friends' presence stamps)."""
        self.machine = Connection(
            send_queue=settings.send_queue,
            slow_grace=settings.slow_grace,
            pending_limit=settings.pending_limit,
            fill_retry_s=settings.fill_retry_s,
            fill_retry_max_s=settings.fill_retry_max_s,
            # slow_grace on the app clock's seconds where it has its own (a test's: moved on, not waited
            # for), else the monotonic clock (as ``races.timers.monotonic``)
            clock=getattr(ctx.clock, "monotonic", time.monotonic),
            on_drop=metrics.DROPPED.inc,
        )
        self.frames = frames if settings.direct_frames else None
        """The websocket protocol's way in for frames framed once (the writer's), at hand for ``deliver``."""
        self.binary = codec == MSGPACK
        self.writer = Writer(
            self.machine, websocket, self.frames, self.binary, settings.close_timeout_s, self._act
        )
        self.channels: set[str] | frozenset[str] = NO_CHANNELS
        self.network = "unknown"
        """The client's network (``limits.network``, from the handshake): what per-network limits count."""
        self.caps_net: str | None = None
        """The network this connection is counted for in the connection caps (``caps.py``)."""
        self.caps_player: str | None = None
        """The player this connection is counted for in the connection caps, from its first hello."""
        self.cookie: str | None = None
        """The browser session token of the handshake's cookie (``Identity.session_cookie``), if any."""
        self.account: str | None = None
        """The account player id of a connection that said hello with a live session (``Identity``)."""
        self.account_session: str | None = None
        """That session's hash, checked again before ranked actions (``Identity.still_signed_in``)."""
        self.hints_busy = 0  # hints asked for and not answered yet (``hints.py``)
        self._tokens = float(settings.burst)
        self._refilled = self.machine.clock()
        self.dropped_for_rate = 0
        self._tasks: set[asyncio.Task[None]] | None = None
        self._timers: dict[str, asyncio.TimerHandle] | None = None
        self.hello_timer: asyncio.TimerHandle | None = None
        self._hooks: dict[CloseHook, None] | None = None
        self.ended = False  # ``shutdown`` ran: the connection is gone, its close hooks have run

    # --- identity ----------------------------------------------------------------------------------------
    @property
    def stream(self) -> str:
        """The seq space of this connection: player and session id (kept across reconnects via hello.sid)."""
        return f"{self.player}/{self.sid}"

    @property
    def follows(self) -> dict[str, Follow]:  # the games (and streams) followed, by id (the machine's)
        return self.machine.follows

    # --- rate limit ----------------------------------------------------------------------------------------
    def take_token(self) -> bool:
        now = self.machine.clock()  # the app clock's seconds, as the slow-client rule's
        self._tokens = min(
            float(self.settings.burst), self._tokens + (now - self._refilled) * self.settings.rate
        )
        self._refilled = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        self.dropped_for_rate += 1
        if self.dropped_for_rate >= self.settings.flood_close_after:
            self.close(CLOSE_FLOOD)
        return False

    # --- sending -------------------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        """Queue an answer to this client's own message: never dropped (twice the queue size closes, 4008)."""
        message = self.answering(message)
        if message.get("t") == "error":
            metrics.ERRORS.labels(message.get("code", "")).inc()
        self.run(self.machine.answer(encode(message, self.codec)))

    def send_shared(self, envelope: Envelope) -> None:
        """Queue ``envelope``, a message made once for many (a race's progress): ``send``, framed once."""
        message = envelope.message
        if self.answering(message) is not message:  # it answers this connection's request: its own rid
            self.send(message)
            return
        self.run(self.machine.answer(envelope))

    def answering(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` answering the request handled on this connection (if any): with its ``rid``."""
        request = REQUEST.get()
        if request is not None and request.session is self and request.active:
            request.answered = True
            if request.rid is not None and "rid" not in message:
                return {**message, "rid": request.rid}
        return message

    def error(self, exc: ProtocolError) -> None:
        message = exc.to_message()
        if exc.rid is not None:
            message["rid"] = exc.rid
        self.send(message)

    async def make_room(self) -> None:
        """Before reading the client's next frame: when our answers to it pile up (frames it sent in one
        burst are handled without a pause), let the writer put them on the socket first. A client that does
        not read is still closed by the slow-client rule; one that sends too fast gets ``rate_limited``."""
        if self.machine.queued >= self.settings.send_queue // 2:
            await asyncio.sleep(0)

    def close(self, code: int) -> None:
        """Close soon with ``code``: frames still queued are discarded."""
        if self.machine.close(code):
            self._closed(code)

    def _closed(self, code: int) -> None:
        metrics.CLOSES.labels(str(code)).inc()
        self.writer.closed()

    @property
    def closing(self) -> bool:
        return self.machine.close_code is not None

    def run(self, actions: tuple[Action, ...]) -> None:
        """Carry out the machine's actions, then make sure what it queued gets written."""
        if actions:
            self._act(actions)
        if self.machine.outbox:
            self.writer.write()

    def _act(self, actions: tuple[Action, ...]) -> None:
        for action in actions:
            if type(action) is Fill:
                self._start_fill(action.game, action.follow, action.from_v)
            elif type(action) is RetryAfter:
                self._arm_retry(action.game, action.follow, action.seconds)
            elif type(action) is CancelRetry:
                self._cancel_retry(action.game)
            elif type(action) is Close:
                self._closed(action.code)

    # --- following games -----------------------------------------------------------------------------------
    def opening(self, game_id: str, role: str, source: StreamSource | None = None) -> Follow | None:
        """``Connection.opening``: before subscribing to a game (or a stream, ``streams.py``) not followed."""
        return self.machine.opening(game_id, role, source)

    def abandon(self, game_id: str, placeholder: Follow | None) -> None:
        """``open`` failed: drop its placeholder (a follow made meanwhile stays)."""
        self.run(self.machine.abandon(game_id, placeholder))

    async def follow(self, stored: Stored, role: str, rid: str | None = None) -> None:
        """Follow a game whose subscription is already confirmed, starting from the snapshot sent now."""
        message = self.answering(snapshot(stored, role))
        if rid is not None:
            message["rid"] = rid
        self.run(self.machine.followed(stored.id, role, stored.v, encode(message, self.codec)))

    def resume(self, name: str) -> None:
        """The hub may have missed diffs on ``name`` (hub.resume): fill every game followed on it."""
        for game_id in [g for g in self.machine.follows if channel(g) == name]:
            self.run(self.machine.missed(game_id))

    async def subscribe(self, name: str) -> None:
        if name not in self.channels:
            await self.ctx.hub.subscribe(name, self)
            self.channels = {*self.channels, name}  # only once subscribed: a failed attempt can be made again

    async def unsubscribe(self, name: str) -> None:
        if name in (channels := self.channels) and isinstance(channels, set):
            channels.discard(name)
            await self.ctx.hub.unsubscribe(name, self)

    async def unfollow(self, game_id: str) -> None:
        self.run(self.machine.unfollowed(game_id))
        await self.unsubscribe(channel(game_id))

    def defer_fill(self, follow: Follow, from_v: int | None = None) -> bool:
        """``Connection.defer_fill``: False when no fill runs (the caller fills now)."""
        return self.machine.defer_fill(follow, from_v)

    def deliver(self, envelope: Envelope) -> None:
        """A message from the hub (any instance). Diffs go through version checks; others pass through. A
        diff the machine finds in step with nothing queued (``Connection.diff_in_step``) is written at once
        as the bytes framed once for all followers when the socket takes frames now: the common case of a
        broadcast, without the queue, the actions and the writer (its touches of a few more objects per
        follower are most of a delivery's cost)."""
        machine, diff = self.machine, envelope.diff
        if diff is not None:
            frames = self.frames  # the fan-out's fast path: a diff in step, nothing queued, written now
            if (
                frames is not None
                and frames.can_write_frames()
                and machine.diff_in_step(diff[0], diff[1], diff[2])
            ):
                write_in_step(frames, envelope.framed(self.binary))
                return
            actions = machine.diff_arrived(diff[0], diff[1], diff[2], envelope)
        else:
            actions = machine.broadcast(envelope)
        if actions:
            self._act(actions)
        if machine.outbox:
            self.writer.write()

    def stream_event(self, key: str, v: int, frames: tuple[Any, ...]) -> None:
        """Event ``v`` of the stream followed as ``key`` (``streams.py``): its frames, dropped at a full queue
        and then caught up with a snapshot, as a game's diffs are."""
        self.run(self.machine.diff_arrived(key, v, v - 1, frames))

    def _start_fill(self, game_id: str, follow: Follow, from_v: int | None = None) -> None:
        task = asyncio.create_task(self.fill(game_id, follow, from_v))
        if self._tasks is None:
            self._tasks = set()
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def fill(
        self, game_id: str, follow: Follow, from_v: int | None = None, answer: bool = False
    ) -> None:
        """Bring the client from ``from_v`` (default: what it holds) to the current version: the missed diffs
        from the store's buffer, or a snapshot when the buffer no longer reaches back or when they would take
        more than half the send queue. A failure (Redis away) is tried again with a growing wait; with
        ``answer`` (a client's ``resync``) it is also raised, for the client's error answer. A stream's fill
        reads its source (``streams.fill``)."""
        if follow.source is not None:
            return await streams.fill(self, game_id, follow, from_v, answer)
        machine, store = self.machine, self.ctx.store
        start = machine.fill_started(follow, from_v)
        try:
            found = await store.diffs_since(game_id, start)
            if not machine.is_current(game_id, follow):
                machine.fill_abandoned(follow)
                return
            frames: list[bytes | str]
            if found is None or machine.wants_snapshot(len(found[1])):
                stored = await store.load(game_id)
                if stored is None or not machine.is_current(game_id, follow):
                    machine.fill_abandoned(follow)
                    return
                frames, v = [encode(snapshot(stored, follow.role), self.codec)], stored.v
            else:
                current, packed = found
                if self.codec == MSGPACK:
                    frames = list(packed)
                else:
                    name = channel(game_id)
                    frames = [Envelope(name, raw, unpack(raw)).json for raw in packed]
                v = current
        except Exception as exc:
            log.warning("fill failed for %s: %r", game_id, exc)
            self.run(machine.fill_failed(game_id, follow))
            if answer:
                raise
            return
        except BaseException:
            machine.fill_abandoned(follow)
            raise
        self.run(machine.fill_done(game_id, follow, v, frames))

    def _arm_retry(self, game_id: str, follow: Follow, delay: float) -> None:
        if self._timers is None:
            self._timers = {}
        self._cancel_retry(game_id)
        self._timers[game_id] = asyncio.get_running_loop().call_later(delay, self._retry_due, game_id, follow)

    def _retry_due(self, game_id: str, follow: Follow) -> None:
        if self._timers is not None:
            self._timers.pop(game_id, None)
        self.run(self.machine.retry_due(game_id, follow))

    def _cancel_retry(self, game_id: str) -> None:
        timer = self._timers.pop(game_id, None) if self._timers is not None else None
        if timer is not None:
            timer.cancel()

    # --- the end ------------------------------------------------------------------------------------------
    def on_close(self, hook: CloseHook) -> None:
        """Have ``hook(self)`` awaited once when this connection ends (``shutdown``): an extension keeps its
        per-connection state (followers, presence) until then, and drops it at once, with no sweep. The same
        hook given again (a bound method of the same object) runs once; hooks run in the order first given.
        A connection that has ended takes no hook (a bug in its caller: RuntimeError)."""
        if self.ended:
            raise RuntimeError("the connection has ended: nothing can wait for its end")
        if self._hooks is None:
            self._hooks = {}
        self._hooks[hook] = None

    async def shutdown(self) -> None:
        """The connection ended (its socket loop and requests are over): stop following games, end the fill
        tasks, then await every close hook (a failing hook is logged; the others still run)."""
        if self.ended:
            return
        self.ended = True
        self.run(self.machine.shutdown())
        for name in list(self.channels):
            with contextlib.suppress(Exception):
                await self.ctx.hub.unsubscribe(name, self)
        self.channels = NO_CHANNELS
        tasks = list(self._tasks or ())
        for task in tasks:
            await end(task)
        for timer in (self._timers or {}).values():
            timer.cancel()
        self._timers = None
        hooks, self._hooks = self._hooks or {}, None
        for hook in hooks:
            try:
                await hook(self)
            except Exception:
                log.exception("a close hook failed for connection %s", self.serial)


def snapshot(stored: Stored, role: str) -> dict[str, Any]:
    return {
        "t": "snapshot",
        "game": stored.id,
        "v": stored.v,
        "role": role,
        "state": public_state(stored.game, stored.hidden, stored.meta),
    }
