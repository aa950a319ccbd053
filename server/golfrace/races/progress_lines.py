"""A race's move events as one instance's followers get them: ``Moved`` (the event's ``race_progress`` and
``race_board``, each made once for every local follower) and ``ProgressLines`` (a racer's coalesced lines of
the others' progress). Used by ``followers.py``."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable

from golfrace.live.session import Session
from golfrace.store.pubsub import Envelope

__all__ = ["Moved", "ProgressLines"]


class ProgressLines:
    """The other racers' progress as one racer's connection gets it, coalesced: at most one send per
    ``progress_interval_ms`` (each seat's latest line, older ones dropped unsent), the first line after a
    quiet spell at once, a trailing send when the interval is up (so the last state always arrives), and at
    once for a status change (a racer done) and before any ``race`` view (which must not be overtaken by older
    lines). One pending timer at most; 0 sends every line at once."""

    __slots__ = ("clock", "interval_ms", "pending", "sent_at", "session", "timer")

    def __init__(self, session: Session, interval_ms: int, clock: Callable[[], int]) -> None:
        self.session = session
        self.interval_ms = interval_ms
        self.clock = clock
        self.pending: dict[int, Moved] = {}
        """Seat → its latest move event not sent yet."""
        self.sent_at: int | None = None
        self.timer: asyncio.TimerHandle | None = None

    def offer(self, seat: int, moved: Moved, urgent: bool) -> None:
        self.pending[seat] = moved
        if urgent or self.interval_ms <= 0:
            self.flush()
            return
        if self.timer is not None:
            return  # the trailing send takes the latest
        now = self.clock()
        wait_ms = 0 if self.sent_at is None else self.sent_at + self.interval_ms - now
        if wait_ms <= 0:
            self.flush()
            return
        # an empty context: the flush belongs to no request (the mover's, on whose turn this event came)
        self.timer = asyncio.get_running_loop().call_later(
            wait_ms / 1000, self.flush, context=contextvars.Context()
        )

    def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.pending:
            return
        lines, self.pending = self.pending, {}
        self.sent_at = self.clock()
        if self.session.closing:
            return
        for moved in lines.values():
            self.session.send_shared(moved.progress)

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.pending = {}


class Moved:
    """A seat's move event as its followers on this instance get it: ``race_progress`` for all, ``race_board``
    for watchers, each made when the first follower sends it (a racer's coalesced lines may never send it),
    encoded and framed once."""

    __slots__ = ("_board", "_progress", "event", "first", "now", "race_id", "v")

    def __init__(self, event: Envelope, race_id: str, now: int, v: int) -> None:
        self.event = event
        self.race_id = race_id
        self.first = True
        """Only while the event's first follower here handles it (what the instance does once)."""
        self.now = now
        self.v = v
        """The event's number here (``race_stream.EventNumbers``): the watchers' stream's version."""
        self._progress: Envelope | None = None
        self._board: Envelope | None = None

    @property
    def progress(self) -> Envelope:
        if self._progress is None:
            self._progress = Envelope.of(
                self.event.channel,
                {
                    "t": "race_progress",
                    "race": self.race_id,
                    "racer": self.event.message["progress"],
                    "now": self.now,
                    "v": self.v,
                },
            )
        return self._progress

    @property
    def board(self) -> Envelope:
        if self._board is None:
            msg = self.event.message
            self._board = Envelope.of(
                self.event.channel,
                {
                    "t": "race_board",
                    "race": self.race_id,
                    "board": msg["board"],
                    "diff": msg["diff"],
                    "v": self.v,
                },
            )
        return self._board
