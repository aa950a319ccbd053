"""No pending result is stranded (fair play 19.3): a result waiting for its knowledge review gets its verdict
whatever becomes of the instance that queued it, with nobody asking (``races/review_due.py``), and the review
workers run below the server. Each test has a Redis of its own: every instance sweeps the one "to review"
record, the session's servers included."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from golfrace.races import knowledge
from golfrace.races.daily import day_start_ms
from golfrace.races.followers import RaceWire
from golfrace.races.leaderboard import daily_board
from golfrace.races.review_due import DUE_KEY, ReviewDue
from golfrace.settings import Settings
from golfrace.settings.races import RaceSettings
from golfrace.store.embedded import RedisServer
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from ..clock import MovableClock as Clock
from ..own_server import private_redis
from .test_fair_play import DAY, HOUR_MS, REVIEW_T, settled
from .test_knowledge import play_honest_daily

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis(tmp_path / "redis") as server:
        yield server


@pytest.fixture
async def due(own_redis: RedisServer) -> AsyncIterator[ReviewDue]:
    redis = aioredis.Redis.from_url(own_redis.url)
    try:
        yield ReviewDue(redis, 3_600)
    finally:
        await redis.aclose()


async def test_a_review_is_one_instances_until_its_lease_runs_out_and_comes_back_at_once_on_a_stop(
    due: ReviewDue,
) -> None:
    now = 1_000_000
    await due.note("g-killed", now + 60_000)  # queued by an instance that is then killed: it renews nothing
    await due.note("g-stopped", now + 60_000)  # queued by one that stops: it gives its leases back
    await due.note("g-full", now + 5_000)  # its instance's queue was full
    assert await due.take(now, now + 60_000) == []  # all still held
    await due.release(["g-stopped"], now)
    assert await due.take(now, now + 60_000) == ["g-stopped"]  # at once, for the next instance
    assert await due.take(now, now + 60_000) == []  # now that instance's own
    assert await due.take(now + 5_000, now + 65_000) == ["g-full"]
    await due.renew(["g-stopped", "g-full"], now + 120_000)  # their new holders keep them, sweep after sweep
    assert await due.take(now + 60_000, now + 120_000) == ["g-killed"]  # the lease ran out
    assert await due.take(now + 119_000, now + 179_000) == []
    await due.done("g-full")
    await due.renew(["g-full"], now)  # a renewal never brings back a review that is done
    assert await due.when("g-full") is None
    assert await due.redis.ttl(DUE_KEY) > 0


async def test_two_instances_sweeping_at_once_never_take_one_review_twice(due: ReviewDue) -> None:
    now = 1_000_000
    games = [f"g{i}" for i in range(40)]
    for game in games:
        await due.note(game, now)
    taken = await asyncio.gather(*(due.take(now, now + 60_000, 8) for _ in range(6)))
    flat = [game for batch in taken for game in batch]
    assert len(flat) == len(set(flat)) == 40
    assert sorted(flat) == sorted(games)


async def test_a_pending_daily_left_by_a_stopped_instance_is_judged_after_a_restart_with_no_request(
    settings: Settings, own_redis: RedisServer, tmp_path: Path
) -> None:
    clock = Clock()
    day = DAY + timedelta(days=21)
    clock.set(day_start_ms(day) + 12 * HOUR_MS)
    real = replace(settings.races, review_min_moves=RaceSettings().review_min_moves)
    mine = settings.with_(port=0, redis_url=own_redis.url)
    made: list[Client] = []
    # the first instance queues no review (its queue is full: review_queue_max 0), then stops
    async with running_server(mine.with_(races=replace(real, review_queue_max=0)), clock=clock) as first:
        service = first.ctx.get(RaceWire).service
        try:
            player, game = await play_honest_daily(first, clock, made, day)
        finally:
            for client in made:
                await client.close()
        result = await settled(lambda: service.daily.result(day, player))
        assert result["review"] == knowledge.PENDING
        assert await settled(lambda: service.reviews.due.when(game))  # noted for any instance, just after
        assert await service.reviews.sweep() == 0  # this one takes nothing
        await clock.advance(1.0)  # its sweeps run
        assert await knowledge.verdict(service.redis, game) == knowledge.PENDING
    board = daily_board(day.isoformat())
    # a restarted instance, and nobody sends a request: its start-up sweep takes the review
    async with running_server(mine.with_(races=real), clock=clock) as second:
        service = second.ctx.get(RaceWire).service
        await clock.advance(10.0)  # past the full queue's retry

        async def judged() -> str | None:
            stored = await knowledge.verdict(service.redis, game)
            return None if stored == knowledge.PENDING else stored

        assert await settled(judged, REVIEW_T) == knowledge.CLEAR

        async def on_board() -> list[dict[str, Any]] | None:
            total, entries = await service.boards.page(board, 0, 10)
            return entries if total else None

        assert [e["player"] for e in await settled(on_board)] == [player]
        assert await service.boards.pending(board) == {}

        async def daily_cleared() -> dict[str, Any] | None:
            result = await service.daily.result(day, player)
            return result if result and result["review"] is None else None

        await settled(daily_cleared)

        async def record_gone() -> bool | None:  # the "to review" record goes last
            return await service.reviews.due.when(game) is None or None

        assert await settled(record_gone)


async def test_a_verdict_written_but_not_followed_is_followed_by_the_sweep(
    settings: Settings, own_redis: RedisServer
) -> None:
    """An instance killed between the verdict's write and the board's: the next sweep moves the result onto
    its board without a second review (the verdict is written once)."""
    clock = Clock()
    day = DAY + timedelta(days=22)
    clock.set(day_start_ms(day) + 12 * HOUR_MS)
    real = replace(settings.races, review_min_moves=RaceSettings().review_min_moves)
    mine = settings.with_(port=0, redis_url=own_redis.url)
    made: list[Client] = []
    async with running_server(mine.with_(races=replace(real, review_queue_max=0)), clock=clock) as first:
        service = first.ctx.get(RaceWire).service
        try:
            player, game = await play_honest_daily(first, clock, made, day)
        finally:
            for client in made:
                await client.close()
        await settled(lambda: service.daily.result(day, player))

        async def noted() -> bool | None:  # a verdict is only ever written for a review already noted
            return await service.reviews.due.when(game) is not None or None

        await settled(noted)
        await service.redis.set(knowledge.verdict_key(game), knowledge.CLEAR)  # written, then killed
    async with running_server(mine.with_(races=real), clock=clock) as second:
        service = second.ctx.get(RaceWire).service
        await clock.advance(10.0)
        board = daily_board(day.isoformat())

        async def on_board() -> list[dict[str, Any]] | None:
            total, entries = await service.boards.page(board, 0, 10)
            return entries if total else None

        assert [e["player"] for e in await settled(on_board)] == [player]
        assert service.reviews._pool is None  # no worker started: nothing was reviewed again


async def test_the_review_workers_run_below_the_server(settings: Settings, own_redis: RedisServer) -> None:
    races = replace(settings.races, review_nice=7)
    async with running_server(settings.with_(port=0, redis_url=own_redis.url, races=races)) as running:
        reviews = running.ctx.get(RaceWire).service.reviews
        loop = asyncio.get_running_loop()
        theirs = await loop.run_in_executor(reviews._executor(), os.nice, 0)
    assert theirs == min(19, os.nice(0) + 7)
