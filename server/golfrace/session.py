"""One websocket connection (``Session``): its identity, its rate limit, the answers to its requests, and the
asyncio adapter of what it follows. The rules of following games and of the bounded send queue are the
sans-I/O state machine in ``follow.py`` (``Connection``): every frame to the client goes through ``send``
(answers to its own messages, with the ``rid`` of the ``Request`` being handled) or ``deliver``
(broadcasts from the hub) into the machine's ``outbox``, which ``writer.py`` puts on the socket; the
machine's actions become tasks here (``Fill``: read the store) and timers (``RetryAfter``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from . import metrics
from .context import Context
from .engine.i18n import DEFAULT_LOCALE
from .follow import Connection
from .followed import Action, CancelRetry, Close, Fill, Follow, RetryAfter
from .hub import Envelope
from .keys import channel
from .protocol import CLOSE_FLOOD, MSGPACK, ProtocolError, encode, unpack
from .stored import Stored
from .views import public_state
from .writer import FrameSink, Socket, Writer, write_in_step

__all__ = ["REQUEST", "Follow", "Request", "Session", "snapshot"]

log = logging.getLogger("golfrace.session")


@dataclass(slots=True)
class Request:
    """The client message being handled (``dispatch.Dispatch`` sets it in ``REQUEST``): what this
    connection is sent meanwhile answers it and carries its ``rid``."""

    session: Session
    rid: str | None
    answered: bool = False
    active: bool = True


REQUEST: ContextVar[Request | None] = ContextVar("golfrace_request", default=None)


class Session:
    # thousands live at once, mostly idle: slots, and containers only once they are needed
    __slots__ = (
        "_refilled",
        "_tasks",
        "_timers",
        "_tokens",
        "binary",
        "channels",
        "codec",
        "ctx",
        "dropped_for_rate",
        "extras",
        "frames",
        "hello_timer",
        "lang",
        "machine",
        "name",
        "player",
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
        self.channels: set[str] = set()
        self.extras: dict[str, Any] = {}
        self._tokens = float(settings.burst)
        self._refilled = time.monotonic()
        self.dropped_for_rate = 0
        self._tasks: set[asyncio.Task[None]] | None = None
        self._timers: dict[str, asyncio.TimerHandle] | None = None
        self.hello_timer: asyncio.TimerHandle | None = None

    # --- identity ----------------------------------------------------------------------------------------
    @property
    def stream(self) -> str:
        """The seq space of this connection: player and session id (kept across reconnects via hello.sid)."""
        return f"{self.player}/{self.sid}"

    @property
    def follows(self) -> dict[str, Follow]:
        """The games followed, by id (the machine's)."""
        return self.machine.follows

    # --- rate limit ----------------------------------------------------------------------------------------
    def take_token(self) -> bool:
        now = time.monotonic()
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
        """Queue an answer to this client's own message. Answers are never dropped; a client that lets them
        pile up to twice the queue size is closed (4008)."""
        message = self._answering(message)
        if message.get("t") == "error":
            metrics.ERRORS.labels(message.get("code", "")).inc()
        self._run(self.machine.answer(encode(message, self.codec)))

    def send_shared(self, envelope: Envelope) -> None:
        """Queue ``envelope``, a message made once for several connections (a race's progress and boards):
        like ``send`` (never dropped), but encoded and framed once for all of them."""
        message = envelope.message
        if self._answering(message) is not message:  # it answers this connection's request: its own rid
            self.send(message)
            return
        self._run(self.machine.answer(envelope))

    def _answering(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` as the answer to the request being handled on this connection (if any): with its
        ``rid``, and the request counts as answered."""
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

    def _run(self, actions: tuple[Action, ...]) -> None:
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
    def opening(self, game_id: str, role: str) -> Follow | None:
        """Before subscribing to a game not followed yet: a placeholder that holds the diffs arriving until
        ``follow`` (so none falls between the subscription and the snapshot's read). None when followed."""
        return self.machine.opening(game_id, role)

    def abandon(self, game_id: str, placeholder: Follow | None) -> None:
        """``open`` failed: drop its placeholder (a follow made meanwhile stays)."""
        self._run(self.machine.abandon(game_id, placeholder))

    async def follow(self, stored: Stored, role: str, rid: str | None = None) -> None:
        """Follow a game whose subscription is already confirmed, starting from the snapshot sent now."""
        message = self._answering(snapshot(stored, role))
        if rid is not None:
            message["rid"] = rid
        self._run(self.machine.followed(stored.id, role, stored.v, encode(message, self.codec)))

    def resume(self, name: str) -> None:
        """The hub may have missed diffs on ``name`` (hub.resume): fill every game followed on it."""
        for game_id in [g for g in self.machine.follows if channel(g) == name]:
            self._run(self.machine.missed(game_id))

    async def subscribe(self, name: str) -> None:
        if name not in self.channels:
            await self.ctx.hub.subscribe(name, self)
            self.channels.add(name)  # only once subscribed: a failed attempt can be made again

    async def unsubscribe(self, name: str) -> None:
        if name in self.channels:
            self.channels.discard(name)
            await self.ctx.hub.unsubscribe(name, self)

    async def unfollow(self, game_id: str) -> None:
        self._run(self.machine.unfollowed(game_id))
        await self.unsubscribe(channel(game_id))

    def defer_fill(self, follow: Follow, from_v: int | None = None) -> bool:
        """While a fill runs (or ``open`` reads the game), a new reason to fill makes it go on once more when
        it ends, from ``from_v`` if that is older than where it started. False when none runs: the caller
        fills now."""
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
        ``answer`` (a client's ``resync``) it is also raised, for the client's error answer."""
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
            self._run(machine.fill_failed(game_id, follow))
            if answer:
                raise
            return
        except BaseException:
            machine.fill_abandoned(follow)
            raise
        self._run(machine.fill_done(game_id, follow, v, frames))

    def _arm_retry(self, game_id: str, follow: Follow, delay: float) -> None:
        if self._timers is None:
            self._timers = {}
        self._cancel_retry(game_id)
        self._timers[game_id] = asyncio.get_running_loop().call_later(delay, self._retry_due, game_id, follow)

    def _retry_due(self, game_id: str, follow: Follow) -> None:
        if self._timers is not None:
            self._timers.pop(game_id, None)
        self._run(self.machine.retry_due(game_id, follow))

    def _cancel_retry(self, game_id: str) -> None:
        timer = self._timers.pop(game_id, None) if self._timers is not None else None
        if timer is not None:
            timer.cancel()

    async def shutdown(self) -> None:
        self._run(self.machine.shutdown())
        for name in list(self.channels):
            with contextlib.suppress(Exception):
                await self.ctx.hub.unsubscribe(name, self)
        self.channels.clear()
        for task in list(self._tasks or ()):
            task.cancel()


def snapshot(stored: Stored, role: str) -> dict[str, Any]:
    return {
        "t": "snapshot",
        "game": stored.id,
        "v": stored.v,
        "role": role,
        "state": public_state(stored.game, stored.hidden, stored.meta),
    }
