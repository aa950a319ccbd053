"""A player's finished games: counters, bests per mode and the recent list (keys ``hist:{P}…``).

Kept for every player id, anonymous or not, so that signing up from an anonymous token brings them along
(the account takes that player id). The end of a game is recorded once per game id, whichever hook sees it
first (a solo game's last move, a race's end): the script adds the game only if its id is new.

Modes are ``<kind>:<rules>`` with kind ``solo``, ``race`` or ``daily`` and rules ``easy`` or ``classic``;
per mode: ``played:<mode>``, ``won:<mode>``, ``score:<mode>`` (the best score) and ``time:<mode>`` (the
shortest won game, ms). The totals are ``played`` and ``won``. An anonymous player's history expires
``anonymous_history_ttl_s`` after their last finished game; an account's is kept.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from . import keys
from .settings import AccountSettings

RECORD = """
if redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local mode, score, elapsed, won = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7] == '1'
redis.call('HINCRBY', KEYS[1], 'played', 1)
redis.call('HINCRBY', KEYS[1], 'played:' .. mode, 1)
if won then
  redis.call('HINCRBY', KEYS[1], 'won', 1)
  redis.call('HINCRBY', KEYS[1], 'won:' .. mode, 1)
  local t = tonumber(redis.call('HGET', KEYS[1], 'time:' .. mode) or '-1')
  if t < 0 or elapsed < t then redis.call('HSET', KEYS[1], 'time:' .. mode, elapsed) end
end
local best = tonumber(redis.call('HGET', KEYS[1], 'score:' .. mode) or '-1000')
if score > best then redis.call('HSET', KEYS[1], 'score:' .. mode, score) end
local cap = tonumber(ARGV[8])
while redis.call('ZCARD', KEYS[2]) > cap do
  local old = redis.call('ZPOPMIN', KEYS[2])[1]
  redis.call('HDEL', KEYS[3], old)
end
local ttl = tonumber(ARGV[9])
for i = 1, 3 do
  if ttl > 0 then redis.call('EXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
return 1
"""


@dataclass(frozen=True, slots=True)
class Finished:
    """One finished game as the history keeps it (numbers only: no card, no code)."""

    game: str
    kind: str  # solo, race, daily
    rules: str
    status: str
    score: int
    moves: int
    elapsed: int
    finished_at: int
    ranked: bool = False
    race: str | None = None
    daily: str | None = None

    @property
    def mode(self) -> str:
        return f"{self.kind}:{self.rules}"


class History:
    def __init__(self, redis: Any, settings: AccountSettings) -> None:
        self.redis = redis
        self.settings = settings
        self._record = redis.register_script(RECORD)

    def _keys(self, player: str) -> list[str]:
        return [keys.history(player), keys.history_games(player), keys.history_summaries(player)]

    async def record(self, player: str, game: Finished, account: bool) -> bool:
        """Count ``game`` once; True when it was new."""
        ttl = 0 if account else self.settings.anonymous_history_ttl_s
        args = [
            game.game,
            game.finished_at,
            json.dumps(asdict(game), separators=(",", ":")),
            game.mode,
            game.score,
            game.elapsed,
            int(game.status == "won"),
            self.settings.history_max,
            ttl,
        ]
        return bool(await self._record(keys=self._keys(player), args=args))

    async def keep(self, player: str) -> None:
        """The player became an account: the history no longer expires."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in self._keys(player):
                pipe.persist(key)
            await pipe.execute()

    async def forget(self, player: str) -> list[Finished]:
        """Delete the history; returns the games it listed (for the rest of a deletion)."""
        recent = await self.recent(player, self.settings.history_max)
        await self.redis.delete(*self._keys(player))
        return recent

    async def recent(self, player: str, limit: int) -> list[Finished]:
        ids = await self.redis.zrevrange(keys.history_games(player), 0, limit - 1)
        if not ids:
            return []
        blobs = await self.redis.hmget(keys.history_summaries(player), ids)
        return [Finished(**json.loads(b)) for b in blobs if b is not None]

    async def stats(self, player: str) -> dict[str, Any]:
        raw = await self.redis.hgetall(keys.history(player))
        data = {k.decode(): int(v) for k, v in raw.items()}
        modes: dict[str, dict[str, Any]] = {}
        for field, value in data.items():
            what, sep, mode = field.partition(":")
            if sep:
                modes.setdefault(mode, {"played": 0, "won": 0, "best_score": None, "best_time": None})
                name = {"played": "played", "won": "won", "score": "best_score", "time": "best_time"}[what]
                modes[mode][name] = value
        return {"played": data.get("played", 0), "won": data.get("won", 0), "modes": modes}
