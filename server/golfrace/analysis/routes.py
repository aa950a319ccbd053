"""The analysis extension (``EXTENSION``, installed by ``golfrace/server.py``): ``GET
/api/games/{id}/analysis``, the solver beside every move of a finished game.

Who may read it (fair play: an analysis holds the code and shows cards of the stock):

- a race seat's game (the daily's included): anyone, once its record is public — its race over (or typed
  by its creator), a daily's day and grace over (``races.routes.ended_record``); before that ``code_hidden``
  for everyone, the racer who finished included;
- a solo game: only its player (their token, or their account's session: ``http.callers.caller``), once it
  is won or stuck; another caller gets ``not_player``, an unfinished game ``game_not_ended``; a hole of the
  weekend's daily course (a sealed game) ``code_hidden`` until its day and grace are over.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.http.callers import caller
from golfrace.http.extension import Extension
from golfrace.live.services import Context
from golfrace.races.errors import RaceError
from golfrace.races.extension import race_wire
from golfrace.races.replay import verify
from golfrace.races.routes import ended_record
from golfrace.store.keys import seat_of
from golfrace.wire.errors import ProtocolError
from golfrace.wire.protocol import ID_LEN

from ..engine import GameCode, Status, final_score
from .service import Analyses, analysis_key

HTTP_STATUS = {"code_hidden": 409, "game_not_ended": 409, "game_not_found": 404, "not_player": 403}


async def startup(ctx: Context) -> None:
    ctx.provide(Analyses(ctx.redis, ctx.settings.analysis))


async def shutdown(ctx: Context) -> None:
    analyses = ctx.find(Analyses)
    if analyses is not None:
        await analyses.close()


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


async def _seat_game(ctx: Context, game_id: str) -> dict[str, Any]:
    record = await ended_record(race_wire(ctx).service, game_id)
    verified = verify(record)
    tokens = [tok for tok, _ms in record.log]
    key = analysis_key(game_id, "r")
    found = await ctx.get(Analyses).get(key, GameCode.parse(record.code), tokens, verified.score)
    return {**found, "game": game_id, "name": record.name, "race": record.race, "daily": record.daily}


async def _solo_game(ctx: Context, request: Request, game_id: str) -> dict[str, Any]:
    stored = await ctx.store.load(game_id)
    if stored is None or "race" in stored.meta:
        raise RaceError("game_not_found", "no such game (never existed, or it expired)")
    if await caller(request) != stored.owner:
        raise ProtocolError("not_player", "only the game's player may analyse a solo game")
    if stored.game.status is Status.PLAYING:
        raise RaceError("game_not_ended", "this game is still being played")
    if ctx.clock() < int(stored.meta.get("sealed", 0)):  # a hole of a daily course: its day is still on
        raise RaceError("code_hidden", "the daily course of that day is still on")
    tokens = [entry.split(" ", 1)[0] for entry in await ctx.store.log(game_id)]
    key = analysis_key(game_id, str(stored.v))
    found = await ctx.get(Analyses).get(key, stored.game.code, tokens, final_score(stored.game))
    return {**found, "game": game_id, "name": None, "race": None, "daily": None}


async def analysis_endpoint(request: Request) -> Response:
    ctx: Context = request.app.state.ctx
    game_id = request.path_params["game"][:ID_LEN]
    try:
        if seat_of(game_id) is not None:
            body = await _seat_game(ctx, game_id)
        else:
            body = await _solo_game(ctx, request, game_id)
    except RaceError as exc:
        return _error(exc.code, exc.message, HTTP_STATUS.get(exc.code, 500))
    except ProtocolError as exc:
        return _error(exc.code, exc.message, HTTP_STATUS.get(exc.code, 503))
    return JSONResponse(body)


def routes() -> list[BaseRoute]:
    return [Route("/api/games/{game}/analysis", analysis_endpoint)]


EXTENSION = Extension("analysis", (), routes, startup, shutdown)
