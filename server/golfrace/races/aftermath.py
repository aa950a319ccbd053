"""The end of a race's aftermath: every racer's record, the leaderboards, the players' histories, the daily
result and streak, then the race marked ``finalized``. Each step is a write that a second run leaves as it
is, so it is safe to run twice or concurrently (``service.py``: whoever touches an ended race next)."""

from __future__ import annotations

import logging
from datetime import date
from typing import TYPE_CHECKING

from .. import metrics
from ..accounts import history
from .race import Race
from .racer import Seats
from .replay import GameRecord, review_reason, verify

if TYPE_CHECKING:
    from .service import RaceService

log = logging.getLogger("golfrace.races")


async def finish(service: RaceService, race: Race, seats: Seats) -> Race:
    """Keep every racer's record, post the results, close daily attempts, then mark the race finalized.
    Safe to run twice or concurrently; a failure leaves it to the next touch."""
    try:
        for racer in race.racers:
            if racer.finished_at is None or racer.seat not in seats:
                continue
            entries = await service.store.log(race.game_id(racer))
            moves = [(tok, int(ms)) for tok, _, ms in (e.partition(" ") for e in entries)]
            record = GameRecord.of(race, racer, moves)
            v = verify(record)  # a replay of the whole game: once per record
            await service.records.save(record)
            await service.boards.submit_record(record)
            await service.history.record(record.player, history.Finished.of_race(record, v))  # once per game
            if race.daily and race.ranked:
                result = {
                    "score": v.score,
                    "elapsed": record.elapsed,
                    "moves": v.moves,
                    "left": list(v.game.heights),
                    "game": record.game,
                    "status": record.status,
                    "review": review_reason(record, service.boards.checks),  # fair play: too fast?
                }
                day = date.fromisoformat(race.daily)
                await service.daily.finish(day, racer.player, result, ended_at=record.finished_at)
        await service.live.remove(race.id)
        done = await service.update(race.id, lambda r: r.finalize())
    except Exception:
        log.exception("finishing race %s failed; the next touch tries again", race.id)
        return race
    if done.after.finalized and not done.before.finalized:  # counted once, by the finalizing write
        for racer in done.after.racers:
            metrics.labelled(metrics.RACE_RESULTS, racer.status).inc()
    return done.after
