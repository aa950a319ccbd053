"""Leaderboards in Redis sorted sets, one entry per player (their best), ordered exactly by the race ranking.

The sorted set's score is ``ranking.composite`` (the one ranking rule: score, a game played to its end
before one stopped before it (resigned, abandoned, out of time) before one of no move, time, moves), an
integer below 2**53 so the double Redis stores is exact. Ties on all of it fall back to the member's byte
order: the member is ``<finished_at ms, 13 digits>|<player>``, so the earlier finish ranks first.
Keys of board ``B`` (one Cluster slot per board):
``lb:{B}:z`` (sorted set), ``lb:{B}:p`` (player → member), ``lb:{B}:e`` (member → entry JSON).
Boards: ``code:<canonical code>`` (``N`` and ``E`` spellings share one), ``daily:<yyyy-mm-dd>``, the nine-deal
course's ``course:<canonical course code>`` and ``course-day:<yyyy-mm-dd>`` (the weekend's daily course; both
filled by ``golfrace.course``, its entries ranked by ``ranking.course_key``); a player's
personal bests are the board ``pb:<player>`` whose "players" are canonical codes, kept to the player's best
``bests_max`` codes (a code and daily board keeps everyone, so every player has a rank).

Fair play: a ranked result whose timing no human can produce (``replay.review_reason``) goes on no board; it
is kept in ``lb:{B}:review`` (player → entry JSON with its reason, same TTL) for a person to look at. A daily
attempt that ended after its day's end plus ``daily_grace_s`` goes on no daily board. A ranked result that
would enter a public board's first ``review_top`` places waits in ``lb:{B}:pending`` for its knowledge review
(knowledge.py), on no board meanwhile; its verdict puts it on its boards or in the review list. A ranked
race's result that carries fair-play flags (``draw_scout``, ``same_network``) is listed there too, as
``flagged``, for a person, and stays on its board.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Protocol

from golfrace.store import public_names as ranked
from golfrace.store import race_keys
from golfrace.store.games import RedisClient
from golfrace.wire.protocol import pack

from ..engine import GameCode
from ..engine.course import CourseCode
from . import knowledge
from .ranking import ELAPSED_BITS, MAX_SCORE, MOVES_BITS, SCORE_SHIFT, composite
from .replay import DEFAULT_CHECKS, Checks, GameRecord, counts_for_day, review_reason, verify

__all__ = [
    "ELAPSED_BITS",
    "MAX_SCORE",
    "MOVES_BITS",
    "SCORE_SHIFT",
    "Entry",
    "Leaderboards",
    "Ranked",
    "composite",
]
FINISH_DIGITS = 13
FLAGGED = "flagged"
"""``review`` of a review-list entry that only carries a ranked race's fair-play flags
(``flag_for_review``)."""

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


def member(finished_at: int, owner: str) -> str:
    return f"{finished_at:0{FINISH_DIGITS}d}|{owner}"


def code_board(code: str | GameCode) -> str:
    parsed = GameCode.parse(code) if isinstance(code, str) else code
    return f"code:{parsed}"


def daily_board(day: str) -> str:
    return f"daily:{day}"


def course_board(code: str | CourseCode) -> str:
    parsed = CourseCode.parse(code) if isinstance(code, str) else code
    return f"course:{parsed}"


def daily_course_board(day: str) -> str:
    return f"course-day:{day}"


bests_board = race_keys.bests_board


def channel(board: str) -> str:
    """Pub/sub channel announcing a board change (payload: msgpack ``{"board": name}``)."""
    return race_keys.board_part(board, "ch")


class Ranked(Protocol):
    """What a board keeps: a dataclass (stored as its JSON) with its finish time and its sorted-set key
    (``Entry``; a course's entry, ``course/``)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def finished_at(self) -> int: ...

    @property
    def key(self) -> int: ...


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
    username: str = ""
    """The account's username, shown apart from ``name`` (its display name) so that no name passes for
    another account (fair play 19.6); empty in personal bests and for a deleted account."""
    stopped: bool = False
    """The game was stopped before its own end (resigned, abandoned, out of time): scored as stuck, it ranks
    below a game of the same score played to its end (``ranking``, fair play 19.8)."""

    @classmethod
    def of(cls, record: GameRecord) -> Entry:
        """A ranked record's entry, its numbers from the server's own replay (``verify``)."""
        v = verify(record)
        return cls(
            record.player,
            record.name,
            v.score,
            record.elapsed,
            v.moves,
            record.finished_at,
            record.game,
            stopped=record.stopped,
        )

    @property
    def key(self) -> int:
        return composite(self.score, self.elapsed, self.moves, self.stopped)


class Leaderboards:
    def __init__(
        self,
        redis: RedisClient,
        ttl_s: int = 0,
        bests_max: int = 0,
        checks: Checks = DEFAULT_CHECKS,
        review_top: int = 0,
    ) -> None:
        self.redis = redis
        self.review_top = review_top
        """A result that would enter a public board's first this many places waits for its knowledge review
        (0: none does)."""
        self.checks = checks
        self.ttl_s = ttl_s
        self.bests_max = bests_max
        """The most entries of a personal-bests board (its worst go); 0: no limit."""
        self._keep = redis.register_script(KEEP_BEST)

    @staticmethod
    def _keys(board: str) -> list[str]:
        return race_keys.board_keys(board)

    async def submit(self, board: str, owner: str, entry: Ranked, cap: int = 0) -> bool:
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
        entry = Entry.of(record)
        code = str(GameCode.parse(record.code))
        changed = []
        board = daily_board(record.daily) if record.daily else code_board(code)
        reason = review_reason(record, self.checks)  # fair play: no human plays this fast
        if reason is not None:
            await self.hold_for_review(board, record.player, entry, reason)
            return []
        names = await ranked.public_names(self.redis, record.player)  # accounts only on public boards
        shown = names[0] if names is not None else None
        public = shown is not None and counts_for_day(record, self.checks)  # fair play: not after the grace
        reviewed = (
            self.review_top > 0 and len(record.log) >= self.checks.min_moves
        )  # a short game says little
        if public and reviewed:  # fair play: the knowledge review, for a place near the top
            stored = await knowledge.verdict(self.redis, record.game)
            if stored == knowledge.KNOWLEDGE:
                await self.hold_for_review(board, record.player, entry, knowledge.KNOWLEDGE)
                return []
            if stored != knowledge.CLEAR and await self.would_rank(
                board, record.player, entry, self.review_top
            ):
                await self._pend(board, record.player, entry)
                return []
        if public:
            await ranked.note_board(self.redis, record.player, board)
            username = names[1] if names is not None else ""  # fair play 19.6: marked apart on the board
            if await self.submit(
                board, record.player, replace(entry, name=shown or entry.name, username=username)
            ):
                changed.append(board)
        best = Entry(**{**asdict(entry), "code": code, "username": ""})
        if await self.submit(bests_board(record.player), code, best, self.bests_max):
            changed.append(bests_board(record.player))
        return changed

    async def would_rank(self, board: str, owner: str, entry: Ranked, top: int) -> bool:
        """Whether ``entry`` would be among ``board``'s first ``top``, and better than ``owner``'s entry."""
        z, p, _e = self._keys(board)
        mine = await self.redis.hget(p, owner)
        if mine is not None:
            current = await self.redis.zscore(z, mine)
            if current is not None and current <= entry.key:
                return False
        return int(await self.redis.zcount(z, "-inf", f"({entry.key}")) < top

    async def _pend(self, board: str, owner: str, entry: Entry) -> None:
        await self.pend(board, owner, entry)
        ttl = self.ttl_s or 30 * 86_400
        await self.redis.set(knowledge.verdict_key(entry.game), knowledge.PENDING, ex=ttl, nx=True)

    async def pend(self, board: str, owner: str, entry: Any, **extra: Any) -> None:
        """Keep ``owner``'s ``entry`` (a dataclass) off ``board`` while its knowledge review runs."""
        key = race_keys.board_part(board, "pending")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, owner, knowledge.pending_entry({**asdict(entry), **extra}))
            pipe.expire(key, self.ttl_s or 30 * 86_400)
            await pipe.execute()

    async def unpend(self, board: str, owner: str) -> None:
        """``owner``'s result on ``board`` no longer waits for its review (it was judged)."""
        await self.redis.hdel(race_keys.board_part(board, "pending"), owner)

    async def pending(self, board: str) -> dict[str, dict[str, Any]]:
        """The results of ``board`` waiting for their knowledge review: player → entry (review: pending)."""
        raw = await self.redis.hgetall(race_keys.board_part(board, "pending"))
        return {(k.decode() if isinstance(k, bytes) else str(k)): json.loads(v) for k, v in dict(raw).items()}

    async def pending_of(self, board: str, owner: str) -> dict[str, Any] | None:
        """``owner``'s result on ``board`` waiting for its knowledge review, or None."""
        raw = await self.redis.hget(race_keys.board_part(board, "pending"), owner)
        return None if raw is None else dict(json.loads(raw))

    async def settle_pending(self, record: GameRecord, value: str) -> list[str]:
        """After the knowledge review of ``record`` (its verdict ``value`` already stored): off the pending
        list, then onto its boards (``clear``) or into the review list (``knowledge``)."""
        board = daily_board(record.daily) if record.daily else code_board(GameCode.parse(record.code))
        key = race_keys.board_part(board, "pending")
        raw = await self.redis.hget(key, record.player)
        if raw is not None and json.loads(raw).get("game") == record.game:
            await self.redis.hdel(key, record.player)
        if value == knowledge.KNOWLEDGE:
            await self.hold_for_review(board, record.player, Entry.of(record), knowledge.KNOWLEDGE)
            return []
        return await self.submit_record(record)

    async def review_of(self, record: GameRecord) -> str | None:
        """What a ranked result's ``review`` says: ``too_fast``, ``pending``, ``knowledge`` or None."""
        if not record.ranked:
            return None
        return review_reason(record, self.checks) or knowledge.shown_review(
            await knowledge.verdict(self.redis, record.game)
        )

    async def flag_for_review(self, record: GameRecord, flags: list[str]) -> None:
        """A ranked race's result that carries fair-play flags (``fair_play.flags``: ``draw_scout``,
        ``same_network``) goes to the review list too, for a person: ``review: "flagged"`` with its
        ``flags``. It stays where it is (a flag is a question, not a verdict), and a held result of the same
        player on that board (``too_fast``, ``knowledge``) is never replaced by a flag."""
        if not record.ranked or not flags:
            return
        entry = Entry.of(record)
        board = daily_board(record.daily) if record.daily else code_board(GameCode.parse(record.code))
        key = race_keys.board_part(board, "review")
        held = await self.redis.hget(key, record.player)
        if held is not None and json.loads(held).get("review") != FLAGGED:
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, record.player, json.dumps({**asdict(entry), "review": FLAGGED, "flags": flags}))
            pipe.expire(key, self.ttl_s or 30 * 86_400)
            await pipe.execute()

    async def hold_for_review(self, board: str, owner: str, entry: Any, reason: str, **extra: Any) -> None:
        """Keep ``owner``'s ``entry`` (a dataclass) off ``board``, in its review list with ``reason``."""
        key = race_keys.board_part(board, "review")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, owner, json.dumps({**asdict(entry), "review": reason, **extra}))
            pipe.expire(key, self.ttl_s or 30 * 86_400)
            await pipe.execute()

    async def held_for_review(self, board: str) -> dict[str, dict[str, Any]]:
        """The results of ``board`` kept off it for review: player → entry (with ``review``, the reason)."""
        raw = await self.redis.hgetall(race_keys.board_part(board, "review"))
        return {(k.decode() if isinstance(k, bytes) else str(k)): json.loads(v) for k, v in dict(raw).items()}

    async def page(self, board: str, offset: int, limit: int) -> tuple[int, list[dict[str, Any]]]:
        z, _p, e = self._keys(board)
        # no MULTI for reads: Redis refuses commands queued in a transaction while it is over maxmemory,
        # and the boards must still be read then (a page's count and rows may be a moment apart)
        async with self.redis.pipeline(transaction=False) as pipe:
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

    async def total(self, board: str) -> int:
        """How many entries ``board`` holds."""
        return int(await self.redis.zcard(self._keys(board)[0]))

    async def rank_of(self, board: str, owner: str) -> dict[str, Any] | None:
        z, p, e = self._keys(board)
        mem = await self.redis.hget(p, owner)
        if mem is None:
            return None
        async with self.redis.pipeline(transaction=False) as pipe:  # a read: no MULTI (page, above)
            pipe.zrank(z, mem)
            pipe.hget(e, mem)
            rank, blob = await pipe.execute()
        if rank is None or blob is None:
            return None
        return {"rank": int(rank) + 1, "entry": json.loads(blob)}
