"""The daily challenge as a race: an attempt is a one-seat race on the day's code, started at once; the
player's status of the day (``daily``). The day's code, first attempts, results and streaks live in
``daily.py``."""

from __future__ import annotations

import asyncio
import time
from datetime import date
from typing import Any

from golfrace.store.keys import seat_id, seat_of
from golfrace.wire.ids import new_race_id

from .daily import day_of, next_day_ms, share_text
from .race import Race, RaceOptions
from .service import RaceService


async def daily_play(service: RaceService, player: str, name: str, account: bool = True) -> Race:
    """An account's ranked attempt of the day, claimed atomically (``DailyBook.claim_first``): every tab
    asking at once gets that one attempt while it runs; once it has ended, a practice attempt. A guest
    (``account`` false) gets an attempt of the day's guest deal, never the day's deal (fair play 19.1)."""
    now = service.clock()
    day = day_of(now)
    if not account:
        return await _guest_attempt(service, player, name, day, now)
    code = await service.daily.code(day)
    race_id = new_race_id()
    game_id = seat_id(race_id, 1)

    def attempt(ranked: bool) -> Race:  # built (and its name checked) before the attempt is claimed
        return Race.create(
            race_id,
            code,
            host=player,
            name=name,
            now=now,
            options=RaceOptions(undo=True, time_limit_s=0, seats=1),
            ranked=ranked,
            daily=day.isoformat(),
            settings=service.settings,
        ).start(player, now, service.settings)

    ranked = attempt(True)
    for _ in range(3):  # a claimant that failed to store its attempt released the claim: claim again
        holder = await service.daily.claim_first(day, player, game_id)
        if holder == game_id:
            try:
                await service.insert(ranked, service.seat_games(ranked)[1])
            except BaseException:
                await service.daily.release(day, player, game_id)
                raise
            service.tasks.spawn(service.compute_par(ranked))  # created started: start() does not run for it
            return ranked
        first = await _claimed_attempt(service, day, player, holder)
        if first is not None and first.ended_at is None:
            return first
        if first is not None or await service.daily.first_game(day, player) == holder:
            break  # it has ended (or never got stored): practice
    practice = attempt(False)
    await service.insert(practice, service.seat_games(practice)[1])
    service.tasks.spawn(service.compute_par(practice))
    return practice


async def _guest_attempt(service: RaceService, player: str, name: str, day: date, now: int) -> Race:
    """A guest's daily attempt: the day's guest deal, unranked, no claim, no result, no streak; as many as
    the guest likes (each is charged to the network's ``daily`` bucket like any attempt)."""
    race = Race.create(
        new_race_id(),
        await service.daily.guest_code(day),
        host=player,
        name=name,
        now=now,
        options=RaceOptions(undo=True, time_limit_s=0, seats=1),
        ranked=False,
        daily=day.isoformat(),
        guest_deal=True,
        settings=service.settings,
    ).start(player, now, service.settings)
    await service.insert(race, service.seat_games(race)[1])
    service.tasks.spawn(service.compute_par(race))
    return race


async def _claimed_attempt(service: RaceService, day: date, player: str, game_id: str) -> Race | None:
    """The race of the claimed attempt ``game_id``, waiting up to ``daily_claim_wait_s`` for the tab that
    claimed it to store it; None if it does not appear (or its claim is released meanwhile)."""
    split = seat_of(game_id)
    if split is None:
        return None
    deadline = time.monotonic() + service.settings.daily_claim_wait_s
    while True:
        race = await service.load(split[0])
        if race is not None:
            return race
        if time.monotonic() >= deadline or await service.daily.first_game(day, player) != game_id:
            return None
        await asyncio.sleep(0.01)


async def daily_status(service: RaceService, player: str) -> dict[str, Any]:
    now = service.clock()
    day = day_of(now)
    first = await service.daily.first_game(day, player)
    result = await service.daily.result(day, player)
    if first is not None and result is None and await _ended(service, first):
        result = await service.daily.result(day, player)  # its end's aftermath, completed by that read
    streak = await service.daily.streak(player)
    out: dict[str, Any] = {
        "date": day.isoformat(),
        "next_at": next_day_ms(now),
        "next_in": next_day_ms(now) - now,
        "played": first is not None,
        "result": result,
        "streak": streak.current(day),
        "best_streak": streak.best,
        "code": None,
        "share": None,
    }
    if result is not None:  # the code: not before the day is over (fair play 11.2), so never here
        out["share"] = share_text(
            day.isoformat(), result["score"], result["elapsed"], result["moves"], result["left"]
        )
    return out


async def _ended(service: RaceService, game_id: str) -> bool:
    """Whether the attempt ``game_id`` has ended. Its race is read the way any touch reads it, so an end whose
    aftermath has not run yet (still running on the instance that ended it, or that instance died) is
    completed first: a player who opens the Daily tab as their attempt ends sees its result, not
    "Continue"."""
    split = seat_of(game_id)
    race = None if split is None else await service.load(split[0])
    return race is not None and race.ended_at is not None
