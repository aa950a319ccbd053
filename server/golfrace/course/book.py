"""The course attempts in Redis (keys in ``keys.py``): holes recorded in order by one script (``RECORD``),
the daily course's holes dealt once each (``DEAL``), and the card read back.

Fair play: ``RECORD`` takes hole ``n`` only right after hole ``n - 1`` (a course is nine deals in a row);
the same game again is a no-op (a page that sends twice, or two tabs), and a first hole with another game
begins the attempt again (an open course only: the daily course has one attempt a day). ``DEAL`` claims
hole ``n``'s game once, so a burst of requests (tabs, scripts) deals the hole once: one ranked attempt per
account per day.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from golfrace.store.games import RedisClient

from ..engine.course import HOLE_PAR, HOLES
from .errors import CourseRefusal
from .holes import Hole

RECORD = """
local n = tonumber(ARGV[1])
local field = 'h' .. ARGV[1]
local have = redis.call('HGET', KEYS[1], field)
if have and cjson.decode(have)['game'] == ARGV[2] then return n end
local played = tonumber(redis.call('HGET', KEYS[1], 'played') or '0')
if n == 1 and ARGV[5] == '1' and played > 0 then
  redis.call('DEL', KEYS[1])
  played = 0
end
if played ~= n - 1 then return -1 end
redis.call('HSET', KEYS[1], field, ARGV[3], 'played', n)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return n
"""
"""KEYS[1] the attempt; ARGV hole, game id, hole JSON, TTL, restart (1: a new first hole begins again).
Returns the hole recorded, or -1 (out of order)."""

DEAL = """
local held = redis.call('HGET', KEYS[1], 'd' .. ARGV[1])
if held then return held end
local played = tonumber(redis.call('HGET', KEYS[1], 'played') or '0')
if played ~= tonumber(ARGV[1]) - 1 then return false end
redis.call('HSET', KEYS[1], 'd' .. ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return ARGV[2]
"""
"""KEYS[1] the daily attempt; ARGV hole, game id, TTL. Returns the game holding the hole (this one if the
call claimed it), or nil if the hole before it is not recorded yet."""


@dataclass(frozen=True, slots=True)
class Card:
    """An attempt as stored: the holes recorded, in order, and the games dealt (daily course)."""

    holes: tuple[Hole, ...] = ()
    dealt: tuple[str | None, ...] = ()

    @property
    def played(self) -> int:
        return len(self.holes)

    @property
    def finished(self) -> bool:
        return self.played == HOLES

    @property
    def strokes(self) -> int:
        return sum(h.strokes for h in self.holes)

    @property
    def to_par(self) -> int:
        return self.strokes - HOLE_PAR * self.played

    def view(self) -> dict[str, Any]:
        """What a player is shown of their own card: strokes only, no code and no game of a hole."""
        return {
            "holes": [h.strokes for h in self.holes],
            "played": self.played,
            "total": self.strokes,
            "to_par": self.to_par,
            "done": self.finished,
            "hinted": any(h.hinted for h in self.holes),
        }


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class CourseBook:
    def __init__(self, redis: RedisClient, ttl_s: int) -> None:
        self.redis = redis
        self.ttl_s = ttl_s
        self._record = redis.register_script(RECORD)
        self._deal = redis.register_script(DEAL)

    async def card(self, key: str) -> Card:
        raw = {_text(k): v for k, v in dict(await self.redis.hgetall(key)).items()}
        played = int(raw.get("played", 0))
        holes = tuple(Hole.from_json(raw[f"h{n}"]) for n in range(1, played + 1) if f"h{n}" in raw)
        dealt = tuple(_text(raw[f"d{n}"]) if f"d{n}" in raw else None for n in range(1, HOLES + 1))
        return Card(holes, dealt)

    async def record(self, key: str, n: int, hole: Hole, restart: bool) -> Card:
        """Record hole ``n`` (``hole_out_of_order`` unless the holes before it are recorded)."""
        done = int(
            await self._record(keys=[key], args=[n, hole.game, hole.to_json(), self.ttl_s, int(restart)])
        )
        if done < 0:
            raise CourseRefusal("hole_out_of_order", f"hole {n} comes after the holes before it", hole=n)
        return await self.card(key)

    async def deal(self, key: str, n: int, game_id: str) -> str | None:
        """Claim hole ``n`` of a daily attempt for ``game_id``: the game that holds it (``game_id`` if this
        call claimed it), or None while the hole before it is not recorded."""
        held = await self._deal(keys=[key], args=[n, game_id, self.ttl_s])
        return None if held is None else _text(held)
