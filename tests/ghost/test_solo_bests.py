"""The best solo game of a player on each deal (``store/solo_bests.py``) on a real Redis: the higher score,
then the shorter time; the same game again replaces its own numbers; one deal's best never another's."""

from __future__ import annotations

import secrets

import pytest
import redis.asyncio as aioredis

from golfrace.store.solo_bests import SoloBest, SoloBests, solo_bests_key


@pytest.mark.parametrize(
    ("first", "then", "kept"),
    [
        ((200, 90_000), (250, 120_000), "then"),  # a higher score beats a shorter time
        ((250, 90_000), (250, 60_000), "then"),  # the same score: the shorter time
        ((250, 60_000), (250, 60_000), "first"),  # a tie: the earlier
        ((250, 60_000), (200, 30_000), "first"),
    ],
)
async def test_the_best_is_the_higher_score_then_the_shorter_time(
    redis_url: str, first: tuple[int, int], then: tuple[int, int], kept: str
) -> None:
    redis = aioredis.from_url(redis_url)
    player, code = "p" + secrets.token_hex(6), "GO1-E-AAAAAAB"
    try:
        bests = SoloBests(redis, 600)
        a = SoloBest("ga" + secrets.token_hex(4), first[0], first[1], 40, 1_000)
        b = SoloBest("gb" + secrets.token_hex(4), then[0], then[1], 40, 2_000)
        await bests.note(player, code, a)
        await bests.note(player, code, b)
        assert await bests.of(player, code) == (b if kept == "then" else a)
        assert await bests.of(player, "GO1-E-AAAAAAC") is None
        again = SoloBest(a.game, 10, 999_999, 80, 3_000)  # the same game ended again (undone, played on)
        await bests.note(player, "GO1-C-AAAAAAB", a)
        await bests.note(player, "GO1-C-AAAAAAB", again)
        assert await bests.of(player, "GO1-C-AAAAAAB") == again
        assert 0 < await redis.ttl(solo_bests_key(player)) <= 600
    finally:
        await redis.aclose()
