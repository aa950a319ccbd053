"""The durable "to finish" record of race ends (issue 20.14): a race's results are written whatever fails at
its end, without anyone touching the race again.

Keys ``races:{finish:0}`` … ``races:{finish:15}``: sorted sets of race ids, scored by when (ms) an instance
should next try to complete the race's end. Sixteen, spread over the hash slots (like ``follow:{0..15}``,
``live/solo_follow.py``), so that one shard in a failover stops no race's end (issue 20.15): a race's record
goes to its own bucket (``home``: a hash of its id), or, when that bucket's shard refuses it, to the next one
that takes it (``NOTE_TIMEOUT_S`` each, ``NOTE_BUDGET_S`` in all). The write that ends a race is preceded by
its record (``note``), so a process killed between that write and the end's aftermath (records, boards,
bests, histories, the daily result) leaves the record behind; the aftermath's last step removes it from the
home bucket (``done``; a record a failover sent elsewhere is dropped by the sweep, which finds the race
finalized). Every instance, a restarted one included, completes the records that are due in every bucket at
start-up and every ``sweep_interval_s`` (``ending.Ending.due``); a failure (Redis away, a refused write)
puts the record back later, with a backoff of ``FINISH_RETRY_S``. Each key expires ``race_ttl_s`` after the
last end noted in it (the races it names expire as soon). ``races:{finish}``, the one key of before, is still
read by the sweep."""

from __future__ import annotations

import asyncio
import logging
import zlib
from typing import Any

from golfrace.store import race_keys
from golfrace.store.games import Batch, RedisClient

log = logging.getLogger("golfrace.races")

BUCKETS = 16
LEGACY_KEY = race_keys.FINISH_LEGACY
"""The single key of the first version: still swept, so that a record an older instance wrote is done."""
NOTE_TIMEOUT_S = 0.25
NOTE_BUDGET_S = 1.0
"""Each bucket gets ``NOTE_TIMEOUT_S`` to take a record, all of them together ``NOTE_BUDGET_S``: the end's
write waits for no more."""
FINISH_RETRY_S = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
"""Waits before the next attempt at an end whose aftermath failed (the last one repeats)."""
FINISH_GRACE_MS = 2_000
"""An end is due this long after its write: the writer's own aftermath normally completes it by then."""
FINISH_BATCH = 50
"""The most due ends one sweep of one instance takes from one bucket."""


bucket_key = race_keys.finish_bucket


KEYS = (*(bucket_key(n) for n in range(BUCKETS)), LEGACY_KEY)
"""Every key the sweep reads."""


def home(race_id: str) -> int:
    """The bucket a race's record goes to first (a stable hash of its id, the same on every instance)."""
    return zlib.crc32(race_id.encode()) % BUCKETS


def backoff(attempts: int) -> float:
    """The wait (seconds) after ``attempts`` failed attempts (1: the first failed)."""
    return FINISH_RETRY_S[min(max(attempts, 1), len(FINISH_RETRY_S)) - 1]


class Finishing:
    def __init__(self, redis: RedisClient, ttl_s: int, batch: Batch | None = None) -> None:
        self.redis = redis
        self.ttl_s = ttl_s
        self.batch = batch
        """The store's batcher, when given: a race end's record and its removal join the iteration's batch."""

    async def note(self, race_id: str, due_ms: int) -> str | None:
        """Before the write that ends the race: complete it from ``due_ms`` on unless ``done`` comes first.
        Kept in the first bucket from the race's home on whose shard takes it; returns its key, or None when
        none did (logged: the end goes on, and whoever touches the race next completes it)."""
        loop = asyncio.get_running_loop()
        stop = loop.time() + NOTE_BUDGET_S
        first = home(race_id)
        for i in range(BUCKETS):
            if i and loop.time() >= stop:
                break
            key = bucket_key((first + i) % BUCKETS)
            try:
                async with asyncio.timeout(NOTE_TIMEOUT_S):
                    await self._note(key, race_id, due_ms)
                return key
            except Exception as exc:  # this bucket's shard refuses it (a failover): the next bucket
                log.warning("the end of race %s not noted in %s: %r", race_id, key, exc)
        log.error("the end of race %s: no shard took its to-finish record", race_id)
        return None

    async def _note(self, key: str, race_id: str, due_ms: int) -> None:
        if self.batch is not None:
            await self.batch.transaction([("ZADD", key, "NX", due_ms, race_id), ("EXPIRE", key, self.ttl_s)])
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {race_id: due_ms}, nx=True)
            pipe.expire(key, self.ttl_s)
            await pipe.execute()

    async def later(self, race_id: str, due_ms: int, key: str | None = None) -> None:
        """Try again at ``due_ms`` (only while the record is still in ``key``, by default the home bucket)."""
        await self.redis.zadd(key or bucket_key(home(race_id)), {race_id: due_ms}, xx=True)

    async def done(self, race_id: str, key: str | None = None) -> None:
        """Drop the record from ``key`` (by default the race's home bucket)."""
        key = key or bucket_key(home(race_id))
        if self.batch is not None:
            await self.batch.call("ZREM", key, race_id)
        else:
            await self.redis.zrem(key, race_id)

    async def due(self, now_ms: int, n: int = FINISH_BATCH) -> list[tuple[str, str]]:
        """The records due by ``now_ms``, as ``(key, race id)``, from every bucket whose shard answers."""
        out: list[tuple[str, str]] = []
        if self.batch is not None:  # every bucket in one batch (one write), each reply or failure its own
            batch = self.batch
            reads = [batch.call("ZRANGEBYSCORE", key, "-inf", now_ms, "LIMIT", 0, n) for key in KEYS]
            replies = await asyncio.gather(*reads, return_exceptions=True)
        else:
            replies = [await self._read(key, now_ms, n) for key in KEYS]
        for key, ids in zip(KEYS, replies, strict=True):
            if isinstance(ids, BaseException):  # this bucket's shard is away: the next sweep
                log.warning("sweeping %s failed: %r", key, ids)
                continue
            out += [(key, i.decode() if isinstance(i, bytes) else str(i)) for i in ids]
        return out

    async def _read(self, key: str, now_ms: int, n: int) -> Any:
        try:
            return await self.redis.zrangebyscore(key, "-inf", now_ms, start=0, num=n)
        except Exception as exc:
            return exc
