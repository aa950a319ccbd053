"""A quick race's ratings at its end, and fair play's holds on them (``PoolService`` hooks it into the races).

- A quick race that ends is rated (``rate_race``, a hook of the race's aftermath): once, idempotently, from
  its final order; a countdown leave is rated as a loss beyond ``dodge_limit`` in ``dodge_window_s``; held
  while a result is held for review (too fast, or waiting for its knowledge review), until the reviews clear
  it (``settle_held``, also run by ``on_review``, a hook of the races' fair-play verdicts, and by the wave
  leader's ``sweep_held``): applied once then, or never if one is found to know the stock.
- A player whose ranked result (a quick race's or any other) is held by fair play — too fast, or played
  knowing the stock — is flagged (``on_review``): paired only with the flagged from then on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from golfrace.settings.pool import PoolSettings
from golfrace.store import race_keys

from ..races import knowledge
from ..races.race import Race
from ..races.racer import Outcome, Seats, bot_strength
from ..races.replay import GameRecord
from . import policy
from .ratings import BOT_SIGMA, HELD, SCALE, Entrant, Held, Rating, Ratings, rate

if TYPE_CHECKING:
    from golfrace.live.services import Context

    from ..races.service import RaceService

SWEEP_BATCH = 32
"""Held races a wave's leader looks at again for a knowledge verdict no one heard (``sweep_held``)."""


class Aftermath:
    """The ratings of the quick races that end on this instance, and their fair-play holds."""

    def __init__(self, ctx: Context, races: RaceService, settings: PoolSettings, ratings: Ratings) -> None:
        self.ctx = ctx
        self.races = races
        self.settings = settings
        self.ratings = ratings

    async def rate_race(self, race: Race, seats: Seats) -> None:
        """The aftermath's hook: a ranked quick race's ratings, once (safe to run again)."""
        if not race.pool or not race.ranked or race.starts_at is None:
            return
        rules = race.code.rules.value
        now = self.races.clock()
        entrants: list[Entrant] = []
        held: Held = {}
        last: list[Entrant] = []
        """Countdown leaves beyond the allowance: rated as losses, below everyone who raced."""
        for racer in race.ranking(seats):
            strength = bot_strength(racer.player)
            if strength is not None:
                entrants.append(
                    Entrant(racer.player, Rating(policy.LADDER[strength] / SCALE, BOT_SIGMA), strength)
                )
                continue
            dodged = racer.outcome is Outcome.RESIGNED and (racer.finished_at or 0) < race.starts_at
            if dodged and await self.ctx.redis.sismember(race_keys.unseen(race.id), racer.player):
                continue  # gone before the race was made: not rated, no dodge
            if dodged:
                if await self._dodge_counts(racer.player, race.id, racer.finished_at or now):
                    last.append(Entrant(racer.player, await self.ratings.get(racer.player, rules)))
                continue  # within the allowance: no rating change; beyond it: last place
            if not dodged and racer.finished_at is not None:  # its log, whether or not its seat was read
                entries = await self.races.store.log(race.game_id(racer))
                moves = [(tok, int(ms)) for tok, _, ms in (e.partition(" ") for e in entries)]
                record = GameRecord.of(race, racer, moves)
                reason = await self.races.boards.review_of(record)  # too fast, pending, knowledge, or None
                if reason is not None:
                    held[racer.player] = {"game": record.game, "reason": reason}
            entrants.append(Entrant(racer.player, await self.ratings.get(racer.player, rules)))
        changes, kept = await self.ratings.computed(race.id, rate([*entrants, *last], self.settings), held)
        if kept:  # the first run's decision, whichever instance runs this again
            for player, why in sorted(kept.items()):
                if why["reason"] != knowledge.PENDING:  # fair play: paired only with the flagged from now on
                    await self.ratings.flag(player)
            await self.ratings.hold(race.id, rules, changes, now, kept)
            await self.settle_held(race.id)  # a verdict that came before the hold was written
            return
        await self.ratings.apply(race.id, rules, changes, now)

    async def settle_held(self, race_id: str) -> str | None:
        """A held race after its reviews' verdicts: applied once every held result is cleared by its knowledge
        review; refused (never applied), its knowing players flagged, once one is found to know the stock;
        else still held (a review pending, or a too-fast result: a person clears it, ``Ratings.clear``).
        Returns the hold's state. Safe to run twice or concurrently."""
        if not await self.ratings.held(race_id):
            return await self.ratings.state(race_id)
        waiting = refused = pending = False
        for player, why in sorted((await self.ratings.holds(race_id)).items()):
            reason = why["reason"]
            if reason == knowledge.PENDING:
                reason = await knowledge.verdict(self.ctx.redis, why["game"]) or knowledge.PENDING
            if reason == knowledge.KNOWLEDGE:
                await self.ratings.flag(player)
                refused = True
            elif reason != knowledge.CLEAR:
                waiting = True
                pending = pending or reason == knowledge.PENDING
        if refused:
            await self.ratings.refuse(race_id)
        elif not waiting:
            await self.ratings.clear(race_id, self.races.clock())
        elif not pending:  # only too-fast results left: a person clears them, no verdict is awaited
            await self.ratings.unwait(race_id)
        return await self.ratings.state(race_id)

    async def sweep_held(self) -> int:
        """The held races that have waited longest for a knowledge verdict (``SWEEP_BATCH``, each wave of
        the leader): settled if their verdicts came while no one heard (the instance that ran the review died
        before its ``review_hooks``); those still waiting go to the back of the line. Returns how many were
        settled."""
        settled = 0
        for race_id in await self.ratings.waiting(SWEEP_BATCH):
            state = await self.settle_held(race_id)
            if state == HELD:
                await self.ratings.wait(race_id, self.races.clock(), again=True)
            settled += state != HELD
        return settled

    async def on_review(self, record: GameRecord, verdict: str) -> None:
        """The races' fair-play word on a ranked result (any board: a quick race's, a lobby race's, a daily
        attempt's): held (``too_fast``, ``knowledge``) flags its player; a quick race held for it is settled
        (``settle_held``). Safe to run twice."""
        if verdict != knowledge.CLEAR and record.ranked:
            await self.ratings.flag(record.player)
        if record.race is not None and await self.ratings.held(record.race):
            await self.settle_held(record.race)

    async def _dodge_counts(self, player: str, race_id: str, at: int) -> bool:
        """A countdown leave of a ranked quick race: the first ``dodge_limit`` in ``dodge_window_s`` are
        free; each one beyond is rated as a loss. Idempotent per race (the race's first computation is kept
        anyway: ``Ratings.computed``)."""
        key = race_keys.pool_dodges(player)
        window_ms = self.settings.dodge_window_s * 1000
        await self.ctx.redis.zremrangebyscore(key, "-inf", at - window_ms)
        await self.ctx.redis.zadd(key, {race_id: at}, nx=True)
        await self.ctx.redis.expire(key, self.settings.dodge_window_s)
        earlier = await self.ctx.redis.zcount(key, "-inf", at)
        return int(earlier) > self.settings.dodge_limit
