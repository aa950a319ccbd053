"""The end of a race's aftermath: every racer's record, the leaderboards, the players' histories, the daily
result and streak, then the race marked ``finalized``. Each step is a write that a second run leaves as it
is, so it is safe to run twice or concurrently (``service.py``: the writer of the end, whoever touches the
ended race next, and every instance's sweep of the durable "to finish" record, ``finishing.py``)."""

from __future__ import annotations

import contextlib
from datetime import date
from typing import TYPE_CHECKING

from golfrace.live import metrics
from golfrace.store.history import Finished

from . import fair_play, knowledge
from .race import Race
from .racer import Seats
from .replay import GameRecord, Verified, verify

if TYPE_CHECKING:
    from .service import RaceService


async def finish(service: RaceService, race: Race, seats: Seats) -> Race:
    """Keep every racer's record, post the results, close daily attempts, then mark the race finalized and
    drop its "to finish" record. Safe to run twice or concurrently. A failure (Redis away, a refused write)
    is raised, never swallowed: the caller retries (``RaceService._finish``: the durable record)."""
    for racer in race.racers:
        if racer.finished_at is None or racer.seat not in seats:
            continue
        entries = await service.store.log(race.game_id(racer))
        moves = [(tok, int(ms)) for tok, _, ms in (e.partition(" ") for e in entries)]
        record = GameRecord.of(race, racer, moves)
        v = verify(record)  # a replay of the whole game: once per record
        await service.records.save(record)
        await service.boards.submit_record(record)
        flags = fair_play.flags(race, racer, seats)  # fair play 19.2: to a person
        await service.boards.flag_for_review(record, flags)
        await service.history.record(record.player, finished(record, v))  # once per game
        review = await service.boards.review_of(record)  # fair play: too fast? pending? held?
        if review is not None and review != knowledge.PENDING:
            for heard in service.review_hooks:  # held for review: the extensions' steps (the pool's flag)
                await heard(record, review)
        if race.daily and race.ranked:
            result = {
                "score": v.score,
                "elapsed": record.elapsed,
                "moves": v.moves,
                "left": list(v.game.heights),
                "game": record.game,
                "status": record.status,
                "review": review,
            }
            day = date.fromisoformat(race.daily)
            await service.daily.finish(day, racer.player, result, ended_at=record.finished_at)
        if race.ranked and await knowledge.verdict(service.redis, record.game) == knowledge.PENDING:
            await service.reviews.take(record)  # after the daily result, which its verdict settles
    for hook in service.end_hooks:  # the extensions' steps (the pool's ratings), each idempotent
        await hook(race, seats)
    await service.live.remove(race.id)
    done = await service.update(race.id, lambda r: r.finalize())
    with contextlib.suppress(Exception):  # its shard away: the sweep finds the race finalized and drops it
        await service.finishing.done(race.id)
    if done.after.finalized and not done.before.finalized:  # counted once, by the finalizing write
        for racer in done.after.racers:
            metrics.labelled(metrics.RACE_RESULTS, racer.status).inc()
    return done.after


def finished(record: GameRecord, verified: Verified) -> Finished:
    """A race seat or a daily attempt as the players' history keeps it, from its record and the record's
    replay (the server's numbers)."""
    return Finished(
        record.game,
        "daily" if record.daily else "race",
        verified.game.code.rules.value,
        record.status,
        int(verified.score),
        int(verified.moves),
        int(record.elapsed),
        int(record.finished_at),
        bool(record.ranked),
        record.race,
        record.daily,
    )
