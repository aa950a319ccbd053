"""The durable "to review" record of pending results (fair play 19.3): a ranked result that waits for its
knowledge review gets its verdict whatever becomes of the instance that queued it, without anyone asking.

Key ``reviews:{due}``: a sorted set of game ids, scored by when (ms) an instance may next take the game's
review. The race's aftermath notes a pending result before it queues the review (the aftermath itself is
completed by the durable "to finish" record, ``finishing.py``, so a process killed before the note is
followed by one that notes it), with a *lease*: the instance that queued it keeps pushing the time on every
sweep while the review waits or runs (``renew``). An instance that stops gives its leases back (``release``:
due at once); one that is killed simply stops renewing, and its reviews are due ``review_lease_s`` later.
A queue that is full notes the result due again after ``REVIEW_RETRY_MS``. Every instance, a restarted one
included, takes the due reviews it has room for at start-up and every ``sweep_interval_s`` (``take``: one
script, so two instances never take one review). The verdict's write removes the entry (``done``). The key
expires ``record_ttl_s`` after the last note (the records the reviews read expire as soon)."""

from __future__ import annotations

from collections.abc import Iterable

from golfrace.store import race_keys
from golfrace.store.games import RedisClient

DUE_KEY = race_keys.REVIEWS_DUE
REVIEW_RETRY_MS = 5_000
"""A review that found the queue full (or failed) is due again this long after (ms), on any instance."""
TAKE_BATCH = 20
"""The most due reviews one sweep of one instance takes (and at most the room left in its queue)."""

TAKE = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
return ids
"""


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class ReviewDue:
    def __init__(self, redis: RedisClient, ttl_s: int) -> None:
        self.redis = redis
        self.ttl_s = ttl_s
        self._take = redis.register_script(TAKE)

    async def note(self, game_id: str, due_ms: int) -> None:
        """A pending result's review is this instance's until ``due_ms`` (then anyone's)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(DUE_KEY, {game_id: due_ms})
            pipe.expire(DUE_KEY, self.ttl_s)
            await pipe.execute()

    async def take(self, now_ms: int, lease_until_ms: int, n: int = TAKE_BATCH) -> list[str]:
        """The reviews due at ``now_ms`` (at most ``n``), each now this caller's until ``lease_until_ms``."""
        if n <= 0:
            return []
        ids = await self._take(keys=[DUE_KEY], args=[now_ms, lease_until_ms, n])
        return [_text(i) for i in ids]

    async def renew(self, game_ids: Iterable[str], lease_until_ms: int) -> None:
        """Keep the reviews this instance holds (only those still noted)."""
        held = dict.fromkeys(game_ids, lease_until_ms)
        if held:
            await self.redis.zadd(DUE_KEY, held, xx=True)

    async def release(self, game_ids: Iterable[str], now_ms: int) -> None:
        """Give reviews back: due at once, for any instance."""
        await self.renew(game_ids, now_ms)

    async def done(self, game_id: str) -> None:
        await self.redis.zrem(DUE_KEY, game_id)

    async def when(self, game_id: str) -> int | None:
        """When ``game_id``'s review is due (ms), or None when it is not noted."""
        score = await self.redis.zscore(DUE_KEY, game_id)
        return None if score is None else int(score)
