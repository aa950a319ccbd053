"""The races anyone may watch now: lobbies about to start and started races, not over, not a daily attempt.

Key ``races:{live}``: a sorted set of race ids scored by ``starts_at`` (ms), or for a lobby by its creation.
A race is added when it is created (``RaceService.create``) and again when its host starts it
(``RaceService.start``), and taken out when it ends; the listing also drops what it finds over or gone (an
instance that died before the race ended, a lobby whose racers all left), so the set heals itself. The key
expires ``race_ttl_s`` after the last race was added (a race listed in it expires as soon). A race whose
racers all went away ends by their idle forfeit (``Race.out_at``) and leaves the list then.

What a stranger learns from the list: the race id (the watch link) of a started race, never of a lobby (its
id would let a stranger take its seats: a lobby is listed with ``race`` null, as a race about to start), its
rules, phase, start, time limit and watcher count, and per racer the name, seat, status, score and cards
removed. Never a code (a ranked race's code is secret until it ends), never a card, never a player id. A
daily attempt is never listed: everyone plays the same deal, so watching another player's attempt would show
the day's stock before one's own.
"""

from __future__ import annotations

from typing import Any

from golfrace.store import race_keys
from golfrace.store.games import Batch, RedisClient

from .race import Phase, Race
from .racer import Seats

LIVE_KEY = race_keys.LIVE


def listed(race: Race) -> bool:
    """Whether ``race`` belongs in the list of live races (a lobby or started, not over, not a daily
    attempt)."""
    return race.daily is None and race.ended_at is None


def summary(race: Race, seats: Seats, now: int, watchers: int) -> dict[str, Any]:
    """One entry of the list: numbers and names only (no code, no card, no player id)."""
    racers = []
    for r in race.racers:
        seat = seats.get(r.seat)
        racers.append(
            {
                "seat": r.seat,
                "name": r.name,
                "status": r.status,
                "score": r.final_score(seat),
                "removed": seat.game.removed if seat else 0,
            }
        )
    phase = race.phase(now)
    return {
        "race": None if phase is Phase.LOBBY else race.id,  # fair play: a lobby's id lets one join it
        "phase": phase.value,
        "rules": race.code.rules.value,
        "ranked": race.ranked,
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "watchers": watchers,
        "racers": racers,
    }


class LiveRaces:
    """The index of live races in Redis (one key; see the module's docstring)."""

    def __init__(self, redis: RedisClient, keep: int, ttl_s: int, batch: Batch | None = None) -> None:
        self.redis = redis
        self.batch = batch
        """The store's batcher, when given: the index's writes join the iteration's batch."""
        self.keep = keep
        """The most races the index holds (the oldest starts go first)."""
        self.ttl_s = ttl_s
        """The index expires this long after the last race was added (the races' own ``race_ttl_s``)."""

    async def add(self, race: Race) -> None:
        if not listed(race):
            return
        score = race.starts_at or race.created_at
        if self.batch is not None:
            await self.batch.transaction(
                [
                    ("ZADD", LIVE_KEY, score, race.id),
                    ("ZREMRANGEBYRANK", LIVE_KEY, 0, -self.keep - 1),
                    ("EXPIRE", LIVE_KEY, self.ttl_s),
                ]
            )
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(LIVE_KEY, {race.id: score})
            pipe.zremrangebyrank(LIVE_KEY, 0, -self.keep - 1)
            pipe.expire(LIVE_KEY, self.ttl_s)
            await pipe.execute()

    async def remove(self, race_id: str) -> None:
        if self.batch is not None:
            await self.batch.call("ZREM", LIVE_KEY, race_id)
        else:
            await self.redis.zrem(LIVE_KEY, race_id)

    async def newest(self, n: int) -> list[str]:
        ids = await self.redis.zrevrange(LIVE_KEY, 0, n - 1)
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]


async def live_list(service: Any, now: int, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` live races, the latest start first. Races found over or gone leave the index (reading
    a race settles it from its seats, and completes an end nobody processed)."""
    live: LiveRaces = service.live
    ids = await live.newest(limit * 2)  # some may turn out to be over
    out: list[dict[str, Any]] = []
    gone: list[str] = []
    for race_id in ids:
        found = await service.load_with_seats(race_id)
        if found is None or found[0].ended_at is not None or not listed(found[0]):
            gone.append(race_id)
            continue
        if len(out) < limit:
            race, seats = found
            out.append(summary(race, seats, now, await service.presence.watchers(race_id)))
    if gone:
        await service.redis.zrem(LIVE_KEY, *gone)
    return out
