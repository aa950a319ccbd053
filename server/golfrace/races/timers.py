"""When time alone changes a race (its time limit, an idle racer's forfeit): one timer per race per instance,
and the retry loop behind it and behind other best-effort race work while Redis is away."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from redis.exceptions import RedisError

from golfrace.live.tasks import Tasks
from golfrace.wire.errors import cause

from .errors import RaceError

log = logging.getLogger("golfrace.races")
Clock = Callable[[], int]


class SleepingClock(Protocol):
    """A clock that also waits by its own time: a test's, moved forward at will (tests/clock.py), so that a
    timer whose time it passes fires at once instead of after real seconds."""

    def __call__(self) -> int: ...

    async def sleep(self, seconds: float) -> None: ...

    def monotonic(self) -> float: ...


async def pause(clock: Clock | SleepingClock, seconds: float) -> None:
    """Wait ``seconds`` of ``clock``'s time: its own ``sleep`` where it has one, else real seconds (the wall
    clock). Every race timer (time limit, idle forfeit, lobby grace, the sweeper, the completion of an end
    seen from another instance) waits through this."""
    sleep = getattr(clock, "sleep", None)
    if sleep is not None:
        await sleep(seconds)
    else:
        await asyncio.sleep(seconds)


def monotonic(clock: Clock | SleepingClock) -> Callable[[], float]:
    """Seconds that never go back, on ``clock``'s time: its own ``monotonic`` where it has one, else
    ``time.monotonic`` (for intervals: a wall clock set back must not stall them)."""
    own: Callable[[], float] | None = getattr(clock, "monotonic", None)
    return own if own is not None else time.monotonic


SETTLE_RETRY_S = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
"""Waits between attempts to settle a race (time limit, idle racers) while Redis is unreachable."""


async def retrying(
    attempt: Callable[[], Awaitable[None]],
    waits: Sequence[float],
    settled: tuple[type[BaseException], ...],
    what: str,
) -> None:
    """Await ``attempt`` until it returns or raises one of ``settled`` (nothing left to do); any other failure
    (Redis away) is logged and the next attempt comes after the next of ``waits``. One attempt more than there
    are waits: the last comes after the last wait, and if it fails too that is logged as giving up."""
    for wait in (*waits, None):
        try:
            await attempt()
            return
        except settled:
            return
        except Exception as exc:
            # Redis away (a restart, a failover) is routine: one line with its cause; anything else is a bug
            routine = isinstance(exc, RedisError | OSError)
            if wait is None:
                log.error(
                    "%s failed; giving up after %d attempts: %s", what, len(waits) + 1, cause(exc),
                    exc_info=not routine,
                )  # fmt: skip
                return
            log.warning("%s failed (%s); retrying in %g s", what, cause(exc), wait, exc_info=not routine)
            await asyncio.sleep(wait)


class Timers:
    """Race id → when this instance's timer for the race fires (``Race.next_check``). Every instance that
    loads, writes or follows a running race keeps one, so the race ends on time while any instance that
    serves it is alive (the one that started it may be gone); the race's compare-and-set makes the timers of
    several instances change it once."""

    def __init__(self, clock: Clock, settle: Callable[[str], Awaitable[None]], tasks: Tasks) -> None:
        self.clock = clock
        self.settle = settle
        """Settles the race now (and arms the next timer); a RaceError: gone, nothing to do."""
        self.tasks = tasks
        self._at: dict[str, int] = {}

    def arm(self, race_id: str, at: int | None, ended_at: int | None) -> None:
        """Make sure a timer settles the race at ``at``. One timer per race: a later time waits for the
        earlier timer, which re-arms for the race's next check when it fires."""
        if at is None or ended_at is not None:
            return
        current = self._at.get(race_id)
        if current is not None and current <= at:
            return
        self._at[race_id] = at
        self.tasks.spawn(self._fire_at(race_id, at))

    async def _fire_at(self, race_id: str, at: int) -> None:
        try:
            await pause(self.clock, max(0.0, (at - self.clock()) / 1000) + 0.01)
        finally:
            if self._at.get(race_id) == at:
                del self._at[race_id]
        # a RaceError: gone, or settled by someone else meanwhile (any load or move settles it as well)
        await retrying(lambda: self.settle(race_id), SETTLE_RETRY_S, (RaceError,), f"settling race {race_id}")
