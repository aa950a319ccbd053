"""The end of a race, completed on any instance: its aftermath (``aftermath.finish``) with a backoff after a
failure, the due "to finish" records (``finishing.py``) taken at start-up and every sweep, and the ends seen
on another instance's events, checked a few sweeps later in case that instance died first. Part of
``RaceService`` (``service.ending``).

The end of a race is idempotent and completed by whoever next touches it: the write that ends it marks it
``ended_at``, preceded by the race's durable "to finish" record (``finishing.py``), which every instance
completes at start-up and every sweep, with retry and backoff, so the end needs no touch; the aftermath
(records, leaderboards, personal bests, the daily result and streak — each a write that a second run leaves
as it is) runs next, by that writer or, if it died, by the next load, write
or timer of any instance; then ``finalized`` is set with another compare-and-set (and the results counted).
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from golfrace.wire.errors import cause

from . import aftermath
from .errors import RaceError
from .finishing import backoff
from .race import Race
from .racer import Seats
from .timers import SETTLE_RETRY_S, pause, retrying

if TYPE_CHECKING:
    from .service import RaceService

log = logging.getLogger("golfrace.races")
COMPLETE_AFTER_SWEEPS = 4
"""Sweeps an instance waits after seeing a race end elsewhere before it checks that the end was completed
(the instance that ended it normally has by then)."""


class Ending:
    """A race service's ends (``service.ending``): see the module's docstring."""

    def __init__(self, service: RaceService) -> None:
        self.service = service
        self.failures: dict[str, int] = {}
        """Race id → failed attempts at its end's aftermath here (the backoff of the next)."""
        self.completing: set[str] = set()
        """Races whose end seen elsewhere this instance checks later (``later``)."""

    async def finish(self, race: Race, seats: Seats) -> Race:
        """The end's aftermath (``aftermath.finish``). A failure is logged and the race's "to finish" record
        is put back for a retry after a backoff (``due``, on any instance); the race is returned as it
        is (ended, not finalized)."""
        try:
            done = await aftermath.finish(self.service, race, seats)
        except Exception as exc:
            failures = self.failures[race.id] = self.failures.get(race.id, 0) + 1
            wait = backoff(failures)
            routine = isinstance(exc, RedisError | OSError)
            log.warning(
                "finishing race %s failed (%s); retrying in %g s",
                race.id,
                cause(exc),
                wait,
                exc_info=not routine,
            )
            with contextlib.suppress(Exception):  # Redis away: the record is still due, taken next sweep
                await self.service.finishing.later(race.id, self.service.clock() + int(wait * 1000))
            return race
        self.failures.pop(race.id, None)
        return done

    async def due(self) -> int:
        """Complete the ends whose "to finish" record is due (``finishing.py``): at start-up and every sweep.
        Returns how many were taken."""
        now = self.service.clock()
        due = await self.service.finishing.due(now)
        for key, race_id in due:
            try:
                found = await self.service.load_with_seats(race_id)  # completes an unfinished end
            except RaceError:
                found = None
            except Exception as exc:  # Redis away: later, with the backoff
                failures = self.failures[race_id] = self.failures.get(race_id, 0) + 1
                log.warning("completing the end of race %s failed: %s", race_id, cause(exc))
                with contextlib.suppress(Exception):
                    await self.service.finishing.later(race_id, now + int(backoff(failures) * 1000), key)
                continue
            if found is None or found[0].finalized:
                await self.service.finishing.done(race_id, key)
                self.failures.pop(race_id, None)
            elif found[0].ended_at is None:  # its end's write lost a compare-and-set: look again later
                failures = self.failures[race_id] = self.failures.get(race_id, 0) + 1
                await self.service.finishing.later(race_id, now + int(backoff(failures) * 1000), key)
        return len(due)

    async def sweep(self) -> None:
        """Every ``sweep_interval_s`` from start-up on: ``due``; Redis away is logged, then retried."""
        while True:
            try:
                await self.due()
            except Exception as exc:
                log.warning("completing due race ends failed: %s", cause(exc))
            await pause(self.service.clock, self.service.settings.sweep_interval_s)

    def later(self, race_id: str) -> None:
        """A race ended, or a seat of it, on another instance (its event came here): should that instance
        die before it followed (the race's update, the end's aftermath), this one does after a few sweeps
        (reading the race does, if still needed)."""
        if race_id in self.completing:
            return
        self.completing.add(race_id)

        async def complete() -> None:
            try:
                service = self.service
                await pause(service.clock, COMPLETE_AFTER_SWEEPS * service.settings.sweep_interval_s)
                await retrying(
                    lambda: self._complete(race_id), SETTLE_RETRY_S, (RaceError,), f"ending {race_id}"
                )
            finally:
                self.completing.discard(race_id)

        self.service.tasks.spawn(complete())

    async def _complete(self, race_id: str) -> None:
        await self.service.load_with_seats(race_id)  # reading a race completes its end, if still needed
