"""The ghost extension (``EXTENSION``, installed by ``golfrace/server.py``): the records a player may race
again, and a ghost's moves with their times.

- ``GET /api/ghosts?code=<code>``: the ghosts of a deal: the caller's own best on it (``mine``: of their
  ranked results and their finished solo games, ``solo.py``), the best on its board (``best``), the best of
  the accounts the caller follows on the board or, on a deal the caller has finished, of their friends'
  solo games (``friend``); each says whether it is a ``casual`` game;
  ``GET /api/ghosts?day=<yyyy-mm-dd>``: the day's leader on its deal (``daily``), once the day is over.
- ``GET /api/ghosts/<game>``: a ghost: the public record (its moves with ``t_ms``, the deal), as the replay's
  ``GET /api/games/<game>``; a solo game's to its owner and their friends only (``solo.py``).

Fair play: a ghost holds the code and the stock, so it is served under the replay's gate
(``races.routes.ended_record``): nothing of a race still on, nothing of a daily before its day's grace is
over, for anyone (its own racer included): ``code_hidden``. A listing drops every candidate the gate
refuses, and a day's listing is refused whole (``code_hidden``) while its attempts may still count. A ghost
race itself is a casual solo game of the same code (``new``): it never enters a board.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.http.callers import caller
from golfrace.http.extension import Extension
from golfrace.live.services import Context
from golfrace.races import leaderboard as lb
from golfrace.races.daily import code_public_at, parse_day
from golfrace.races.errors import RaceError
from golfrace.races.extension import race_wire
from golfrace.races.ranking import MAX_SCORE, composite
from golfrace.races.replay import GameRecord, public
from golfrace.races.routes import ended_record
from golfrace.races.service import RaceService
from golfrace.store import friend_keys, race_keys
from golfrace.store.keys import seat_of
from golfrace.wire.ids import ID_LEN

from ..engine import GameCode
from ..engine.errors import CodeError
from . import solo

HTTP_STATUS = {
    "code_hidden": 409,
    "game_not_ended": 409,
    "game_not_found": 404,
    "bad_code": 400,
    "bad_date": 400,
}


def _error(code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=HTTP_STATUS.get(code, 400))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _pick(kind: str, entry: dict[str, Any]) -> dict[str, Any]:
    """What the listing tells of a ghost (no code: the caller named the deal, or its day is over)."""
    keep = ("game", "name", "username", "score", "elapsed", "moves")
    picked = {k: entry.get(k) for k in keep}
    return {"kind": kind, **picked, "stopped": bool(entry.get("stopped")), "casual": False}


def _rank_key(g: dict[str, Any]) -> int:
    """A listed ghost's or a board entry's place by the one ranking rule (score, a game played to its end
    before a stopped one before one of no move, time, moves)."""
    score = max(0, min(MAX_SCORE, int(g["score"])))
    return composite(score, g["elapsed"], g["moves"], bool(g.get("stopped")))


def _better(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """The better of two listed ghosts by the one ranking rule."""
    if a is None or b is None:
        return a or b
    return a if _rank_key(a) <= _rank_key(b) else b


async def _record(ctx: Context, service: RaceService, game: str, viewer: str | None) -> GameRecord:
    """A ghost's record under its gate: a race seat's (``ended_record``), else a solo game's
    (``solo.ghost_record``: its owner and their friends only)."""
    try:
        return await ended_record(service, game)
    except RaceError as exc:
        if exc.code != "game_not_found" or seat_of(game) is not None:
            raise
    return await solo.ghost_record(ctx, service, game, viewer)


async def _public(ctx: Context, service: RaceService, game: str, viewer: str | None) -> bool:
    try:
        await _record(ctx, service, game, viewer)
    except RaceError:
        return False
    return True


async def _friend_best(service: RaceService, board: str, player: str) -> dict[str, Any] | None:
    """The best entry on ``board`` of the accounts ``player`` follows: one read of the board's player
    hash for them all (``following_max`` at most), one of their entries."""
    redis = service.boards.redis
    friends = sorted(_text(m) for m in await redis.smembers(friend_keys.following(player)))
    if not friends:
        return None
    members = [m for m in await redis.hmget(race_keys.board_part(board, "p"), friends) if m is not None]
    if not members:
        return None
    entries = [
        json.loads(raw)
        for raw in await redis.hmget(race_keys.board_part(board, "e"), members)
        if raw is not None
    ]
    if not entries:
        return None
    best: dict[str, Any] = min(entries, key=lambda e: (_rank_key(e), e["finished_at"]))
    return best


async def _of_code(ctx: Context, service: RaceService, player: str | None, raw: str) -> list[dict[str, Any]]:
    code = GameCode.parse(raw)
    board = lb.code_board(code)
    found: list[dict[str, Any]] = []
    mine: dict[str, Any] | None = None
    if player is not None:
        ranked_best = await service.boards.rank_of(lb.bests_board(player), str(code))
        casual = await solo.bests(ctx).of(player, str(code))
        mine = _better(
            _pick("mine", ranked_best["entry"]) if ranked_best is not None else None,
            solo.listed("mine", casual, await solo.name_of(ctx, player)) if casual is not None else None,
        )
        if mine is not None:
            found.append(mine)
    _total, top = await service.boards.page(board, 0, 1)
    if top:
        found.append(_pick("best", top[0]))
    if player is not None:
        on_board = await _friend_best(service, board, player)
        casual_friend = await solo.friend_best(ctx, player, code) if mine is not None else None
        friend = _better(
            _pick("friend", on_board) if on_board is not None else None,
            solo.listed("friend", casual_friend[1], await solo.name_of(ctx, casual_friend[0]))
            if casual_friend is not None
            else None,
        )
        if friend is not None:
            found.append(friend)
    return found


async def _of_day(service: RaceService, raw: str) -> list[dict[str, Any]]:
    day: date = parse_day(raw, service.clock())
    if service.clock() < code_public_at(day, service.settings.daily_grace_s):
        raise RaceError("code_hidden", "the daily challenge of that day is still on")
    _total, top = await service.boards.page(lb.daily_board(day.isoformat()), 0, 1)
    return [_pick("daily", top[0])] if top else []


async def ghosts_endpoint(request: Request) -> Response:
    ctx: Context = request.app.state.ctx
    service = race_wire(ctx).service
    code, day = request.query_params.get("code"), request.query_params.get("day")
    viewer = await caller(request)
    try:
        if code is not None:
            found = await _of_code(ctx, service, viewer, code[:40])
        elif day is not None:
            found = await _of_day(service, day[:12])
        else:
            return _error("bad_code", "name a deal: code=… or day=yyyy-mm-dd")
    except CodeError as exc:
        return _error("bad_code", str(exc))
    except RaceError as exc:
        return _error(exc.code, exc.message)
    seen: set[str] = set()
    shown = []
    for ghost in found:  # fair play: only what the replay's gate serves
        if ghost["game"] in seen or not await _public(ctx, service, ghost["game"], viewer):
            continue
        seen.add(ghost["game"])
        shown.append(ghost)
    return JSONResponse({"ghosts": shown})


async def ghost_endpoint(request: Request) -> Response:
    ctx: Context = request.app.state.ctx
    service = race_wire(ctx).service
    try:
        game = request.path_params["game"][:ID_LEN]
        record = await _record(ctx, service, game, await caller(request))
        return JSONResponse(public(record, service.boards.checks))
    except RaceError as exc:
        return _error(exc.code, exc.message)


async def startup(ctx: Context) -> None:
    race_wire(ctx)  # the races extension must come first: its records and boards are the ghosts


def routes() -> list[BaseRoute]:
    return [Route("/api/ghosts", ghosts_endpoint), Route("/api/ghosts/{game}", ghost_endpoint)]


EXTENSION = Extension("ghost", (), routes, startup)
