"""The races anyone may watch now: started, not over, not a daily attempt.

Key ``races:{live}``: a sorted set of race ids scored by ``starts_at`` (ms). A race is added when its host
starts it (``RaceService.start``) and taken out when it ends; the listing also drops what it finds over or
gone (an instance that died before the race ended), so the set heals itself.

What a stranger learns from the list: the race id (the watch link), its rules, phase, start, time limit and
watcher count, and per racer the name, seat, status, score and cards removed. Never a code (a ranked race's
code is secret until it ends), never a card, never a player id. A daily attempt is never listed: everyone
plays the same deal, so watching another player's attempt would show the day's stock before one's own.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .race import Race
from .racer import Seats

LIVE_KEY = "races:{live}"


def listed(race: Race) -> bool:
    """Whether ``race`` belongs in the list of live races (started, not a daily attempt)."""
    return race.daily is None and race.starts_at is not None


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
    return {
        "race": race.id,
        "phase": race.phase(now).value,
        "rules": race.code.rules.value,
        "ranked": race.ranked,
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "watchers": watchers,
        "racers": racers,
    }


class LiveRaces:
    """The index of live races in Redis (one key; see the module's docstring)."""

    def __init__(self, redis: aioredis.Redis, keep: int) -> None:
        self.redis = redis
        self.keep = keep
        """The most races the index holds (the oldest starts go first)."""

    async def add(self, race: Race) -> None:
        if not listed(race) or race.starts_at is None:
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(LIVE_KEY, {race.id: race.starts_at})
            pipe.zremrangebyrank(LIVE_KEY, 0, -self.keep - 1)
            await pipe.execute()

    async def remove(self, race_id: str) -> None:
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


async def live_endpoint(request: Request) -> Response:
    """``GET /api/races/live``: the races one may watch now (see the module's docstring for what it shows)."""
    service = request.app.state.ctx.extras["races"].service
    now = service.clock()
    races = await live_list(service, now, service.settings.live_list_max)
    return JSONResponse({"races": races, "now": now})


def routes() -> list[BaseRoute]:
    return [Route("/api/races/live", live_endpoint)]
