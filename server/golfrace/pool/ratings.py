"""Quick-race ratings: openskill's Plackett–Luce model on a race's final order, one rating per account and
rule set, kept in Redis with its history and a rating board per rule set. The rules and why: docs/pool.md.

Pure: ``rate`` (new ratings from a race's order), ``Rating`` (what is kept of one account's rating).
Redis (``Ratings``):

- ``rating:{<player>}`` hash, field ``<rules>`` → the rating as JSON (``Rating``);
- ``rating:{<player>}:h:<rules>`` list of history points (JSON: ``at``, ``rating``, ``delta``, ``race``);
- ``rating:{<player>}:done`` set of the race ids applied (the update's idempotence);
- ``rated:{<race>}`` the race's computed changes (JSON), written once (``SET NX``): every instance that
  finishes the race applies the same numbers;
- ``rating:hold:{<race>}`` hash: ``changes`` (a race's changes, JSON, held while one of its results is
  held for review), ``held`` (player → ``{"game", "reason"}``: ``too_fast``, ``pending`` or ``knowledge``)
  and ``state`` (``held``, then ``cleared`` — applied — or ``refused`` — never applied); ``pool:review``
  (zset race id → ms) the races still held, ``pool:review:wait`` (zset race id → ms) those of them waiting
  for a knowledge verdict (swept, in case the instance that heard the verdict died first);
  ``fp:{<player>}`` a player flagged by fair play;
- ``rboard:{<rules>}`` zset account → rating, established (non-provisional) accounts only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce

from golfrace.settings.pool import PoolSettings
from golfrace.store import race_keys
from golfrace.store.games import RedisClient

MU = 25.0
"""openskill's default prior mean: every account starts here."""
SIGMA = MU / 3
"""openskill's default prior uncertainty."""
SCALE = 60.0
"""Display points per unit of mu: the start is 1500, as on most rating ladders people know."""
BOT_SIGMA = 1.0
"""A bot's uncertainty as an opponent: its strength is measured, not learnt from the race."""
MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


def display(mu: float) -> int:
    return round(mu * SCALE)


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA
    races: int = 0
    peak: int = 0
    """The highest established rating (display points): the floor is ``peak − rating_floor_gap``."""
    vs: dict[str, list[int]] = field(default_factory=dict)
    """Opponent kind (``bot:<strength>``, ``human``) → [races finished above them, races against them]."""

    @property
    def rating(self) -> int:
        return display(self.mu)

    def provisional(self, settings: PoolSettings) -> bool:
        return self.sigma > settings.provisional_sigma

    def floor(self, settings: PoolSettings) -> int:
        return max(settings.rating_floor, self.peak - settings.rating_floor_gap)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, raw: Any) -> Rating:
        if raw is None:
            return cls()
        data = json.loads(raw)
        return cls(
            float(data["mu"]),
            float(data["sigma"]),
            int(data["races"]),
            int(data.get("peak", 0)),
            {k: [int(v[0]), int(v[1])] for k, v in data.get("vs", {}).items()},
        )

    def public(self, settings: PoolSettings) -> dict[str, Any]:
        return {
            "rating": self.rating,
            "provisional": self.provisional(settings),
            "races": self.races,
            "vs": {k: {"won": v[0], "races": v[1]} for k, v in sorted(self.vs.items())},
        }


def pairing_rating(rating: Rating, settings: PoolSettings) -> int:
    """The rating the pool pairs an account by: never below its floor (sandbagging buys nothing)."""
    return max(rating.rating, rating.floor(settings))


Held = dict[str, dict[str, str]]
"""A race's results held for review: player → ``{"game": <game id>, "reason": <the review's word>}``."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """One racer of a race's final order, as the rating sees them."""

    player: str
    rating: Rating
    bot: int | None = None
    """A bot's strength (its rating is the ladder's, and it is not updated)."""


def rate(order: Sequence[Entrant], settings: PoolSettings) -> dict[str, Rating]:
    """Every human's new rating after a race finished in ``order`` (first is best; the race's own order,
    ties already broken by its ranking rule). An established account's change counts only the bots and the
    established humans of the race (a provisional account — new, or a fresh second account — moves no
    established rating: it can neither be farmed nor feed another), a provisional account's counts everyone.
    A rating never falls below the account's floor."""
    out: dict[str, Rating] = {}
    for me in order:
        if me.bot is not None:
            continue
        established = not me.rating.provisional(settings)
        field_ = [
            e
            for e in order
            if e is me or e.bot is not None or not (established and e.rating.provisional(settings))
        ]
        if len(field_) < 2:
            out[me.player] = replace(me.rating, races=me.rating.races + 1)
            continue
        teams = [[MODEL.create_rating([e.rating.mu, e.rating.sigma], name=e.player)] for e in field_]
        rated = MODEL.rate(teams, ranks=list(range(len(field_))))
        mine = rated[field_.index(me)][0]
        mu = max(float(mine.mu), me.rating.floor(settings) / SCALE)
        new = replace(me.rating, mu=mu, sigma=float(mine.sigma), races=me.rating.races + 1)
        if not new.provisional(settings):
            new = replace(new, peak=max(new.peak, new.rating))
        out[me.player] = replace(new, vs=_tally(new.vs, order, me))
    return out


def _tally(vs: dict[str, list[int]], order: Sequence[Entrant], me: Entrant) -> dict[str, list[int]]:
    tally = {k: list(v) for k, v in vs.items()}
    mine = order.index(me)
    for i, e in enumerate(order):
        if e is me:
            continue
        kind = f"bot:{e.bot}" if e.bot is not None else "human"
        won, races = tally.get(kind, [0, 0])
        tally[kind] = [won + (1 if mine < i else 0), races + 1]
    return tally


APPLY = """
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return 0 end
local old = redis.call('HGET', KEYS[1], ARGV[2])
if (old or '') ~= ARGV[7] then return -1 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
redis.call('SADD', KEYS[3], ARGV[1])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[6])) end
return 1
"""


rating_key = race_keys.rating
history_key = race_keys.rating_history
done_key = race_keys.rating_done
board_key = race_keys.rating_board
flag_key = race_keys.fair_play
hold_key = race_keys.rating_hold
REVIEW = race_keys.RATING_REVIEW
WAIT = race_keys.RATING_WAIT
HELD, CLEARED, REFUSED = "held", "cleared", "refused"
"""A held race's states: waiting for its reviews, applied once they cleared it, refused (never applied)."""
HOLD = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rules', ARGV[1], 'changes', ARGV[2], 'held', ARGV[3], 'state', 'held')
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
"""
SETTLE = """
if redis.call('HGET', KEYS[1], 'state') ~= 'held' then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1])
return 1
"""


class Ratings:
    def __init__(self, redis: RedisClient, settings: PoolSettings) -> None:
        self.redis = redis
        self.settings = settings
        self._apply = redis.register_script(APPLY)
        self._hold = redis.register_script(HOLD)
        self._settle = redis.register_script(SETTLE)

    async def get(self, player: str, rules: str) -> Rating:
        return Rating.from_json(await self.redis.hget(rating_key(player), rules))

    async def flagged(self, player: str) -> bool:
        return bool(await self.redis.exists(flag_key(player)))

    async def flag(self, player: str) -> None:
        await self.redis.set(flag_key(player), "1", ex=self.settings.review_ttl_s)

    async def computed(
        self, race_id: str, changes: dict[str, Rating], held: Held | None = None
    ) -> tuple[dict[str, Rating], Held]:
        """The race's changes and the results held for review (player → ``{"game", "reason"}``), as first
        decided by anyone (``SET NX``): a second run (another instance, a retry) applies or holds the same."""
        key = race_keys.rated(race_id)
        data = {"changes": {p: asdict(r) for p, r in changes.items()}, "held": held or {}}
        if not await self.redis.set(
            key, json.dumps(data, sort_keys=True), nx=True, ex=self.settings.review_ttl_s
        ):
            stored = await self.redis.get(key)
            if stored is not None:
                first = json.loads(stored)
                found = {p: Rating.from_json(json.dumps(r)) for p, r in first["changes"].items()}
                return found, dict(first["held"])
        return changes, dict(held or {})

    async def hold(
        self, race_id: str, rules: str, changes: dict[str, Rating], now: int, held: Held | None = None
    ) -> None:
        """Fair play: a race with a result held for review changes no rating until its reviews clear it
        (``clear``, run by the pool's ``settle_held``) or a person does. Written once: a second run leaves a
        settled hold as it is."""
        await self._hold(
            keys=[hold_key(race_id)],
            args=[
                rules,
                json.dumps({p: asdict(r) for p, r in changes.items()}, sort_keys=True),
                json.dumps(held or {}, sort_keys=True),
                self.settings.review_ttl_s,
            ],
        )
        if await self.state(race_id) == HELD:
            await self.redis.zadd(REVIEW, {race_id: now}, nx=True)
            await self.redis.expire(REVIEW, self.settings.review_ttl_s)
            if any(why.get("reason") == "pending" for why in (held or {}).values()):
                await self.wait(race_id, now)

    async def wait(self, race_id: str, now: int, again: bool = False) -> None:
        """The race waits for a knowledge verdict: at the back of the sweep's line (``waiting``); ``again``:
        only if it still waits for one."""
        await self.redis.zadd(WAIT, {race_id: now}, xx=again)
        await self.redis.expire(WAIT, self.settings.review_ttl_s)

    async def waiting(self, limit: int) -> list[str]:
        """The held races that have waited longest for a knowledge verdict (at most ``limit``)."""
        rows = await self.redis.zrange(WAIT, 0, limit - 1)
        return [r.decode() if isinstance(r, bytes) else str(r) for r in rows]

    async def unwait(self, race_id: str) -> None:
        await self.redis.zrem(WAIT, race_id)

    async def state(self, race_id: str) -> str | None:
        """A race's hold: ``held``, ``cleared``, ``refused``, or None (never held)."""
        raw = await self.redis.hget(hold_key(race_id), "state")
        return None if raw is None else (raw.decode() if isinstance(raw, bytes) else str(raw))

    async def held(self, race_id: str) -> bool:
        """Whether the race's rating changes are held now (not yet cleared nor refused)."""
        return await self.state(race_id) == HELD

    async def holds(self, race_id: str) -> Held:
        """The race's results held for review: player → ``{"game", "reason"}`` (empty: none)."""
        raw = await self.redis.hget(hold_key(race_id), "held")
        return {} if raw is None else dict(json.loads(raw))

    async def clear(self, race_id: str, now: int) -> bool:
        """The race's held results were cleared (by their reviews, or by a person): its rating changes apply
        now, once. False: nothing held (never held, already cleared, or refused)."""
        found = await self.redis.hmget(hold_key(race_id), ["rules", "changes", "state"])
        rules, raw, state = (v.decode() if isinstance(v, bytes) else v for v in found)
        if state != HELD or rules is None or raw is None:
            return False
        changes = {p: Rating.from_json(json.dumps(r)) for p, r in json.loads(raw).items()}
        await self.apply(race_id, rules, changes, now)  # once per account and race, whoever runs it
        await self._settle(keys=[hold_key(race_id)], args=[CLEARED])
        await self.redis.zrem(REVIEW, race_id)
        await self.unwait(race_id)
        return True

    async def refuse(self, race_id: str) -> bool:
        """A held result's review found it played with knowledge of the stock: the race's rating changes are
        never applied. False: nothing held."""
        refused = bool(await self._settle(keys=[hold_key(race_id)], args=[REFUSED]))
        await self.redis.zrem(REVIEW, race_id)
        await self.unwait(race_id)
        return refused

    async def apply(self, race_id: str, rules: str, changes: dict[str, Rating], now: int) -> None:
        """Each account's new rating, once per race (the race id in the account's applied set): a second run
        or a concurrent one changes nothing."""
        for player, new in sorted(changes.items()):
            for _ in range(20):
                raw_old = await self.redis.hget(rating_key(player), rules)
                old = Rating.from_json(raw_old)
                point = json.dumps(
                    {"at": now, "rating": new.rating, "delta": new.rating - old.rating, "race": race_id}
                )
                old_text = raw_old.decode() if isinstance(raw_old, bytes) else (raw_old or "")
                done = await self._apply(
                    keys=[rating_key(player), history_key(player, rules), done_key(player)],
                    args=[
                        race_id,
                        rules,
                        new.to_json(),
                        point,
                        self.settings.history_max,
                        self.settings.rating_ttl_s,
                        old_text,
                    ],
                )
                if int(done) != -1:
                    break
            await self._board(player, rules)

    async def _board(self, player: str, rules: str) -> None:
        current = await self.get(player, rules)
        if current.provisional(self.settings):
            await self.redis.zrem(board_key(rules), player)
        else:
            await self.redis.zadd(board_key(rules), {player: current.rating})
            await self.redis.expire(board_key(rules), self.settings.rating_ttl_s)

    async def history(self, player: str, rules: str) -> list[dict[str, Any]]:
        raw = await self.redis.lrange(history_key(player, rules), 0, -1)
        return [json.loads(r) for r in raw]

    async def change_in(self, player: str, race_id: str, rules: str) -> dict[str, Any] | None:
        """The history point a race left on ``player``'s rating (None: not rated yet, or held)."""
        for point in reversed(await self.history(player, rules)):
            if point.get("race") == race_id:
                return dict(point)
        return None

    async def board(self, rules: str, limit: int) -> list[tuple[str, int]]:
        rows: list[Any] = await self.redis.zrevrange(board_key(rules), 0, limit - 1, withscores=True)
        return [(p.decode() if isinstance(p, bytes) else str(p), int(s)) for p, s in rows]
