"""A player's finished games: the one record of them, for every player id, guest or account. The profile
(``GET /api/account/profile``) and the stats page (``GET /api/players/me/stats``) are two views of it.

Keys (``keys.py``; all in the player's Redis Cluster slot, hash tag ``{P}``): ``hist:{P}`` (hash: the
counters, never trimmed), ``hist:{P}:z`` (zset: game id by finish time, ms) and ``hist:{P}:g`` (hash: game
id → the game's numbers as JSON, never a card or a code). Counters per mode ``<kind>:<rules>`` (kind
``solo``, ``race`` or ``daily``; rules ``easy`` or ``classic``): ``played:<mode>``, ``won:<mode>``,
``score:<mode>`` (the best score) and ``time:<mode>`` (the shortest won game, ms); totals ``played``, ``won``.

One write path, ``History.record``, called when a game ends by whichever hook sees it: ``solo_over`` (the
move that ended a Play game, ``moves.on_act``) or the race's aftermath (a race seat or a daily attempt,
``aftermath.finished`` of its record, ``races/aftermath.py``, which may run twice). Per game id: the same end
told again changes nothing; a game that ends again (a stuck Play game undone, then won) counts once, as it
ended last: its played and won counts move to the new end (a best, once reached at an end, stays). The
latest ``history_max`` games are listed (the oldest go; the counters keep them; a game that ends again
after it left the list counts as a new one).

Time to live, decided in the same script: a guest's keys expire ``anonymous_history_ttl_s`` after their last
finished game; an account's (``acct:{P}`` exists) are kept, and signing up (``keep``) keeps the guest's
history it takes over with the player id. Only the player's own session or guest token reads them
(``accounts/callers.py``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from golfrace.settings.accounts import AccountSettings
from golfrace.store import account_keys as keys
from golfrace.store.games import Batch, script_runner
from golfrace.store.keys import seat_of

if TYPE_CHECKING:
    from golfrace.engine import Game

log = logging.getLogger("golfrace.accounts")
KINDS = ("solo", "race", "daily")
PAGE_RECENT = 30
"""Games in the stats page's ``recent`` list (its chart of recent scores)."""

RECORD = """
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old == ARGV[3] then return 0 end
local function count(mode, won, by)
  redis.call('HINCRBY', KEYS[1], 'played', by)
  redis.call('HINCRBY', KEYS[1], 'played:' .. mode, by)
  if won then
    redis.call('HINCRBY', KEYS[1], 'won', by)
    redis.call('HINCRBY', KEYS[1], 'won:' .. mode, by)
  end
end
if old then
  local was = cjson.decode(old)
  count(was['kind'] .. ':' .. was['rules'], was['status'] == 'won', -1)
end
local mode, score, elapsed, won = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7] == '1'
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
count(mode, won, 1)
if won then
  local t = tonumber(redis.call('HGET', KEYS[1], 'time:' .. mode) or '-1')
  if t < 0 or elapsed < t then redis.call('HSET', KEYS[1], 'time:' .. mode, elapsed) end
end
local best = tonumber(redis.call('HGET', KEYS[1], 'score:' .. mode) or '-1000')
if score > best then redis.call('HSET', KEYS[1], 'score:' .. mode, score) end
local cap = tonumber(ARGV[8])
while redis.call('ZCARD', KEYS[2]) > cap do
  local gone = redis.call('ZPOPMIN', KEYS[2])[1]
  redis.call('HDEL', KEYS[3], gone)
end
local account = redis.call('EXISTS', KEYS[4]) == 1
for i = 1, 3 do
  if account then redis.call('PERSIST', KEYS[i]) else redis.call('EXPIRE', KEYS[i], ARGV[9]) end
end
return 1
"""


@dataclass(frozen=True, slots=True)
class Finished:
    """One finished game as the history keeps it (numbers only: no card, no code)."""

    game: str
    kind: str  # solo, race, daily
    rules: str  # easy, classic
    status: str  # won, stuck, resigned, timeout, abandoned
    score: int
    moves: int
    elapsed: int  # ms
    finished_at: int  # ms since the epoch
    ranked: bool = False
    race: str | None = None
    daily: str | None = None

    @property
    def mode(self) -> str:
        return f"{self.kind}:{self.rules}"

    @classmethod
    def of_solo(cls, game_id: str, game: Game, created: int, now: int) -> Finished:
        rules, status = game.code.rules.value, game.status.value
        return cls(
            game_id, "solo", rules, status, int(game.score), int(game.moves), max(0, now - created), now
        )


class History:
    def __init__(self, redis: Any, settings: AccountSettings, batch: Batch | None = None) -> None:
        self.redis = redis
        self.settings = settings
        self._record = script_runner(redis, batch, RECORD)  # through the store's batcher when given

    def _keys(self, player: str) -> list[str]:
        return [keys.history(player), keys.history_games(player), keys.history_summaries(player)]

    async def record(self, player: str, game: Finished) -> bool:
        """Count ``game``'s end (see the module); True when it changed the history."""
        args = [
            game.game,
            game.finished_at,
            json.dumps(asdict(game), separators=(",", ":")),
            game.mode,
            game.score,
            game.elapsed,
            int(game.status == "won"),
            max(1, self.settings.history_max),
            max(1, self.settings.anonymous_history_ttl_s),
        ]
        return bool(await self._record(keys=[*self._keys(player), keys.account(player)], args=args))

    async def keep(self, player: str) -> None:
        """The player became an account: the history no longer expires."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in self._keys(player):
                pipe.persist(key)
            await pipe.execute()

    async def forget(self, player: str) -> list[Finished]:
        """Delete the history; returns the games it listed (for the rest of a deletion)."""
        listed = await self.recent(player, self.settings.history_max)
        await self.redis.delete(*self._keys(player))
        return listed

    async def recent(self, player: str, limit: int) -> list[Finished]:
        """The latest ``limit`` games, the latest first."""
        ids = await self.redis.zrevrange(keys.history_games(player), 0, limit - 1)
        return await self._games(player, ids)

    async def games(self, player: str) -> list[Finished]:
        """Every listed game, the oldest first."""
        return await self._games(player, await self.redis.zrange(keys.history_games(player), 0, -1))

    async def _games(self, player: str, ids: list[Any]) -> list[Finished]:
        if not ids:
            return []
        blobs = await self.redis.hmget(keys.history_summaries(player), ids)
        return [Finished(**json.loads(b)) for b in blobs if b is not None]

    async def stats(self, player: str) -> dict[str, Any]:
        """The counters: ``{played, won, modes: {<kind>:<rules>: {played, won, best_score, best_time}}}``."""
        raw = await self.redis.hgetall(keys.history(player))
        data = {k.decode(): int(v) for k, v in raw.items()}
        modes: dict[str, dict[str, Any]] = {}
        for field, value in sorted(data.items()):
            what, sep, mode = field.partition(":")
            if sep:
                modes.setdefault(mode, {"played": 0, "won": 0, "best_score": None, "best_time": None})
                name = {"played": "played", "won": "won", "score": "best_score", "time": "best_time"}[what]
                modes[mode][name] = value
        return {"played": data.get("played", 0), "won": data.get("won", 0), "modes": modes}

    async def page(self, player: str, daily_streak: int, best_daily_streak: int) -> dict[str, Any]:
        """The stats page's answer (``GET /api/players/me/stats``, docs/protocol.md)."""
        return stats_page(await self.stats(player), await self.games(player), daily_streak, best_daily_streak)


def stats_page(
    counters: dict[str, Any], games: list[Finished], daily_streak: int, best_daily_streak: int
) -> dict[str, Any]:
    """The stats page's numbers: the counters by kind (both rules together), the win streaks over the listed
    games (oldest first) and the last ``PAGE_RECENT`` of them."""
    kinds: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        mine = [v for mode, v in counters["modes"].items() if mode.partition(":")[0] == kind]
        scores = [v["best_score"] for v in mine if v["best_score"] is not None]
        times = [v["best_time"] for v in mine if v["best_time"] is not None]
        kinds[kind] = {
            "played": sum(v["played"] for v in mine),
            "won": sum(v["won"] for v in mine),
            "best_score": max(scores, default=None),
            "best_time": min(times, default=None),
        }
    run = best_run = 0
    for g in games:
        run = run + 1 if g.status == "won" else 0
        best_run = max(best_run, run)
    played, won = counters["played"], counters["won"]
    return {
        "played": played,
        "won": won,
        "win_rate": round(won / played, 4) if played else None,
        "modes": kinds,
        "win_streak": run,
        "best_win_streak": best_run,
        "daily_streak": daily_streak,
        "best_daily_streak": best_daily_streak,
        "recent": [
            {
                "mode": g.kind,
                "status": g.status,
                "score": g.score,
                "elapsed": g.elapsed,
                "finished_at": g.finished_at,
            }
            for g in games[-PAGE_RECENT:]
        ],
    }


async def solo_over(redis: Any, settings: AccountSettings, stored: Any, game: Game, now: int) -> None:
    """A Play game's move ended it (``stored`` as loaded before the move, ``game`` the engine value after).
    Race seats are left to the race's aftermath, which knows the race's clock. A failure is logged: the move
    stands and is answered all the same."""
    if seat_of(stored.id) is not None:
        return
    try:
        await History(redis, settings).record(
            stored.owner, Finished.of_solo(stored.id, game, int(stored.created), now)
        )
    except Exception:
        log.warning("recording game %s in %s's history failed", stored.id, stored.owner, exc_info=True)
