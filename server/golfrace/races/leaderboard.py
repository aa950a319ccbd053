"""Leaderboards in Redis sorted sets, one entry per player (their best), ordered exactly by the race ranking.

Composite key (lowest first), an integer below 2**53 so the double Redis stores is exact:

    (350 - score) * 2**44  +  min(elapsed_ms, 2**28 - 1) * 2**16  +  min(moves, 2**16 - 1)

Ties on all three fall back to the member's byte order: the member is
``<finished_at ms, 13 digits>|<player>``, so the earlier finish ranks first.
Keys of board ``B`` (one Cluster slot per board):
``lb:{B}:z`` (sorted set), ``lb:{B}:p`` (player → member), ``lb:{B}:e`` (member → entry JSON).
Boards: ``code:<canonical code>`` (``N`` and ``E`` spellings share one), ``daily:<yyyy-mm-dd>``; a player's
personal bests are the board ``pb:<player>`` whose "players" are canonical codes, kept to the player's best
``bests_max`` codes (a code and daily board keeps everyone, so every player has a rank).

Fair play: a ranked result whose timing no human can produce (``replay.review_reason``) goes on no board; it
is kept in ``lb:{B}:review`` (player → entry JSON with its reason, same TTL) for a person to look at. A daily
attempt that ended after its day's end plus ``daily_grace_s`` goes on no daily board.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any

import redis.asyncio as aioredis

from ..accounts import ranked
from ..engine import GameCode
from ..engine.deal import TABLEAU
from ..engine.game import POINTS_PER_CARD
from ..protocol import pack
from .replay import DEFAULT_CHECKS, Checks, GameRecord, counts_for_day, review_reason, verify

MAX_SCORE = TABLEAU * POINTS_PER_CARD
ELAPSED_BITS = 28
MOVES_BITS = 16
FINISH_DIGITS = 13

KEEP_BEST = """
local ttl = tonumber(ARGV[5])
local function keep()
  if ttl > 0 then for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end end
end
local old = redis.call('HGET', KEYS[2], ARGV[1])
local new = tonumber(ARGV[3])
if old then
  local s = redis.call('ZSCORE', KEYS[1], old)
  if s then
    local cur = tonumber(s)
    if cur < new or (cur == new and old <= ARGV[2]) then keep() return 0 end
  end
  redis.call('ZREM', KEYS[1], old)
  redis.call('HDEL', KEYS[3], old)
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[4])
local cap = tonumber(ARGV[6])
local kept = 1
while cap > 0 and redis.call('ZCARD', KEYS[1]) > cap do
  local worst = redis.call('ZPOPMAX', KEYS[1])[1]
  redis.call('HDEL', KEYS[2], string.sub(worst, string.find(worst, '|', 1, true) + 1))
  redis.call('HDEL', KEYS[3], worst)
  if worst == ARGV[2] then kept = 0 end
end
keep()
return kept
"""


def composite(score: int, elapsed_ms: int, moves: int) -> int:
    if not 0 <= score <= MAX_SCORE:
        raise ValueError(f"score {score} outside 0..{MAX_SCORE}")
    elapsed = min(max(0, elapsed_ms), 2**ELAPSED_BITS - 1)
    moves = min(max(0, moves), 2**MOVES_BITS - 1)
    return int(((MAX_SCORE - score) << (ELAPSED_BITS + MOVES_BITS)) | (elapsed << MOVES_BITS) | moves)


def member(finished_at: int, owner: str) -> str:
    return f"{finished_at:0{FINISH_DIGITS}d}|{owner}"


def code_board(code: str | GameCode) -> str:
    parsed = GameCode.parse(code) if isinstance(code, str) else code
    return f"code:{parsed}"


def daily_board(day: str) -> str:
    return f"daily:{day}"


def bests_board(player: str) -> str:
    return f"pb:{player}"


def channel(board: str) -> str:
    """Pub/sub channel announcing a board change (payload: msgpack ``{"board": name}``)."""
    return f"lb:{{{board}}}:ch"


@dataclass(frozen=True, slots=True)
class Entry:
    player: str
    name: str
    score: int
    elapsed: int
    moves: int
    finished_at: int
    game: str
    code: str | None = None  # only in personal bests

    @property
    def key(self) -> int:
        return composite(self.score, self.elapsed, self.moves)


class Leaderboards:
    def __init__(
        self, redis: aioredis.Redis, ttl_s: int = 0, bests_max: int = 0, checks: Checks = DEFAULT_CHECKS
    ) -> None:
        self.redis = redis
        self.checks = checks
        self.ttl_s = ttl_s
        self.bests_max = bests_max
        """The most entries of a personal-bests board (its worst go); 0: no limit."""
        self._keep = redis.register_script(KEEP_BEST)

    @staticmethod
    def _keys(board: str) -> list[str]:
        base = f"lb:{{{board}}}"
        return [base + ":z", base + ":p", base + ":e"]

    async def submit(self, board: str, owner: str, entry: Entry, cap: int = 0) -> bool:
        """Keep ``entry`` as ``owner``'s entry on ``board`` if it beats their current one, and at most ``cap``
        entries (the worst go; 0: all). True if kept."""
        args: list[str | int] = [
            owner,
            member(entry.finished_at, owner),
            entry.key,
            json.dumps(asdict(entry)),
            self.ttl_s,
            cap,
        ]
        kept = await self._keep(keys=self._keys(board), args=args)
        if kept:
            await self.redis.publish(channel(board), pack({"board": board}))
        return bool(kept)

    async def submit_record(self, record: GameRecord) -> list[str]:
        """Post a finished game from the server's own record (replayed through the engine, so a client's
        numbers never count). Returns the boards that changed. Unranked records change nothing; a result
        marked for review (``review_reason``) changes none either (it is kept in the board's review hash)."""
        if not record.ranked:
            return []
        v = verify(record)
        code = str(GameCode.parse(record.code))
        entry = Entry(
            record.player, record.name, v.score, record.elapsed, v.moves, record.finished_at, record.game
        )
        changed = []
        board = daily_board(record.daily) if record.daily else code_board(code)
        reason = review_reason(record, self.checks)  # fair play: no human plays this fast
        if reason is not None:
            await self._hold_for_review(board, record.player, entry, reason)
            return []
        shown = await ranked.public_name(self.redis, record.player)  # accounts only on public boards
        if shown is not None and counts_for_day(record, self.checks):  # fair play: not after the grace
            await ranked.note_board(self.redis, record.player, board)
            if await self.submit(board, record.player, replace(entry, name=shown)):
                changed.append(board)
        best = Entry(**{**asdict(entry), "code": code})
        if await self.submit(bests_board(record.player), code, best, self.bests_max):
            changed.append(bests_board(record.player))
        return changed

    async def _hold_for_review(self, board: str, owner: str, entry: Entry, reason: str) -> None:
        key = f"lb:{{{board}}}:review"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, owner, json.dumps({**asdict(entry), "review": reason}))
            pipe.expire(key, self.ttl_s or 30 * 86_400)
            await pipe.execute()

    async def held_for_review(self, board: str) -> dict[str, dict[str, Any]]:
        """The results of ``board`` kept off it for review: player → entry (with ``review``, the reason)."""
        raw = await self.redis.hgetall(f"lb:{{{board}}}:review")
        return {(k.decode() if isinstance(k, bytes) else str(k)): json.loads(v) for k, v in dict(raw).items()}

    async def page(self, board: str, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
        z, _p, e = self._keys(board)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zcard(z)
            pipe.zrange(z, offset, offset + limit - 1)
            total, members = await pipe.execute()
        if not members:
            return int(total), []
        raw = await self.redis.hmget(e, members)
        out = []
        for i, blob in enumerate(raw):
            if blob is not None:
                out.append({"rank": offset + i + 1, **json.loads(blob)})
        return int(total), out

    async def rank_of(self, board: str, owner: str) -> dict[str, Any] | None:
        z, p, e = self._keys(board)
        mem = await self.redis.hget(p, owner)
        if mem is None:
            return None
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrank(z, mem)
            pipe.hget(e, mem)
            rank, blob = await pipe.execute()
        if rank is None or blob is None:
            return None
        return {"rank": int(rank) + 1, "entry": json.loads(blob)}
