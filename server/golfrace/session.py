"""One websocket connection: identity, rate limit, the games it follows and its bounded send queue.

Every frame to the client goes through ``send`` (answers to its own messages) or ``deliver`` (broadcasts
from the hub). Diffs are checked against the version the client holds for that game, so the client gets
each version exactly once and in order: duplicates are skipped, a gap is filled from the store's diff
buffer (or with a snapshot) before later diffs are passed on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import metrics
from .context import Context
from .engine.i18n import DEFAULT_LOCALE
from .hub import Envelope
from .protocol import CLOSE_FLOOD, CLOSE_TOO_SLOW, MSGPACK, ProtocolError, encode, unpack
from .store import Stored, channel
from .views import public_state

log = logging.getLogger("golfrace.session")
PENDING_LIMIT = 256  # diffs held for one game while its gap is being filled
FILL_RETRY_S = 0.25  # first wait before a failed fill is tried again (doubling, at most FILL_RETRY_MAX_S)
FILL_RETRY_MAX_S = 5.0
CLOSE_TIMEOUT = 1.0  # seconds to get a close frame out; a stalled peer is then left to the ping timeout


@dataclass
class Follow:
    """A game this connection follows: its role and the version the client holds."""

    role: str
    v: int
    """The last version queued to the client; -1 while ``open`` reads the game (diffs wait in ``pending``)."""
    filling: bool = False
    lagging: bool = False
    again: bool = False
    """Fill once more when the running fill ends (the store may hold diffs the running one did not read)."""
    again_from: int | None = None
    """The version that fill starts from when a client's ``resync`` asked for an older one meanwhile."""
    fill_from: int = 0
    """The version the running (or last) fill started from."""
    failures: int = 0
    """Fills that failed in a row (Redis away): the next one waits FILL_RETRY_S * 2**failures."""
    retry: asyncio.TimerHandle | None = None
    """The one pending retry of a failed fill."""
    pending: list[Envelope] = field(default_factory=list)


class Socket(Protocol):
    """What a session writes to (``app.Socket`` over the ASGI callables)."""

    async def send_bytes(self, data: bytes) -> None: ...
    async def send_text(self, data: str) -> None: ...
    async def close(self, code: int = 1000) -> None: ...


class Session:
    # thousands live at once, mostly idle: slots, and containers only once they are needed
    __slots__ = (
        "_close_code",
        "_full_since",
        "_queue",
        "_refilled",
        "_sending",
        "_tasks",
        "_tokens",
        "_writer_task",
        "channels",
        "codec",
        "ctx",
        "dropped_for_rate",
        "extras",
        "follows",
        "hello_timer",
        "lang",
        "name",
        "player",
        "settings",
        "sid",
        "websocket",
    )

    def __init__(self, ctx: Context, websocket: Socket, codec: str) -> None:
        self.ctx = ctx
        self.settings = ctx.settings
        self.websocket = websocket
        self.codec = codec
        self.player: str | None = None
        self.name: str | None = None
        self.lang = DEFAULT_LOCALE
        self.sid = secrets.token_hex(6)
        self.follows: dict[str, Follow] = {}
        self.channels: set[str] = set()
        self.extras: dict[str, Any] = {}
        self._queue: deque[bytes | str] | None = None
        self._full_since: float | None = None
        self._close_code: int | None = None
        self._tokens = float(self.settings.burst)
        self._refilled = time.monotonic()
        self.dropped_for_rate = 0
        self._tasks: set[asyncio.Task[None]] | None = None
        self._writer_task: asyncio.Task[Any] | None = None
        self._sending = False
        self.hello_timer: asyncio.TimerHandle | None = None

    # --- identity ----------------------------------------------------------------------------------------
    @property
    def stream(self) -> str:
        """The seq space of this connection: player and session id (kept across reconnects via hello.sid)."""
        return f"{self.player}/{self.sid}"

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
        if message.get("t") == "error":
            metrics.ERRORS.labels(message.get("code", "")).inc()
        self._push(encode(message, self.codec), broadcast=False)

    def error(self, exc: ProtocolError) -> None:
        self.send(exc.to_message())

    def _push(self, frame: bytes | str, broadcast: bool) -> bool:
        if self._close_code is not None:
            return False
        limit = self.settings.send_queue
        queue = self._queue
        if queue is None:
            queue = self._queue = deque()
        if len(queue) >= limit:
            now = time.monotonic()
            if self._full_since is None:
                self._full_since = now
            if now - self._full_since > self.settings.slow_grace or len(queue) >= 2 * limit:
                self.close(CLOSE_TOO_SLOW)
                return False
            if broadcast:
                metrics.DROPPED.inc()
                return False
        queue.append(frame)
        self._ensure_writer()
        return True

    async def make_room(self) -> None:
        """Before reading the client's next frame: when our answers to it pile up (frames it sent in one
        burst are handled without a pause), let the writer put them on the socket first. A client that does
        not read is still closed by the slow-client rule; one that sends too fast gets ``rate_limited``."""
        queue = self._queue
        if queue is not None and len(queue) >= self.settings.send_queue // 2:
            await asyncio.sleep(0)

    def _check_slow(self) -> None:
        full = self._full_since
        if (
            full is not None
            and self._queue is not None
            and len(self._queue) >= self.settings.send_queue
            and time.monotonic() - full > self.settings.slow_grace
        ):
            self.close(CLOSE_TOO_SLOW)

    def close(self, code: int) -> None:
        """Close soon with ``code``: frames still queued are discarded."""
        if self._close_code is None:
            self._close_code = code
            metrics.CLOSES.labels(str(code)).inc()
            self._queue = None
            if self._sending and self._writer_task is not None:
                self._writer_task.cancel()
            self._ensure_writer()

    @property
    def closing(self) -> bool:
        return self._close_code is not None

    def _ensure_writer(self) -> None:
        task = self._writer_task
        if task is None or task.done():
            self._writer_task = asyncio.create_task(self._write())

    async def _write(self) -> None:
        """Drain the queue into the socket, then end (an idle connection holds no task and no queue). The
        only code that writes to the socket; ``close`` cancels it even in the middle of a send to a stalled
        socket, then the close frame gets ``CLOSE_TIMEOUT`` seconds."""
        ws = self.websocket
        binary = self.codec == MSGPACK
        sent = 0
        try:
            queue = self._queue
            while queue:
                frame = queue.popleft()
                self._sending = True
                if binary:
                    await ws.send_bytes(frame)  # type: ignore[arg-type]
                else:
                    await ws.send_text(frame)  # type: ignore[arg-type]
                self._sending = False
                sent += 1
                queue = self._queue
        except asyncio.CancelledError:
            self._sending = False
            if self._close_code is None:
                raise
        except Exception as exc:  # the peer is gone: the reader ends the session
            log.debug("send failed: %r", exc)
            self._sending = False
            self._queue = None
            self._writer_task = None
            return
        finally:
            metrics.MESSAGES_OUT.inc(sent)
        if self._close_code is None:
            self._full_since = None
            self._queue = None
            self._writer_task = None
            self._catch_up()
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(self._close_code), CLOSE_TIMEOUT)

    async def stop_writer(self) -> None:
        """The connection ends: let a close frame in progress go out (bounded), else stop writing."""
        task = self._writer_task
        if task is None or task.done():
            return
        if self._close_code is None:
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, CLOSE_TIMEOUT + 1)

    # --- following games -----------------------------------------------------------------------------------
    def opening(self, game_id: str, role: str) -> Follow | None:
        """Before subscribing to a game not followed yet: a placeholder that holds the diffs arriving until
        ``follow`` (so none falls between the subscription and the snapshot's read). None when followed."""
        if game_id in self.follows:
            return None
        placeholder = self.follows[game_id] = Follow(role, -1, filling=True)
        return placeholder

    def abandon(self, game_id: str, placeholder: Follow | None) -> None:
        """``open`` failed: drop its placeholder (a follow made meanwhile stays)."""
        if placeholder is not None and self.follows.get(game_id) is placeholder:
            del self.follows[game_id]

    async def follow(self, stored: Stored, role: str, rid: str | None = None) -> None:
        """Follow a game whose subscription is already confirmed, starting from the snapshot sent now."""
        before = self.follows.get(stored.id)
        if before is not None:
            _cancel_retry(before)
        follow = self.follows[stored.id] = Follow(role, stored.v)
        message = snapshot(stored, role)
        if rid is not None:
            message["rid"] = rid
        self.send(message)
        if before is not None and before.v < 0:  # diffs that came while the game was read
            for envelope in before.pending:
                self._offer(stored.id, follow, envelope)
            if before.again and not follow.filling:  # the hub missed messages meanwhile (resume)
                self._start_fill(stored.id, follow)

    def resume(self, name: str) -> None:
        """The hub may have missed diffs on ``name`` (hub.resume): fill every game followed on it."""
        for game_id, follow in self.follows.items():
            if channel(game_id) == name and not self.defer_fill(follow):
                self._start_fill(game_id, follow)

    async def subscribe(self, name: str) -> None:
        if name not in self.channels:
            await self.ctx.hub.subscribe(name, self)
            self.channels.add(name)  # only once subscribed: a failed attempt can be made again

    async def unsubscribe(self, name: str) -> None:
        if name in self.channels:
            self.channels.discard(name)
            await self.ctx.hub.unsubscribe(name, self)

    async def unfollow(self, game_id: str) -> None:
        follow = self.follows.pop(game_id, None)
        if follow is not None:
            _cancel_retry(follow)
        await self.unsubscribe(channel(game_id))

    @staticmethod
    def defer_fill(follow: Follow, from_v: int | None = None) -> bool:
        """While a fill runs (or ``open`` reads the game), a new reason to fill makes it go on once more when
        it ends, from ``from_v`` if that is older than where it started. False when none runs: the caller
        fills now."""
        if not follow.filling:
            return False
        follow.again = True
        if from_v is not None and from_v < follow.fill_from:
            follow.again_from = from_v if follow.again_from is None else min(follow.again_from, from_v)
        return True

    def deliver(self, envelope: Envelope) -> None:
        """A message from the hub (any instance). Diffs go through version checks; others pass through."""
        msg = envelope.message
        if msg.get("t") == "diff" and isinstance(msg.get("game"), str):
            follow = self.follows.get(msg["game"])
            if follow is not None:
                self._offer(msg["game"], follow, envelope)
            return
        self._push(self._frame(envelope), broadcast=True)

    def _frame(self, envelope: Envelope) -> bytes | str:
        return envelope.raw if self.codec == MSGPACK else envelope.json

    def _offer(self, game_id: str, follow: Follow, envelope: Envelope) -> None:
        msg = envelope.message
        v, frm = msg.get("v"), msg.get("from")
        if not isinstance(v, int) or not isinstance(frm, int):
            return
        if follow.filling:
            if len(follow.pending) < PENDING_LIMIT:
                follow.pending.append(envelope)
            return
        if follow.lagging:
            self._check_slow()
            return  # left to the catch-up
        if v <= follow.v:
            return  # already sent (our own echo, or covered by a snapshot)
        if frm != follow.v:
            follow.pending.append(envelope)
            self._start_fill(game_id, follow)
            return
        if self._push(self._frame(envelope), broadcast=True):
            follow.v = v
        else:
            follow.lagging = True

    def _catch_up(self) -> None:
        """The queue just emptied: games whose diffs were dropped get filled now."""
        for game_id, follow in self.follows.items():
            if follow.lagging and not follow.filling and follow.retry is None:  # a retry waits its turn
                self._start_fill(game_id, follow)

    def _start_fill(self, game_id: str, follow: Follow, from_v: int | None = None) -> None:
        follow.filling = True
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
        follow.filling = True
        failed: Exception | None = None
        try:
            start = follow.fill_from = follow.v if from_v is None else from_v
            found = await self.ctx.store.diffs_since(game_id, start)
            if self.follows.get(game_id) is not follow:
                return
            if found is None or len(found[1]) > max(1, self.settings.send_queue // 2):
                stored = await self.ctx.store.load(game_id)
                if stored is None or self.follows.get(game_id) is not follow:
                    return
                self._push(encode(snapshot(stored, follow.role), self.codec), broadcast=False)
                follow.v = stored.v
            else:
                current, packed = found
                for raw in packed:
                    frame = (
                        raw if self.codec == MSGPACK else Envelope(channel(game_id), raw, unpack(raw)).json
                    )
                    self._push(frame, broadcast=False)
                follow.v = current
            follow.lagging = False
            follow.failures = 0
        except Exception as exc:
            log.warning("fill failed for %s: %r", game_id, exc)
            follow.lagging = True
            failed = exc
        finally:
            follow.filling = False
        if failed is not None:
            self._retry_fill(game_id, follow)
            if answer:
                raise failed
            return
        pending, follow.pending = follow.pending, []
        for envelope in pending:
            self._offer(game_id, follow, envelope)
        if follow.again and not follow.filling and self.follows.get(game_id) is follow:
            from_again, follow.again, follow.again_from = follow.again_from, False, None
            self._start_fill(game_id, follow, from_again)

    def _retry_fill(self, game_id: str, follow: Follow) -> None:
        """One pending retry per game at a time, cancelled when the game is no longer followed."""
        if follow.retry is not None:
            return
        delay = min(FILL_RETRY_S * 2**follow.failures, FILL_RETRY_MAX_S)
        follow.failures += 1

        def again() -> None:
            follow.retry = None
            if self.follows.get(game_id) is follow and not follow.filling and not self.closing:
                self._start_fill(game_id, follow)

        follow.retry = asyncio.get_running_loop().call_later(delay, again)

    async def shutdown(self) -> None:
        for follow in self.follows.values():
            _cancel_retry(follow)
        self.follows.clear()
        for name in list(self.channels):
            with contextlib.suppress(Exception):
                await self.ctx.hub.unsubscribe(name, self)
        self.channels.clear()
        for task in list(self._tasks or ()):
            task.cancel()


def _cancel_retry(follow: Follow) -> None:
    if follow.retry is not None:
        follow.retry.cancel()
        follow.retry = None


def snapshot(stored: Stored, role: str) -> dict[str, Any]:
    return {
        "t": "snapshot",
        "game": stored.id,
        "v": stored.v,
        "role": role,
        "state": public_state(stored.game, stored.hidden, stored.meta),
    }
