"""The daily challenge's score counts (``races/daily_stats.py``): exact counts per score from the day's
real leaderboard in Redis, and the HTTP answer, which holds counts only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import redis.asyncio as aioredis

from golfrace.races import leaderboard as lb
from golfrace.races.daily import day_of
from golfrace.races.daily_stats import score_counts

from ..accounts.helpers import sign_in_client
from .test_daily_wire import play_daily
from .test_fair_play import REVIEW_T, settled
from .test_wire import T


async def test_score_counts_per_score(rds: aioredis.Redis) -> None:
    boards = lb.Leaderboards(rds)
    board = lb.daily_board("2031-03-14")
    assert await score_counts(rds, board) == []
    results = [(350, 61_000), (350, 90_500), (340, 10_000), (0, 5_000), (350, 2**28 + 5), (120, 0)]
    for i, (score, elapsed) in enumerate(results):
        entry = lb.Entry(f"p{i}", "", score, elapsed, 40 + i, 1_000 + i, f"g{i}")
        assert await boards.submit(board, f"p{i}", entry)
    # a player's better second result replaces their first: still one count per player
    assert await boards.submit(board, "p5", lb.Entry("p5", "", 130, 0, 9, 2_000, "g9"))
    assert await score_counts(rds, board) == [(350, 3), (340, 1), (130, 1), (0, 1)]
    assert await score_counts(rds, lb.daily_board("2031-03-15")) == []


async def test_the_scores_endpoint(server: Any, server_clock: Any, make_client: Any) -> None:
    """Today's real daily, played out over the websocket: its score is counted, and nothing else is said."""
    today = day_of(server_clock())  # the server's day (its clock runs ahead by the countdowns moved on)
    player = await make_client(name="Dee")
    await sign_in_client(server.ctx.redis, player, "Dee")  # the daily board takes accounts only
    played = await play_daily(player, resign=False, clock=server_clock)
    mine = played["final"]["results"][0]["score"]
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:

        async def counted() -> dict[str, Any] | None:
            # a result near the top of the board waits for its knowledge review (a worker process, slower
            # on a loaded machine) before it is counted: the count is read once it has come
            answer = await http.get(f"/api/daily/{today}/scores")
            assert answer.status_code == 200
            body: dict[str, Any] = answer.json()
            return body if dict(body["scores"]).get(mine, 0) >= 1 else None

        body = await settled(counted, REVIEW_T)
        assert set(body) == {"date", "total", "scores"} and body["date"] == today.isoformat()
        assert body["total"] == sum(n for _, n in body["scores"]) >= 1
        assert all(len(pair) == 2 and all(type(x) is int for x in pair) for pair in body["scores"])
        assert dict(body["scores"]).get(mine, 0) >= 1  # other tests of the session may have played today too
        future = await http.get(f"/api/daily/{today + timedelta(days=1)}/scores")
        assert future.status_code == 400 and future.json()["error"] == "bad_date"
        assert (await http.get("/api/daily/2031-3-4/scores")).json()["error"] == "bad_date"
