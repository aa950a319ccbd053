"""A server clock that tests move forward: ``create_app(settings, clock=MovableClock())`` (or
``running_server(settings, clock=...)``). It is the wall clock plus an offset, so a server on it runs as
usual, and the race timers wait on it (``races.timers.pause``): ``await clock.advance(s)`` ends a countdown,
a time limit or a lobby grace now instead of after real seconds, and returns once every timer that was due
has run."""

from __future__ import annotations

import asyncio
import contextlib
import time

SETTLE_S = 10.0
"""The longest ``advance`` waits for the timers it woke to run (a test's timeout, not a pause)."""


class MovableClock:
    def __init__(self, at_ms: int | None = None) -> None:
        self.offset_ms = 0 if at_ms is None else at_ms - self._wall()
        self._sleepers: dict[asyncio.Future[None], asyncio.Task[object] | None] = {}
        """A future per ``sleep`` in progress → the task that sleeps on it."""

    @staticmethod
    def _wall() -> int:
        return int(time.time() * 1000)

    def __call__(self) -> int:
        return self._wall() + self.offset_ms

    async def sleep(self, seconds: float) -> None:
        """Until ``seconds`` of this clock's time have passed: real time, or ``advance``, whichever first."""
        until = self() + seconds * 1000
        loop = asyncio.get_running_loop()
        while (left_ms := until - self()) > 0:
            woken: asyncio.Future[None] = loop.create_future()
            self._sleepers[woken] = asyncio.current_task()
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken, left_ms / 1000)
            finally:
                self._sleepers.pop(woken, None)

    def sleeping(self) -> int:
        """How many tasks sleep on this clock now (a test's positive marker: a timer has been armed)."""
        return len({task for task in self._sleepers.values()})

    def set(self, at_ms: int) -> None:
        """Jump to ``at_ms`` (ms since the epoch, either way); the sleepers wake to look at the time again."""
        self.offset_ms = at_ms - self._wall()
        for woken in list(self._sleepers):
            if not woken.done():
                woken.set_result(None)

    async def advance(self, seconds: float) -> None:
        """Move the time ``seconds`` on, and wait until every task that slept on this clock has either run
        to its end or gone back to sleep (its time has not come yet): what was due has happened."""
        self.offset_ms += round(seconds * 1000)
        sleepers, self._sleepers = self._sleepers, {}
        for woken in sleepers:
            if not woken.done():
                woken.set_result(None)
        tasks = {task for task in sleepers.values() if task is not None}
        deadline = time.monotonic() + SETTLE_S
        while any(not task.done() and task not in self._sleepers.values() for task in tasks):
            if time.monotonic() > deadline:
                raise TimeoutError(f"timers still running {SETTLE_S} s after the clock moved")
            await asyncio.sleep(0.005)

    async def advance_to(self, at_ms: int) -> None:
        """``advance`` to ``at_ms`` (ms since the epoch), if that is still to come."""
        await self.advance(max(0, at_ms - self()) / 1000)
