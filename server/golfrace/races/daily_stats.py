"""How a day's daily challenge went for everyone: how many players finished with each score (the result
dialog's histogram and the player's percentile). Only counts per score: no names, times, moves, codes or
cards, so it says nothing about the deal while its day is on beyond what the day's leaderboard shows.

``GET /api/daily/{yyyy-mm-dd}/scores`` → ``{"date", "total", "scores": [[score, count], ...]}`` (every score
that someone reached, highest first). 400 ``bad_date`` for a malformed or future day. Counted from the day's
leaderboard (``lb:{daily:<day>}:z``, one entry per player: their ranked first attempt) with one ``ZCOUNT``
per possible score — 36 — in one round trip, whatever the number of players.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.store import race_keys

from ..engine.game import POINTS_PER_CARD
from . import leaderboard as lb
from .daily import parse_day
from .errors import RaceError

SCORE_SHIFT = lb.SCORE_SHIFT  # the composite key's score part (ranking.py)


async def score_counts(redis: Any, board: str) -> list[tuple[int, int]]:
    """[(score, players)] of ``board``, highest score first, scores nobody reached left out."""
    scores = list(range(lb.MAX_SCORE, -1, -POINTS_PER_CARD))
    key = race_keys.board_part(board, "z")
    async with redis.pipeline(transaction=False) as pipe:
        for score in scores:
            low = (lb.MAX_SCORE - score) << SCORE_SHIFT
            pipe.zcount(key, low, low + (1 << SCORE_SHIFT) - 1)
        counts = await pipe.execute()
    return [(score, int(n)) for score, n in zip(scores, counts, strict=True) if n]


async def scores_endpoint(request: Request) -> Response:
    ctx = request.app.state.ctx
    try:
        day = parse_day(request.path_params["day"][:12], ctx.clock())
    except RaceError as exc:
        return JSONResponse({"error": exc.code, "message": exc.message}, status_code=400)
    counts = await score_counts(ctx.redis, lb.daily_board(day.isoformat()))
    body = {"date": day.isoformat(), "total": sum(n for _, n in counts), "scores": [list(c) for c in counts]}
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


def routes() -> list[BaseRoute]:
    return [Route("/api/daily/{day}/scores", scores_endpoint)]
