"""A server clock that tests move forward: ``create_app(settings, clock=MovableClock())`` (or
``running_server(settings, clock=...)``). It is the wall clock plus an offset, so a server on it runs as
usual, and its timers wait on it (``races.timers.pause``: the race timers, the sweeper, the completion of an
end seen from another instance; ``monotonic``: the sweeper's refresh rounds, a slow client's grace):
``await clock.advance(s)`` ends a countdown, a time limit, a lobby grace or a slow client's grace now instead
of after real seconds, and returns once every timer that was due has run."""

from __future__ import annotations

import asyncio
import contextlib
import time

SETTLE_S = 10.0
"""The longest ``advance`` waits for the timers it woke to run (a test's timeout, not a pause)."""


class MovableClock:
    def __init__(self, at_ms: int | None = None) -> None:
        self.offset_ms = 0 if at_ms is None else at_ms - self._wall()
        self.moved_ms = 0
        """How far the clock was moved forward in all (``monotonic`` adds it; a move back does not count)."""
        self._sleepers: dict[asyncio.Future[None], tuple[asyncio.Task[object] | None, float]] = {}
        """A future per ``sleep`` in progress → the task that sleeps on it, and until when (ms)."""

    @staticmethod
    def _wall() -> int:
        return int(time.time() * 1000)

    def __call__(self) -> int:
        return self._wall() + self.offset_ms

    def monotonic(self) -> float:
        """``time.monotonic`` plus every move forward (seconds): what the server measures intervals with."""
        return time.monotonic() + self.moved_ms / 1000

    async def sleep(self, seconds: float) -> None:
        """Until ``seconds`` of this clock's time have passed: real time, or ``advance``, whichever first."""
        until = self() + seconds * 1000
        loop = asyncio.get_running_loop()
        while (left_ms := until - self()) > 0:
            woken: asyncio.Future[None] = loop.create_future()
            self._sleepers[woken] = (asyncio.current_task(), until)
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken, left_ms / 1000)
            finally:
                self._sleepers.pop(woken, None)

    def sleeping(self, longer_than: float = 0.0) -> int:
        """How many tasks sleep on this clock now for more than ``longer_than`` seconds of its time (a test's
        positive marker: a timer has been armed; ``longer_than`` leaves out the sweeper's short rounds)."""
        now = self()
        return len({task for task, until in self._sleepers.values() if until - now > longer_than * 1000})

    def set(self, at_ms: int) -> None:
        """Jump to ``at_ms`` (ms since the epoch, either way); the sleepers wake to look at the time again."""
        offset = at_ms - self._wall()
        self.moved_ms += max(0, offset - self.offset_ms)
        self.offset_ms = offset
        for woken in list(self._sleepers):
            if not woken.done():
                woken.set_result(None)

    async def advance(self, seconds: float) -> None:
        """Move the time ``seconds`` on, and wait until every task that slept on this clock has either run
        to its end or gone back to sleep (its time has not come yet): what was due has happened."""
        self.offset_ms += round(seconds * 1000)
        self.moved_ms += max(0, round(seconds * 1000))
        sleepers, self._sleepers = self._sleepers, {}
        for woken in sleepers:
            if not woken.done():
                woken.set_result(None)
        tasks = {task for task, _until in sleepers.values() if task is not None}
        deadline = time.monotonic() + SETTLE_S
        while any(not task.done() and task not in self._asleep() for task in tasks):
            if time.monotonic() > deadline:
                raise TimeoutError(f"timers still running {SETTLE_S} s after the clock moved")
            await asyncio.sleep(0.005)

    def _asleep(self) -> set[asyncio.Task[object] | None]:
        return {task for task, _until in self._sleepers.values()}

    async def advance_to(self, at_ms: int) -> None:
        """``advance`` to ``at_ms`` (ms since the epoch), if that is still to come."""
        await self.advance(max(0, at_ms - self()) / 1000)
