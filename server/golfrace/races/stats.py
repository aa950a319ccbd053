"""A player's own games, for their stats page: what the server saw end (never a client's numbers).

Keys (one Cluster slot per player): ``stats:{<player>}:e`` (hash: game id → entry JSON) and
``stats:{<player>}:z`` (sorted set: game id → finished at, ms). An entry is written when a game ends: a
race seat or a daily attempt from its record (``RaceService._finish``), a Play game when its last move is
committed. Written again for the same game (a stuck Play game undone and then won) it is replaced, so a game
counts once, as it ended last. A player keeps their latest ``stats_games_max`` games; the keys expire
``stats_ttl_s`` after the last game.

Only the player's own token reads them (``GET /api/players/me/stats``): nobody learns another player's games.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

import redis.asyncio as aioredis

from ..engine import Game, Status
from .replay import GameRecord, Verified

log = logging.getLogger("golfrace.races")
MODES = ("solo", "race", "daily")
RECENT = 30
"""Games in the stats' ``recent`` list (the chart of recent scores)."""

KEEP = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local cap = tonumber(ARGV[4])
local n = redis.call('ZCARD', KEYS[2])
if cap > 0 and n > cap then
  local old = redis.call('ZRANGE', KEYS[2], 0, n - cap - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, n - cap - 1)
  redis.call('HDEL', KEYS[1], unpack(old))
end
local ttl = tonumber(ARGV[5])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return 1
"""


@dataclass(frozen=True, slots=True)
class Played:
    """One finished game of a player."""

    game: str
    mode: str  # solo, race, daily
    rules: str  # easy, classic
    status: str  # won, stuck, resigned, timeout, abandoned
    score: int
    moves: int
    elapsed: int  # ms
    finished_at: int  # ms since the epoch
    ranked: bool = False

    @classmethod
    def of_record(cls, record: GameRecord, verified: Verified) -> Played:
        return cls(
            record.game,
            "daily" if record.daily else "race",
            verified.game.code.rules.value,
            record.status,
            verified.score,
            verified.moves,
            record.elapsed,
            record.finished_at,
            record.ranked,
        )

    @classmethod
    def of_solo(cls, game_id: str, game: Game, created: int, now: int) -> Played:
        return cls(
            game_id,
            "solo",
            game.code.rules.value,
            game.status.value,
            game.score,
            game.moves,
            max(0, now - created),
            now,
        )


def key(player: str) -> tuple[str, str]:
    base = f"stats:{{{player}}}"
    return base + ":e", base + ":z"


class History:
    def __init__(self, redis: aioredis.Redis, keep: int, ttl_s: int) -> None:
        self.redis = redis
        self.keep = keep
        self.ttl_s = ttl_s
        self._keep = redis.register_script(KEEP)

    async def note(self, player: str, played: Played) -> None:
        args: list[str | int] = [
            played.game,
            played.finished_at,
            json.dumps(asdict(played)),
            self.keep,
            self.ttl_s,
        ]
        await self._keep(keys=list(key(player)), args=args)

    async def games(self, player: str) -> list[Played]:
        """The player's kept games, oldest first."""
        entries, order = key(player)
        ids: list[Any] = await self.redis.zrange(order, 0, -1)
        if not ids:
            return []
        raw = await self.redis.hmget(entries, ids)
        return [Played(**json.loads(blob)) for blob in raw if blob is not None]


def summarize(games: list[Played], daily_streak: int, best_daily_streak: int) -> dict[str, Any]:
    """The stats page's numbers from the player's games (oldest first)."""
    modes: dict[str, dict[str, Any]] = {}
    for mode in MODES:
        mine = [g for g in games if g.mode == mode]
        won = [g for g in mine if g.status == Status.WON.value]
        modes[mode] = {
            "played": len(mine),
            "won": len(won),
            "best_score": max((g.score for g in mine), default=None),
            "best_time": min((g.elapsed for g in won), default=None),
        }
    won_total = sum(m["won"] for m in modes.values())
    run = best_run = 0
    for g in games:
        run = run + 1 if g.status == Status.WON.value else 0
        best_run = max(best_run, run)
    return {
        "played": len(games),
        "won": won_total,
        "win_rate": round(won_total / len(games), 4) if games else None,
        "modes": modes,
        "win_streak": run,
        "best_win_streak": best_run,
        "daily_streak": daily_streak,
        "best_daily_streak": best_daily_streak,
        "recent": [
            {
                "mode": g.mode,
                "status": g.status,
                "score": g.score,
                "elapsed": g.elapsed,
                "finished_at": g.finished_at,
            }
            for g in games[-RECENT:]
        ],
    }


async def player_stats(service: Any, player: str, today: date) -> dict[str, Any]:
    games = await service.history.games(player)
    streak = await service.daily.streak(player)
    return summarize(games, streak.current(today), streak.best)


def solo_hook(history: History, clock: Callable[[], int]) -> Callable[[Any, Game], Awaitable[None]]:
    """``ctx.extras["game_over"]``: a Play game's last move was committed (a race seat's game is noted from
    its record when the race ends). A failure is logged: the move stands and is answered all the same."""

    async def game_over(stored: Any, after: Game) -> None:
        from .service import split_game_id  # the service imports this module

        if after.status is Status.PLAYING or split_game_id(stored.id) is not None:
            return
        try:
            await history.note(stored.owner, Played.of_solo(stored.id, after, stored.created, clock()))
        except Exception:
            log.warning("noting game %s in %s's stats failed", stored.id, stored.owner, exc_info=True)

    return game_over
