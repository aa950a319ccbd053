"""Finished games' records: the server's own move log, kept for ``RaceSettings.record_ttl_s``, replayed and
verified through the engine. Results (score, moves, time) are always derived from the replay, never taken
from a client.

Key: ``rec:{<game id>}`` — a JSON string with a TTL.

Fair play: ``review_reason`` says whether a result's move timing is humanly possible (``Checks``); a ranked
result that is not is kept but marked for review and left off the boards (leaderboard.py, docs/fair-play.md).
"""

from __future__ import annotations

import itertools
import json
import statistics
from dataclasses import dataclass, fields
from typing import Any

from golfrace.settings.races import DAY_MS, DEFAULT_SETTINGS, RaceSettings
from golfrace.store import race_keys
from golfrace.store.games import Batch, RedisClient
from golfrace.store.stored_game import Stored
from golfrace.wire.views import move_fields, pile_fields

from ..engine import Game, GameCode, Refusal, Status, deal, final_score, parse_token
from ..engine.errors import ParseError
from .daily import day_start_ms, parse_day
from .errors import RaceError
from .race import Race
from .race_data import code_text
from .racer import STOPPED, Racer

STOPPED_STATUSES = frozenset(o.value for o in STOPPED)
TOO_FAST = "too_fast"
"""``review`` of a result whose moves came faster than a human can make them."""


@dataclass(frozen=True, slots=True)
class Checks:
    """The fair-play thresholds results are checked against (from ``RaceSettings``)."""

    median_gap_ms: int = DEFAULT_SETTINGS.review_median_gap_ms
    min_moves: int = DEFAULT_SETTINGS.review_min_moves
    daily_grace_ms: int = DEFAULT_SETTINGS.daily_grace_s * 1000
    first_move_ms: int = DEFAULT_SETTINGS.review_first_move_ms
    mean_gap_ms: int = DEFAULT_SETTINGS.review_mean_gap_ms
    fast_gap_ms: int = DEFAULT_SETTINGS.review_fast_gap_ms
    fast_share: float = DEFAULT_SETTINGS.review_fast_share

    @classmethod
    def of(cls, settings: RaceSettings) -> Checks:
        return cls(
            settings.review_median_gap_ms,
            settings.review_min_moves,
            settings.daily_grace_s * 1000,
            settings.review_first_move_ms,
            settings.review_mean_gap_ms,
            settings.review_fast_gap_ms,
            settings.review_fast_share,
        )


DEFAULT_CHECKS = Checks()


@dataclass(frozen=True, slots=True)
class GameRecord:
    game: str
    code: str
    player: str
    name: str
    status: str  # won, stuck, resigned, timeout
    started_at: int  # ms since the epoch (the race's starts_at)
    finished_at: int
    log: tuple[tuple[str, int], ...]  # (token, ms after started_at)
    ranked: bool = False
    race: str | None = None
    daily: str | None = None

    @classmethod
    def of(cls, race: Race, racer: Racer, log: list[tuple[str, int]]) -> GameRecord:
        """``racer``'s record from the move log of their seat game (``(token, ms since the epoch)``)."""
        if race.starts_at is None or racer.finished_at is None:
            raise RaceError("game_not_ended", "the game has not ended", game=race.game_id(racer))
        start = race.starts_at
        return cls(
            race.game_id(racer),
            code_text(race.code),
            racer.player,
            racer.name,
            racer.status,
            race.starts_at,
            racer.finished_at,
            tuple((tok, max(0, ms - start)) for tok, ms in log),
            ranked=race.ranked,
            race=race.id,
            daily=race.daily,
        )

    @property
    def elapsed(self) -> int:
        return max(0, self.finished_at - self.started_at)

    @property
    def stopped(self) -> bool:
        """Whether the game was stopped before its own end (resigned, abandoned, out of time): it scores as
        stuck and ranks below a game played to its end (``ranking``)."""
        return self.status in STOPPED_STATUSES

    def to_json(self) -> str:
        # shallow (``asdict`` deep-copies the whole log first); the same JSON
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        data = json.loads(text)
        data["log"] = tuple((str(t), int(ms)) for t, ms in data["log"])
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Verified:
    """A record replayed through the engine: the final game and the result derived from it."""

    record: GameRecord
    game: Game
    score: int
    removed: int
    moves: int
    undos: int


def verify(record: GameRecord) -> Verified:
    """Replay the log from the deal; the status must match what the log reaches."""
    try:
        game = Game.new(GameCode.parse(record.code))
        for tok, _ms in record.log:
            game = game.apply(parse_token(tok))
    except (Refusal, ParseError) as exc:
        raise RaceError("replay_mismatch", f"the move log does not replay: {exc}", game=record.game) from None
    ended = game.status is not Status.PLAYING
    if ended != (record.status in ("won", "stuck")) or (ended and game.status.value != record.status):
        raise RaceError(
            "replay_mismatch",
            f"the log ends {game.status.value}, the record says {record.status}",
            game=record.game,
        )
    score = final_score(game, stopped=record.stopped)
    return Verified(record, game, score, game.removed, game.moves, game.undos)


def median_gap_ms(log: tuple[tuple[str, int], ...]) -> float | None:
    """The median time between two consecutive moves of a log (None for fewer than two moves)."""
    gaps = [b - a for (_, a), (_, b) in itertools.pairwise(log)]
    return statistics.median(gaps) if gaps else None


def timing_faults(record: GameRecord, checks: Checks = DEFAULT_CHECKS) -> list[str]:
    """Which human floors a game of at least ``checks.min_moves`` moves breaks: ``median`` (its median gap
    between moves), ``first_move`` (its first move after the board was shown), ``mean`` (its whole time over
    its moves), ``bursts`` (too large a share of its gaps under ``fast_gap_ms``). Only the server's own
    timestamps count."""
    log = record.log
    if len(log) < max(2, checks.min_moves):
        return []
    gaps = [b - a for (_, a), (_, b) in itertools.pairwise(log)]
    faults = []
    if statistics.median(gaps) < checks.median_gap_ms:
        faults.append("median")
    if log[0][1] < checks.first_move_ms:
        faults.append("first_move")
    if log[-1][1] < checks.mean_gap_ms * len(log):
        faults.append("mean")
    if sum(1 for g in gaps if g < checks.fast_gap_ms) > checks.fast_share * len(gaps):
        faults.append("bursts")
    return faults


def review_reason(record: GameRecord, checks: Checks = DEFAULT_CHECKS) -> str | None:
    """``too_fast`` when the game breaks a human floor of its timing (``timing_faults``); otherwise None."""
    return TOO_FAST if timing_faults(record, checks) else None


def counts_for_day(record: GameRecord, checks: Checks = DEFAULT_CHECKS) -> bool:
    """A daily attempt counts for its day only if it ended before the day's end plus the grace."""
    if record.daily is None:
        return True
    return record.finished_at < day_start_ms(parse_day(record.daily)) + DAY_MS + checks.daily_grace_ms


def steps(record: GameRecord) -> list[dict[str, Any]]:
    """One diff (without envelope) per logged move, for a move-by-move replay."""
    game = Game.new(GameCode.parse(record.code))
    out = []
    for tok, ms in record.log:
        action = parse_token(tok)
        after = game.apply(action)
        step = move_fields(game, after, action)
        step.update(pile_fields(after), t_ms=ms)
        out.append(step)
        game = after
    return out


def public(
    record: GameRecord, checks: Checks = DEFAULT_CHECKS, knowledge: str | None = None
) -> dict[str, Any]:
    """The HTTP body of ``GET /api/games/{id}`` (only ever served after the game is over); ``knowledge``:
    what its knowledge review says (``pending``, ``knowledge``, None)."""
    v = verify(record)
    review = (review_reason(record, checks) or knowledge) if record.ranked else None
    code = GameCode.parse(record.code)
    d = deal(code)
    return {
        "game": record.game,
        "code": str(code),
        "rules": code.rules.value,
        "variants": code.variants.wire(),
        "player": record.player,
        "name": record.name,
        "race": record.race,
        "daily": record.daily,
        "ranked": record.ranked,
        "review": review,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "status": record.status,
        "score": v.score,
        "removed": v.removed,
        "moves": v.moves,
        "undos": v.undos,
        "elapsed": record.elapsed,
        "log": [[t, ms] for t, ms in record.log],
        "deal": {
            "columns": [[c.code for c in col] for col in d.columns],
            "discard": None if d.discard is None else d.discard.code,
            "stock": [c.code for c in d.stock],
        },
        "steps": steps(record),
    }


def _stamps(log: list[str], created: int) -> tuple[tuple[str, int], ...]:
    """The move log as ``(token, ms after the game's creation)``; a malformed entry is skipped."""
    out = []
    for entry in log:
        token, _sep, ms = entry.rpartition(" ")
        if token and ms.lstrip("-").isdigit():
            out.append((token.partition(" ")[0], int(ms) - created))
    return tuple(out)


def solo_record(stored: Stored, log: list[str], name: str = "") -> GameRecord:
    """A solo game as a record (unranked; never saved: the stored game and its log are its truth), its moves
    timed from the game's creation: the course's holes (their timing check) and the ghosts of solo games."""
    stamps = _stamps(log, stored.created)
    last = stored.created + (stamps[-1][1] if stamps else 0)
    return GameRecord(
        stored.id,
        str(stored.game.code),
        stored.owner,
        name,
        stored.game.status.value,
        stored.created,
        last,
        stamps,
    )


record_key = race_keys.record


class RecordStore:
    def __init__(self, redis: RedisClient, ttl_s: int, batch: Batch | None = None) -> None:
        self.redis = redis
        self.ttl_s = ttl_s
        self.batch = batch
        """The store's batcher, when given: the aftermath's writes join the iteration's batch (no pool
        checkout, retry wrapper and socket timeout of a redis-py command each)."""

    async def save(self, record: GameRecord) -> bool:
        """Keep the record (first write wins: a record never changes once written)."""
        key, text = record_key(record.game), record.to_json()
        if self.batch is not None:
            return bool(await self.batch.call("SET", key, text, "EX", self.ttl_s, "NX"))
        return bool(await self.redis.set(key, text, ex=self.ttl_s, nx=True))

    async def load(self, game_id: str) -> GameRecord | None:
        raw = await self.redis.get(record_key(game_id))
        return None if raw is None else GameRecord.from_json(raw)
