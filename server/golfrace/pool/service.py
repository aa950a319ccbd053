"""The pool on one instance: its seekers' connections, the waves it leads, the races and bot seats it makes
(the ratings of the quick races that end here are ``aftermath.py``'s).

- A seeker's connection lives on one instance; that instance stamps them in Redis every
  ``stamp_interval_s`` and sends them the pool's size; a closed connection or ``pool_leave`` takes them
  out at once (``Local``).
- Every ``wave_interval_s`` each instance tries to lead the wave of each rule set (``PoolStore.lead``);
  the leader reads every shard, pairs (``pairing.pair``), claims each group atomically per shard, makes its
  race (started, with a countdown) and tells the seekers' instances on ``pool:i:<instance>``
  (``pool_found``). Bot seats of its races are played here (``BotDriver``).
- A quick race that ends is rated, and fair play's verdicts hold or settle its ratings and flag players
  (``aftermath.py``): its hooks are added to the races' here, and the leader of a wave sweeps the held races.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from golfrace.engine.rules import RULES
from golfrace.settings.pool import PoolSettings
from golfrace.store import race_keys
from golfrace.wire.ids import new_race_id

from ..engine import Rules, random_ranked_code
from ..races.errors import RaceError
from ..races.race import Race, RaceOptions
from ..races.timers import monotonic, pause
from . import bots, policy
from .aftermath import Aftermath
from .pairing import Group, Seeker, pair
from .ratings import SCALE, Ratings, pairing_rating
from .store import PoolStore

if TYPE_CHECKING:
    from golfrace.live.services import Context
    from golfrace.live.session import Session
    from golfrace.store.pubsub import Envelope

    from ..races.service import RaceService

log = logging.getLogger("golfrace.pool")
START_RATING = round(25.0 * SCALE)
TICK_S = 0.25
"""The pool's own loop: how soon a closed connection leaves the pool."""
WAVE_BATCH = 32
"""Races a wave makes at once (each a few Redis round trips)."""


instance_channel = race_keys.pool_instance


@dataclass(slots=True)
class Local:
    """A seeker whose connection is on this instance."""

    rules: str
    shard: str
    seeker: Seeker
    sessions: set[Session] = field(default_factory=set)


class PoolService:
    def __init__(self, ctx: Context, races: RaceService, settings: PoolSettings) -> None:
        self.ctx = ctx
        self.races = races
        self.settings = settings
        self.store = PoolStore(ctx.redis, settings)
        self.ratings = Ratings(ctx.redis, settings)
        self.aftermath = Aftermath(ctx, races, settings, self.ratings)
        self.instance = secrets.token_hex(6)
        self.here: dict[str, Local] = {}
        self.counts: dict[str, int] = dict.fromkeys(RULES, 0)
        self.bot_driver = bots.BotDriver(ctx, races, settings.bot_move_ms)
        self.tasks: list[asyncio.Task[None]] = []
        self._wave: asyncio.Task[None] | None = None
        """The wave being led here, if any (one at a time)."""
        self.rng = random.Random(secrets.randbits(64))

    # --- the extension's life -------------------------------------------------------------------------
    async def start(self) -> None:
        await self.ctx.hub.subscribe(instance_channel(self.instance), self)
        self.races.end_hooks.append(self.aftermath.rate_race)
        self.races.review_hooks.append(self.aftermath.on_review)
        self.tasks.append(asyncio.create_task(self._ticks()))

    async def close(self) -> None:
        if self._wave is not None:
            self.tasks.append(self._wave)
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.bot_driver.close()
        for player in list(self.here):
            with contextlib.suppress(Exception):
                await self.store.remove(player)
        self.here.clear()  # a connection that ends after this has nothing left here (its close hook)

    # --- seekers --------------------------------------------------------------------------------------
    async def join(
        self, session: Session, player: str, rules: str, name: str, account: str | None, network: str
    ) -> None:
        now = self.races.clock()
        if account is None:
            queue, rating = "casual", START_RATING
        else:
            found = await self.ratings.get(account, rules)
            rating = pairing_rating(found, self.settings)
            queue = "flagged" if await self.ratings.flagged(account) else "ranked"
        seeker = Seeker(player, rating, network, queue, now, name, self.instance, now)
        shard = await self.store.put(rules, seeker)
        local = self.here.get(player)
        sessions = local.sessions if local is not None else set()
        session.on_close(self._closed)  # its end takes it out of the pool at once
        sessions.add(session)
        self.here[player] = Local(rules, shard, seeker, sessions)
        self.counts[rules] = max(self.counts.get(rules, 0), 1)

    async def leave(self, player: str) -> bool:
        self.here.pop(player, None)
        return await self.store.remove(player)

    def status(self, player: str) -> dict[str, Any]:
        local = self.here.get(player)
        if local is None:
            return {"t": "pool", "state": "idle", "rules": None, "n": 0}
        return {
            "t": "pool",
            "state": "searching",
            "rules": local.rules,
            "n": max(1, self.counts.get(local.rules, 0)),
            "since": local.seeker.joined_at,
        }

    async def _ticks(self) -> None:
        """Every ``TICK_S`` of the app's clock: every ``stamp_interval_s`` the seekers here are stamped and
        told the pool's size;
        every ``wave_interval_s`` a wave of each rule set, if this instance leads it (in a task of its own,
        so that a long wave delays no sweep). Short sleeps only: a test's clock counts the long timers."""
        now = monotonic(self.races.clock)
        next_stamp = next_wave = now()
        while True:
            await pause(self.races.clock, min(TICK_S, self.settings.stamp_interval_s))
            try:
                if now() >= next_stamp:
                    next_stamp = now() + self.settings.stamp_interval_s
                    await self._stamp()
            except Exception:
                log.warning("stamping the pool's seekers failed", exc_info=True)
            if now() >= next_wave and (self._wave is None or self._wave.done()):
                next_wave = now() + self.settings.wave_interval_s
                self._wave = asyncio.create_task(self._lead_waves())

    async def _closed(self, session: Session) -> None:
        """A connection's close hook: a seeker whose last connection here ended leaves the pool."""
        for player, local in list(self.here.items()):
            if session not in local.sessions:
                continue
            local.sessions.discard(session)
            if not local.sessions and self.here.get(player) is local:
                del self.here[player]
                try:
                    await self.store.remove(player)
                except Exception:  # Redis away: the entry's stamp goes stale, and pairing skips it
                    log.warning("taking %s out of the pool failed", player, exc_info=True)

    async def _stamp(self) -> None:
        now = self.races.clock()
        entries = []
        for local in self.here.values():
            local.seeker = replace(local.seeker, stamp=now)
            entries.append((local.shard, local.seeker))
        await self.store.stamp(entries)
        for rules in {local.rules for local in self.here.values()}:
            self.counts[rules] = await self.store.count(rules)
        for player, local in self.here.items():
            status = self.status(player)
            for session in local.sessions:
                session.send(status)

    # --- waves ----------------------------------------------------------------------------------------
    async def _lead_waves(self) -> None:
        for rules in RULES:
            try:
                lease = int(self.settings.wave_interval_s * 1000 * 0.9)
                if await self.store.lead(rules, self.instance, lease):
                    await self.wave(rules)
                    if rules == RULES[0]:
                        await self.aftermath.sweep_held()
            except Exception:
                log.warning("the %s pool's wave failed", rules, exc_info=True)

    async def wave(self, rules: str) -> list[Race]:
        """One wave of a rule set's pool (on the instance leading it): the races it made."""
        shards = await self.store.read(rules)
        where = {s.player: shard for shard, seekers in shards.items() for s in seekers}
        now = self.races.clock()
        result = pair((s for seekers in shards.values() for s in seekers), now, self.settings)
        for s in result.stale:
            await self.store.drop(where[s.player], [s.player])
        # groups within one shard (nearly all): claimed in one round trip; the others shard by shard
        single = [g for g in result.groups if len({where[s.player] for s in g.seekers}) == 1]
        multi = [g for g in result.groups if len({where[s.player] for s in g.seekers}) > 1]
        claims = [(where[g.seekers[0].player], [s.player for s in g.seekers]) for g in single]
        ready = [g for g, ok in zip(single, await self.store.claim_many(claims), strict=True) if ok]
        ready += [g for g in multi if await self._claim(g, where)]
        made: list[Race] = []
        for start in range(0, len(ready), WAVE_BATCH):  # races made a batch at a time, concurrently
            batch = ready[start : start + WAVE_BATCH]
            races = await asyncio.gather(*(self._start(rules, g, where) for g in batch))
            made.extend(r for r in races if r is not None)
        return made

    async def _start(self, rules: str, group: Group, where: dict[str, str]) -> Race | None:
        try:
            race = await self.make_race(rules, group)
        except Exception:
            log.exception("making a quick race failed; its seekers go back")
            for s in group.seekers:
                await self.store.give_back(where[s.player], [s])
            return None
        await self._tell(group, race, rules)
        return race

    async def _claim(self, group: Group, where: dict[str, str]) -> bool:
        by_shard: dict[str, list[Seeker]] = {}
        for s in group.seekers:
            by_shard.setdefault(where[s.player], []).append(s)
        claimed: list[tuple[str, list[Seeker]]] = []
        for shard, seekers in sorted(by_shard.items()):
            if not await self.store.claim(shard, [s.player for s in seekers]):
                for back_shard, back in claimed:  # one left meanwhile: the others wait for the next wave
                    await self.store.give_back(back_shard, back)
                return False
            claimed.append((shard, seekers))
        return True

    async def make_race(self, rules: str, group: Group) -> Race:
        """The quick race of a group: seated, started (countdown ``countdown_ms``), ranked unless casual."""
        races = self.races
        now = races.clock()
        first = group.seekers[0]
        seats = len(group.seekers) + group.bots
        options = RaceOptions(undo=False, time_limit_s=self.settings.time_limit_s, seats=seats)
        race = Race.create(
            new_race_id(),
            random_ranked_code(Rules(rules)),
            host=first.player,
            name=first.name,
            now=now,
            options=options,
            ranked=group.queue != "casual",
            settings=races.settings,
        )
        for s in group.seekers[1:]:
            race = race.join(s.player, s.name, now, races.settings)
        strength = policy.strength_for(round(sum(s.rating for s in group.seekers) / len(group.seekers)))
        bot_players = []
        for _ in range(group.bots):
            player = bots.bot_player(strength)
            race = race.join(player, policy.bot_name(strength, self.rng), now, races.settings)
            bot_players.append(player)
        race = replace(race, pool=True, starts_at=now + self.settings.countdown_ms)
        _, fields = races.seat_games(race)
        await races.insert(race, fields)
        if races.settings.solver_budget_s > 0:
            races.tasks.spawn(races.compute_par(race))
        await races.live.add(race)
        for player in bot_players:
            racer = race.racer(player)
            assert racer is not None and race.starts_at is not None
            self.bot_driver.start(race.id, racer.seat, player, strength, race.starts_at)
        return race

    async def _tell(self, group: Group, race: Race, rules: str) -> None:
        by_instance: dict[str, list[str]] = {}
        for s in group.seekers:
            by_instance.setdefault(s.instance, []).append(s.player)
        message = {"k": "found", "race": race.id, "rules": rules, "starts_at": race.starts_at}
        for instance, players in by_instance.items():
            payload = {**message, "players": players}
            if instance == self.instance:
                self._found(payload)
            else:
                await self.ctx.hub.publish(instance_channel(instance), payload)

    def deliver(self, envelope: Envelope) -> None:
        """A message on this instance's pool channel: seekers here were put in a race."""
        if envelope.message.get("k") == "found":
            self._found(envelope.message)

    def _found(self, msg: dict[str, Any]) -> None:
        for player in msg.get("players", []):
            local = self.here.pop(str(player), None)
            sessions = [s for s in (local.sessions if local else ()) if not s.closing]
            if not sessions:  # gone before the race was made: out of it before it starts
                self.races.tasks.spawn(self._out(str(msg["race"]), str(player)))
                continue
            for session in sessions:
                found = {"race": msg["race"], "rules": msg["rules"], "starts_at": msg["starts_at"]}
                session.send({"t": "pool_found", **found})
            self.races.tasks.spawn(self._forget(str(player)))

    async def _forget(self, player: str) -> None:
        await self.ctx.redis.delete(race_keys.pool_player(player))

    async def _out(self, race_id: str, player: str) -> None:
        """A seeker gone before their race was made: out of it, and no dodge (they never saw it)."""
        key = race_keys.unseen(race_id)
        await self.ctx.redis.sadd(key, player)
        await self.ctx.redis.expire(key, self.settings.review_ttl_s)
        with contextlib.suppress(RaceError):
            await self.races.resign(race_id, player)
