"""What one connection sends and when, as a state machine without I/O (in the manner of websockets'
``protocol.py``): the games it follows with the version its client holds, and its bounded send queue.

Events go in as method calls — a diff arrived (``diff_arrived``), a fill is done or failed, the client asked
for a resync, the queue drained, a retry is due — and come out as frames in ``outbox`` (the adapter writes
them to the socket in order) and as actions for the adapter to carry out: ``Fill`` (read the store from a
version on), ``RetryAfter`` (call ``retry_due`` in so many seconds), ``CancelRetry`` and ``Close``. No
asyncio, sockets or Redis here; ``session.py`` is the adapter, ``followed.py`` holds the data types. Frames
are opaque to the machine.

The rules: the client gets each version of a game exactly once and in order. A diff at the version after
the one it holds is queued; an older one is skipped (our own echo, or covered by a snapshot); a later one
opens a gap, filled from the store (``Fill``) while later diffs wait in ``pending``. A broadcast to a full
queue is dropped and its game is ``lagging`` until the queue drains, then filled. Answers are never dropped;
a queue that stays full for ``slow_grace`` seconds, or holds twice its size, closes the connection (4008).
A stream that is not a game (``Follow.source``: a watcher's race) follows the same rules: its events come as
a tuple of frames at one version each (all queued, or the stream is ``lagging``), its fills are snapshots.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from golfrace.live.follow_state import (
    NONE,
    Action,
    CancelRetry,
    Close,
    Fill,
    Follow,
    RetryAfter,
    StreamSource,
)
from golfrace.wire.protocol import CLOSE_TOO_SLOW

intern = sys.intern
"""Game ids are keys interned (so is a broadcast's, ``hub.Envelope``): a diff's look-up among the games
followed matches by identity, without reading the key's text."""


class Connection:
    """The follow/fill and send-queue state of one connection. Every event method returns the actions it
    caused (often none); frames to write are appended to ``outbox``."""

    __slots__ = (
        "_actions",
        "_lagging",
        "_last_follow",
        "_last_game",
        "clock",
        "close_code",
        "fill_retry_max_s",
        "fill_retry_s",
        "follows",
        "full_since",
        "on_drop",
        "outbox",
        "pending_limit",
        "send_queue",
        "slow_grace",
    )

    def __init__(
        self,
        *,
        send_queue: int,
        slow_grace: float,
        pending_limit: int,
        fill_retry_s: float,
        fill_retry_max_s: float,
        clock: Callable[[], float],
        on_drop: Callable[[], None] | None = None,
    ) -> None:
        self.send_queue = send_queue
        self.slow_grace = slow_grace
        self.pending_limit = pending_limit
        self.fill_retry_s = fill_retry_s
        self.fill_retry_max_s = fill_retry_max_s
        self.clock = clock
        """Seconds, monotonic: only read when the queue is full (the slow-client rule)."""
        self.on_drop = on_drop
        """Called for each broadcast dropped at a full queue (a metric)."""
        self.follows: dict[str, Follow] = {}
        self.outbox: list[Any] | None = None
        """Frames to write, oldest first (at most twice ``send_queue``); None when empty (thousands of idle
        connections hold none)."""
        self.full_since: float | None = None
        self.close_code: int | None = None
        self._lagging = 0
        """Follows marked lagging by a drop since the queue last drained (a catch-up is due)."""
        self._actions: list[Action] | None = None
        self._last_game: str | None = None
        self._last_follow: Follow | None = None
        """The game last followed (its interned id) and its ``Follow``: ``diff_in_step`` finds a watcher's one
        game without the look-up in ``follows``; kept in step by every change of ``follows``."""

    # --- the send queue -------------------------------------------------------------------------------
    def answer(self, frame: Any) -> tuple[Action, ...]:
        """An answer to the client's own message: never dropped (a queue twice full closes instead)."""
        self._push(frame, broadcast=False)
        return self._take()

    def broadcast(self, frame: Any) -> tuple[Action, ...]:
        """A broadcast that is not a game's diff (race events…): dropped when the queue is full."""
        self._push(frame, broadcast=True)
        return self._take()

    def drained(self) -> tuple[Action, ...]:
        """Everything in ``outbox`` was written: games whose broadcasts were dropped are filled now."""
        if self.close_code is not None:
            return NONE
        if not self.outbox:
            self.outbox = None
        self.full_since = None
        if self._lagging:
            self._lagging = 0
            for game, follow in self.follows.items():
                if follow.lagging and not follow.filling and not follow.waiting:  # a retry waits its turn
                    self._fill(game, follow)
        return self._take()

    def close(self, code: int) -> bool:
        """Close with ``code``: queued frames are discarded. False when closing already."""
        if self.close_code is not None:
            return False
        self.close_code = code
        self.outbox = None
        return True

    @property
    def queued(self) -> int:
        return len(self.outbox) if self.outbox is not None else 0

    def _push(self, frame: Any, broadcast: bool) -> bool:
        if self.close_code is not None:
            return False
        queue = self.outbox
        if queue is None:
            self.outbox = [frame]
            return True
        if len(queue) >= self.send_queue:
            now = self.clock()
            if self.full_since is None:
                self.full_since = now
            if now - self.full_since > self.slow_grace or len(queue) >= 2 * self.send_queue:
                self._close_slow()
                return False
            if broadcast:
                if self.on_drop is not None:
                    self.on_drop()
                return False
        queue.append(frame)
        return True

    def _push_all(self, frames: tuple[Any, ...]) -> bool:
        """A stream's event: its frames as broadcasts, in order; False as soon as one is dropped (the stream
        lags: its catch-up snapshot covers the rest)."""
        return all(self._push(frame, broadcast=True) for frame in frames)

    def _check_slow(self) -> None:
        full = self.full_since
        if full is not None and self.queued >= self.send_queue and self.clock() - full > self.slow_grace:
            self._close_slow()

    def _close_slow(self) -> None:
        if self.close(CLOSE_TOO_SLOW):
            self._act(Close(CLOSE_TOO_SLOW))

    # --- following games ----------------------------------------------------------------------------
    def opening(self, game: str, role: str, source: StreamSource | None = None) -> Follow | None:
        """Before subscribing to a game (or a stream: ``source``) not followed yet: a placeholder that holds
        the diffs arriving until ``followed`` (a stream's: its first fill). None when followed already."""
        if game in self.follows:
            return None
        game = intern(game)
        placeholder = self.follows[game] = Follow(role, -1, filling=True, source=source)
        self._last_game, self._last_follow = game, placeholder
        return placeholder

    def abandon(self, game: str, placeholder: Follow | None) -> tuple[Action, ...]:
        """``open`` failed: drop its placeholder (a follow made meanwhile stays)."""
        if placeholder is not None and self.follows.get(game) is placeholder:
            self._drop(game, placeholder)
        return self._take()

    def followed(self, game: str, role: str, v: int, snapshot: Any) -> tuple[Action, ...]:
        """The game's snapshot at ``v`` goes to the client now (an answer); diffs that came while it was read
        are passed on through the version checks."""
        before = self.follows.get(game)
        if before is not None and before.waiting:
            self._act(CancelRetry(game))
        game = intern(game)
        follow = self.follows[game] = Follow(role, v)
        self._last_game, self._last_follow = game, follow
        self._push(snapshot, broadcast=False)
        if before is not None and before.v < 0:
            for v2, frm, frame in before.pending:
                self._offer(game, follow, v2, frm, frame)
            if before.again and not follow.filling:  # messages were missed meanwhile (hub resume)
                self._fill(game, follow)
        return self._take()

    def unfollowed(self, game: str) -> tuple[Action, ...]:
        follow = self.follows.get(game)
        if follow is not None:
            self._drop(game, follow)
        return self._take()

    def missed(self, game: str) -> tuple[Action, ...]:
        """Diffs of ``game`` may have been lost on the way (a pub/sub reconnect): fill, now or after the
        running fill."""
        follow = self.follows.get(game)
        if follow is not None and not self.defer_fill(follow):
            self._fill(game, follow)
        return self._take()

    def defer_fill(self, follow: Follow, from_v: int | None = None) -> bool:
        """While a fill runs (or ``open`` reads the game), a new reason to fill makes it go on once more when
        it ends, from ``from_v`` if that is older than where it started. False when none runs: the caller
        fills now."""
        if not follow.filling:
            return False
        follow.again = True
        if from_v is not None and from_v < follow.fill_from:
            follow.again_from = from_v if follow.again_from is None else min(follow.again_from, from_v)
        return True

    def diff_arrived(self, game: str, v: Any, frm: Any, frame: Any) -> tuple[Action, ...]:
        """A broadcast diff of ``game`` from version ``frm`` to ``v``."""
        follow = self.follows.get(game)
        if follow is not None and isinstance(v, int) and isinstance(frm, int):
            self._offer(game, follow, v, frm, frame)
            if self._actions is not None:
                return self._take()
        return NONE

    def diff_in_step(self, game: str, v: Any, frm: Any) -> bool:
        """The common case of ``diff_arrived``, decided without the queue (the fan-out's fast path): the
        connection is open with nothing queued or lagging, and the diff goes from the version the client
        holds of a game it follows in step (not filling, not lagging). Then the client's version moves on to
        ``v`` exactly as ``diff_arrived`` followed by ``drained`` would, and True tells the adapter to write
        the frame at once, only when its socket takes frames now; False: nothing changed, ``diff_arrived``
        decides."""
        if self.outbox is not None or self.close_code is not None or self._lagging:
            return False
        follow = self._last_follow if game is self._last_game else self.follows.get(game)
        if (
            follow is None
            or follow.v != frm
            or type(v) is not int
            or type(frm) is not int
            or v <= frm
            or follow.filling
            or follow.lagging
        ):
            return False
        follow.v = v
        self.full_since = None
        return True

    def _offer(self, game: str, follow: Follow, v: int, frm: int, frame: Any) -> None:
        if follow.filling:
            if len(follow.pending) < self.pending_limit:
                follow.pending.append((v, frm, frame))
            return
        if follow.lagging:
            self._check_slow()
            return  # left to the catch-up
        if v <= follow.v:
            return  # already sent (our own echo, or covered by a snapshot)
        if frm != follow.v:
            follow.pending.append((v, frm, frame))
            self._fill(game, follow)
            return
        if self._push_all(frame) if type(frame) is tuple else self._push(frame, broadcast=True):
            follow.v = v
        else:
            follow.lagging = True
            self._lagging += 1

    # --- fills ----------------------------------------------------------------------------------------
    def fill_started(self, follow: Follow, from_v: int | None = None) -> int:
        """A fill reads the store now; returns the version it reads from."""
        follow.filling = True
        follow.fill_from = follow.v if from_v is None else from_v
        return follow.fill_from

    def wants_snapshot(self, missed: int | None) -> bool:
        """A fill that found ``missed`` diffs in the store (None: the buffer no longer reaches back) sends a
        snapshot instead when they would take more than half the send queue."""
        return missed is None or missed > max(1, self.send_queue // 2)

    def is_current(self, game: str, follow: Follow) -> bool:
        return self.follows.get(game) is follow

    def fill_abandoned(self, follow: Follow) -> None:
        """The fill's game is no longer followed as ``follow`` (closed, or opened again): it just ends."""
        follow.filling = False

    def fill_done(self, game: str, follow: Follow, v: int, frames: list[Any]) -> tuple[Action, ...]:
        """The fill read ``frames`` (the missed diffs, or one snapshot) that bring the client to ``v``: they
        are queued as answers, then the diffs that waited meanwhile pass the version checks."""
        follow.filling = False
        if self.follows.get(game) is not follow:
            return NONE
        for frame in frames:
            self._push(frame, broadcast=False)
        follow.v = v
        follow.lagging = False
        follow.failures = 0
        pending, follow.pending = follow.pending, []
        for v2, frm, frame in pending:
            self._offer(game, follow, v2, frm, frame)
        if follow.again and not follow.filling:
            from_again, follow.again, follow.again_from = follow.again_from, False, None
            self._fill(game, follow, from_again)
        return self._take()

    def fill_failed(self, game: str, follow: Follow) -> tuple[Action, ...]:
        """The store could not be read (Redis away): tried again after a growing wait, one retry at a time."""
        follow.filling = False
        follow.lagging = True
        if not follow.waiting and self.follows.get(game) is follow:
            delay = min(self.fill_retry_s * 2**follow.failures, self.fill_retry_max_s)
            follow.failures += 1
            follow.waiting = True
            self._act(RetryAfter(game, follow, delay))
        return self._take()

    def retry_due(self, game: str, follow: Follow) -> tuple[Action, ...]:
        follow.waiting = False
        if self.follows.get(game) is follow and not follow.filling and self.close_code is None:
            self._fill(game, follow)
        return self._take()

    def shutdown(self) -> tuple[Action, ...]:
        """The connection ended: every armed retry is cancelled, nothing is followed or queued any more."""
        self.outbox = None
        for game, follow in list(self.follows.items()):
            self._drop(game, follow)
        return self._take()

    # --- internals ------------------------------------------------------------------------------------
    def _fill(self, game: str, follow: Follow, from_v: int | None = None) -> None:
        follow.filling = True
        self._act(Fill(game, follow, from_v))

    def _drop(self, game: str, follow: Follow) -> None:
        del self.follows[game]
        if self._last_follow is follow:
            self._last_game = self._last_follow = None
        if follow.waiting:
            follow.waiting = False
            self._act(CancelRetry(game))

    def _act(self, action: Action) -> None:
        if self._actions is None:
            self._actions = [action]
        else:
            self._actions.append(action)

    def _take(self) -> tuple[Action, ...]:
        actions = self._actions
        if actions is None:
            return NONE
        self._actions = None
        return tuple(actions)
