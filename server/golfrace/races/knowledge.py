"""The knowledge review of ranked results, in the background (fair play, issue 19.3).

A ranked result that would enter a board's first ``review_top`` places is *pending*: it is kept in
``lb:{B}:pending`` (player → entry JSON, with its game), shown nowhere on the board, and its game's verdict
``rev:{<game id>}`` reads ``pending``. A worker process then replays its move log through
``strategy.review`` (the solver on stock orders sampled from what the player could see, against the true
stock) within ``review_cpu_s`` of CPU time. Its verdict is written once (``clear`` or ``knowledge``):

- ``clear``: the result goes onto its boards as any other would have (``Leaderboards.submit_record``);
- ``knowledge``: it goes to the review list ``lb:{B}:review`` with that reason, as a too-fast result does.

Either way the races service's ``review_hooks`` hear it (the pool applies a quick race's held rating change
on ``clear``, and flags the player on ``knowledge``).

A daily attempt's result says ``review: "pending"`` meanwhile, and its streak is extended only once it is
cleared. Reviews wait in a bounded queue per instance (``review_queue_max``). None is stranded: a pending
result is noted in the durable "to review" record (``review_due.py``) before it is queued, held by a lease
its instance renews every sweep; a review that finds the queue full, or whose instance stops or dies before
the verdict, is taken by any instance's sweep (at start-up and every ``sweep_interval_s``). A verdict already
written but not yet followed (the boards, the daily result) is followed by the sweep without a new review.
The worker processes run ``review_nice`` steps below the server (``os.nice``), so the operating system gives
the server's moves and sign-ins the CPU first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import random
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from golfrace.live.hint_worker import lower_priority
from golfrace.store import race_keys
from golfrace.store.games import RedisClient

from ..strategy.review import review
from .replay import GameRecord
from .review_due import REVIEW_RETRY_MS, TAKE_BATCH, ReviewDue
from .timers import pause

if TYPE_CHECKING:
    from .service import RaceService

log = logging.getLogger("golfrace.races")

PENDING = "pending"
CLEAR = "clear"
KNOWLEDGE = "knowledge"
"""``review`` of a result whose choices kept needing the hidden stock."""


WRITE_ONCE = """
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[2] then return v end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return ARGV[1]
"""
"""The verdict's one write: a verdict other than ``pending`` is never overwritten; the stored one is
returned (a second review of one game, on another instance, follows the first)."""


verdict_key = race_keys.verdict


async def verdict(redis: RedisClient, game_id: str) -> str | None:
    raw = await redis.get(verdict_key(game_id))
    return None if raw is None else (raw.decode() if isinstance(raw, bytes) else str(raw))


def shown_review(stored: str | None) -> str | None:
    """What a result's ``review`` says of a stored verdict: ``pending``, ``knowledge``, or None (cleared)."""
    return stored if stored in (PENDING, KNOWLEDGE) else None


@dataclass(frozen=True, slots=True)
class Outcome:
    score: float
    decisions: int
    complete: bool
    cpu_s: float


def judge(code: str, tokens: list[str], seed: str, cpu_s: float) -> Outcome:
    """One game's review, run in a worker process: its CPU time is the budget (``time.process_time``)."""
    start = time.process_time()
    result = review(code, tokens, random.Random(seed), clock=time.process_time, max_seconds=cpu_s)
    return Outcome(result.score, result.informative, result.complete, time.process_time() - start)


class KnowledgeReviews:
    """This instance's review queue and its worker processes (started on the first review)."""

    def __init__(self, service: RaceService) -> None:
        self.service = service
        self.settings = service.settings
        self.queue: asyncio.Queue[GameRecord] = asyncio.Queue(max(1, self.settings.review_queue_max))
        self._pool: Executor | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._queued: set[str] = set()
        """Games queued or under review here (the aftermath may run twice); their leases are renewed."""
        self.due = ReviewDue(service.redis, self.settings.record_ttl_s or 30 * 86_400)
        self._write_once = service.redis.register_script(WRITE_ONCE)

    @property
    def lease_ms(self) -> int:
        return int(self.settings.review_lease_s * 1000)

    async def take(self, record: GameRecord) -> bool:
        """Note a pending result's review durably (``review_due.py``), held by this instance's lease, and
        queue it; a full queue leaves it due again soon, for any instance. False when it was not queued."""
        now = self.service.clock()
        await self.due.note(record.game, now + self.lease_ms)
        if self.schedule(record):
            return True
        await self.due.renew([record.game], now + REVIEW_RETRY_MS)
        return False

    def schedule(self, record: GameRecord) -> bool:
        """Queue ``record``'s review; False (it stays pending) when the queue is full."""
        if record.game in self._queued:
            return True
        if self.settings.review_queue_max == 0:
            return False
        try:
            self.queue.put_nowait(record)
            self._queued.add(record.game)
        except asyncio.QueueFull:
            log.warning("knowledge review queue full: %s stays pending", record.game)
            return False
        if not self._workers:
            for _ in range(max(1, self.settings.review_workers)):
                self._workers.append(self.service.tasks.spawn(self._work()))
        return True

    def _executor(self) -> Executor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")  # never fork a process running an event loop
            self._pool = ProcessPoolExecutor(
                max(1, self.settings.review_workers),
                mp_context=context,
                initializer=lower_priority,  # below the server: its moves and sign-ins get the CPU first
                initargs=(self.settings.review_nice,),
            )
        return self._pool

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            record = await self.queue.get()
            try:
                outcome = await loop.run_in_executor(
                    self._executor(),
                    judge,
                    record.code,
                    [tok for tok, _ in record.log],
                    record.game,
                    self.settings.review_cpu_s,
                )
                await self.settle(record, outcome)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("knowledge review of %s failed; it is due again later", record.game)
                with contextlib.suppress(Exception):  # Redis away: the lease runs out instead
                    await self.due.renew([record.game], self.service.clock() + REVIEW_RETRY_MS)
            finally:
                self._queued.discard(record.game)

    async def judge_game(self, code: str, tokens: list[str], seed: str) -> Outcome:
        """One game's review in this instance's worker processes (``review_cpu_s`` of CPU), outside the
        queue of ranked records: the course's holes (``golfrace.course``), whose verdict is the course's."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor(), judge, code, tokens, seed, self.settings.review_cpu_s
        )

    def holds(self, outcome: Outcome) -> bool:
        """Whether a review's ``outcome`` holds its result (``knowledge``)."""
        return outcome.score >= self.settings.review_threshold

    async def settle(self, record: GameRecord, outcome: Outcome) -> str:
        """Write the verdict once, then move the pending result onto its boards or to the review list."""
        held = self.holds(outcome)
        ttl = self.settings.record_ttl_s or 30 * 86_400
        stored = await self._write_once(
            keys=[verdict_key(record.game)], args=[KNOWLEDGE if held else CLEAR, PENDING, ttl]
        )
        value = stored.decode() if isinstance(stored, bytes) else str(stored)
        log.info(
            "knowledge review %s: %s (score %.1f, %d decisions, %.1f s CPU%s)",
            record.game,
            value,
            outcome.score,
            outcome.decisions,
            outcome.cpu_s,
            "" if outcome.complete else ", cut short by the budget",
        )
        await self.follow(record, value)
        return value

    async def follow(self, record: GameRecord, value: str) -> None:
        """What a written verdict moves (each step safe to run twice): the result onto its boards or into the
        review list, the daily result and its streak; then the "to review" record goes."""
        await self.service.boards.settle_pending(record, value)
        if record.daily and record.ranked:
            await self.service.daily.settle_review(
                date.fromisoformat(record.daily), record.player, record.game, shown_review(value)
            )
        for hook in self.service.review_hooks:  # the extensions' steps (the pool's held ratings and flags)
            try:
                await hook(record, value)
            except Exception:
                log.exception("a step after the knowledge review of %s failed", record.game)
        await self.due.done(record.game)

    async def sweep(self) -> int:
        """Renew the leases of the reviews held here, then take the due ones there is room for: queue each
        still pending, follow each already judged, drop each whose record or verdict has expired. Returns how
        many were taken."""
        if self.settings.review_queue_max == 0:
            return 0  # this instance reviews nothing
        now = self.service.clock()
        await self.due.renew(self._queued, now + self.lease_ms)
        room = min(TAKE_BATCH, self.queue.maxsize - self.queue.qsize())
        taken = await self.due.take(now, now + self.lease_ms, room)
        for game in taken:
            if game in self._queued:
                continue
            stored = await verdict(self.service.redis, game)
            record = await self.service.records.load(game) if stored is not None else None
            if record is None or stored is None:  # expired: nothing left to judge or to move
                await self.due.done(game)
            elif stored != PENDING:
                await self.follow(record, stored)
            elif self.schedule(record):
                log.info("knowledge review of %s taken from the to-review record", game)
            else:
                await self.due.renew([game], now + REVIEW_RETRY_MS)
        return len(taken)

    async def sweep_forever(self) -> None:
        """``sweep`` at start-up and every ``sweep_interval_s``; Redis away is logged, then retried."""
        while True:
            try:
                await self.sweep()
            except Exception as exc:
                log.warning("taking due knowledge reviews failed: %s", exc)
            await pause(self.service.clock, self.settings.sweep_interval_s)

    async def close(self) -> None:
        """Give the reviews held here back (due at once for the next instance), then stop."""
        if self._queued:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.due.release(self._queued, self.service.clock()), 2.0)
        for task in self._workers:
            task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def pending_entry(entry: dict[str, Any]) -> str:
    return json.dumps({**entry, "review": PENDING})
