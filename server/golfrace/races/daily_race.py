"""The daily challenge as a race: an attempt is a one-seat race on the day's code, started at once; the
player's status of the day (``daily``). The day's code, first attempts, results and streaks live in
``daily.py``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..store import seat_id
from .daily import day_of, next_day_ms, share_text
from .race import Race, RaceOptions
from .service import RaceService, new_race_id, split_game_id


async def daily_play(service: RaceService, player: str, name: str) -> Race:
    """The player's attempt at today's challenge: the unfinished first (ranked) attempt again, else a new
    one (ranked when it is the first of the day, practice after it)."""
    now = service.clock()
    day = day_of(now)
    first_game = await service.daily.first_game(day, player)
    if first_game is not None:  # the ranked first attempt is finished before any practice
        split = split_game_id(first_game)
        first_race = await service.load(split[0]) if split else None
        if first_race is not None and first_race.ended_at is None:
            return first_race
    code = await service.daily.code(day)
    race_id = new_race_id()
    race = Race.create(  # built (and its name checked) before the attempt is claimed
        race_id,
        code,
        host=player,
        name=name,
        now=now,
        options=RaceOptions(undo=True, time_limit_s=0, seats=1),
        ranked=True,
        daily=day.isoformat(),
        settings=service.settings,
    ).start(player, now, service.settings)
    game_id = seat_id(race_id, 1)
    if not await service.daily.claim(day, player, game_id):
        race = replace(race, ranked=False)  # a practice attempt
    try:
        await service.insert(race, service.seat_games(race)[1])
    except BaseException:
        if race.ranked:
            await service.daily.release(day, player, game_id)
        raise
    return race


async def daily_status(service: RaceService, player: str) -> dict[str, Any]:
    now = service.clock()
    day = day_of(now)
    result = await service.daily.result(day, player)
    streak = await service.daily.streak(player)
    out: dict[str, Any] = {
        "date": day.isoformat(),
        "next_at": next_day_ms(now),
        "next_in": next_day_ms(now) - now,
        "played": await service.daily.first_game(day, player) is not None,
        "result": result,
        "streak": streak.current(day),
        "best_streak": streak.best,
        "code": None,
        "share": None,
    }
    if result is not None:
        out["code"] = str(await service.daily.code(day))
        out["share"] = share_text(
            day.isoformat(), result["score"], result["elapsed"], result["moves"], result["left"]
        )
    return out
