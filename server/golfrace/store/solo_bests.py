"""A player's best finished solo game on each deal: the ghost of their own casual play (``golfrace.ghost``).

Key ``sb:{P}`` (hash, in the player's Redis Cluster slot): canonical game code → the best finished solo game
of ``P`` on that deal as JSON (``game``, ``score``, ``elapsed`` ms, ``moves``, ``finished_at`` ms). Written
where the history of a solo game is (``live/solo_follow.follow``, safe to run twice), by one script:
the best is the higher score, then the shorter time, then the earlier finish; the same game ending again
(a stuck game undone and played on) replaces its own numbers. The key expires ``ttl_s`` after the last write
(the stored games it names expire as soon: a ghost whose game is gone is listed by nobody). Numbers only:
the moves and their times are read from the stored game when the ghost is served.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from . import keys
from .games import Batch, script_runner

KEEP = """
local new = cjson.decode(ARGV[2])
local old = redis.call('HGET', KEYS[1], ARGV[1])
local keep = false
if old then
  local was = cjson.decode(old)
  if was['game'] ~= new['game'] then
    keep = was['score'] > new['score'] or (was['score'] == new['score'] and was['elapsed'] <= new['elapsed'])
  end
end
if not keep then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return keep and 0 or 1
"""


solo_bests_key = keys.solo_bests


@dataclass(frozen=True, slots=True)
class SoloBest:
    game: str
    score: int
    elapsed: int
    moves: int
    finished_at: int

    def sort_key(self) -> tuple[int, int, int]:
        """Lowest first: the higher score, the shorter time, the earlier finish."""
        return (-self.score, self.elapsed, self.finished_at)


class SoloBests:
    def __init__(self, redis: Any, ttl_s: int, batch: Batch | None = None) -> None:
        self.redis = redis
        self.ttl_s = ttl_s
        self._keep = script_runner(redis, batch, KEEP)  # through the store's batcher when given

    async def note(self, player: str, code: str, best: SoloBest) -> bool:
        """Keep ``best`` as ``player``'s on ``code`` if it beats the one kept; True if kept."""
        raw = json.dumps(asdict(best), separators=(",", ":"))
        return bool(await self._keep(keys=[solo_bests_key(player)], args=[code, raw, max(1, self.ttl_s)]))

    async def of(self, player: str, code: str) -> SoloBest | None:
        raw = await self.redis.hget(solo_bests_key(player), code)
        return None if raw is None else SoloBest(**json.loads(raw))
