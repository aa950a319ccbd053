"""The HTTP routes of races, leaderboards, the daily challenge and finished games' records."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..accounts.callers import request_player
from ..engine.errors import CodeError
from ..keys import seat_of
from ..protocol import ID_LEN
from . import leaderboard as lb
from . import pages, race_views
from .daily import code_public_at, day_of, next_day_ms, parse_day, secret_days
from .daily_race import daily_status
from .errors import RaceError
from .followers import RaceWire
from .replay import public
from .service import RaceService

HTTP_ERRORS = {"game_not_found": 404, "race_not_found": 404, "game_not_ended": 409}


def _service(request: Request) -> RaceService:
    wire: RaceWire = request.app.state.ctx.extras["races"]
    return wire.service


def _http_error(code: str, message: str, status: int | None = None) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status or HTTP_ERRORS.get(code, 400))


def _token_player(request: Request) -> str | None:
    token = request.query_params.get("token")
    auth = request.headers.get("authorization", "")
    if not token and auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    if not token:
        return None
    player: str | None = request.app.state.ctx.tokens.verify(token)
    return player


async def _caller(request: Request) -> str | None:
    """Who reads their own private data: the token's player, or the session's account (an account's token
    alone counts for nothing: ``accounts.callers``)."""
    return await request_player(request, _token_player(request))


async def race_endpoint(request: Request) -> Response:
    service = _service(request)
    found = await service.load_with_seats(request.path_params["race"][:ID_LEN])
    if found is None:
        return _http_error("race_not_found", "no such race")
    race, seats = found
    watchers = await service.presence.watchers(race.id)
    return JSONResponse(race_views.race_view(race, None, service.clock(), watchers, seats))


def _int(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:  # ASCII only: "²".isdigit() is true but int() refuses it; int() also refuses > 4300 digits
        value = int(raw) if raw.isascii() and raw.isdigit() else None
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise RaceError("bad_option", f"{name} must be an integer in {lo}..{hi}", option=name)
    return value


async def _board_page(request: Request, board: str, secret: frozenset[str] = frozenset()) -> Response:
    """A page of ``board``; a personal-bests entry of a code in ``secret`` (a daily's whose attempts may
    still count: fair play 11.2) is listed with its code null."""
    service = _service(request)
    try:
        limit = _int(request, "limit", 20, 1, service.settings.board_page_max)
        offset = _int(request, "offset", 0, 0, 10**9)
    except RaceError as exc:
        return _http_error(exc.code, exc.message)
    total, entries = await service.boards.page(board, offset, limit)
    if secret:
        entries = [{**e, "code": None} if e.get("code") in secret else e for e in entries]
    caller = _token_player(request)  # a rank on a public board is public: the token names whose
    owner = caller if not board.startswith("pb:") else None
    you = await service.boards.rank_of(board, owner) if owner else None
    return JSONResponse(
        {"board": board, "total": total, "offset": offset, "limit": limit, "entries": entries, "you": you}
    )


async def code_board_endpoint(request: Request) -> Response:
    try:
        board = lb.code_board(request.path_params["code"][:40])
    except CodeError as exc:
        return _http_error("bad_code", str(exc))
    return await _board_page(request, board)


async def daily_board_endpoint(request: Request) -> Response:
    try:
        day = parse_day(request.path_params["day"][:12], _service(request).clock())
    except RaceError as exc:
        return _http_error(exc.code, exc.message)
    return await _board_page(request, lb.daily_board(day.isoformat()))


async def bests_endpoint(request: Request) -> Response:
    player = await _caller(request)
    if player is None:
        return _http_error("bad_token", "send your token (token=… or Authorization: Bearer …)", 401)
    service = _service(request)
    try:
        days = secret_days(service.clock(), service.settings.daily_grace_s)
        secret = frozenset([str(await service.daily.code(day)) for day in days])
    except RaceError as exc:  # no daily code: what to hide is unknown, so nothing is shown
        return _http_error(exc.code, exc.message, 503)
    return await _board_page(request, lb.bests_board(player), secret=secret)


async def daily_endpoint(request: Request) -> Response:
    player = await _caller(request)
    service = _service(request)
    if player is None:
        now = service.clock()
        return JSONResponse(
            {"date": day_of(now).isoformat(), "next_at": next_day_ms(now), "next_in": next_day_ms(now) - now}
        )
    try:
        return JSONResponse(await daily_status(service, player))
    except RaceError as exc:
        return _http_error(exc.code, exc.message, 503)


async def game_endpoint(request: Request) -> Response:
    service = _service(request)
    game_id = request.path_params["game"][:ID_LEN]
    split = seat_of(game_id)
    race = await service.load(split[0]) if split else None  # an ended race's records are completed here
    record = await service.records.load(game_id)
    if record is None:
        if race is not None and race.racer_at(split[1] if split else 0) is not None:
            return _http_error("game_not_ended", "this game is still being played")
        return _http_error("game_not_found", "no record of this game (never existed, or it expired)")
    now = service.clock()
    if record.race and (race is None or race.id != record.race):
        race = await service.load(record.race)
    # fair play 11.2: a record holds the code and the stock, so nobody gets it early, its own racers included
    if race is not None and race.ended_at is None and not race.typed:
        return _http_error("game_not_ended", "its race is still on")
    if record.daily and now < code_public_at(record.daily, service.settings.daily_grace_s):
        return _http_error("game_not_ended", "the daily challenge of that day is still on")
    try:
        return JSONResponse(public(record, service.boards.checks))  # fair play: with its review verdict
    except RaceError as exc:
        return _http_error(exc.code, exc.message, 500)


def routes() -> list[BaseRoute]:
    return [
        *pages.routes(),  # first: its /api/races/live before /api/races/{race}; the /r/… and /watch/… pages
        Route("/api/races/{race}", race_endpoint),
        Route("/api/leaderboards/code/{code}", code_board_endpoint),
        Route("/api/leaderboards/daily/{day}", daily_board_endpoint),
        Route("/api/players/me/bests", bests_endpoint),
        Route("/api/daily", daily_endpoint),
        Route("/api/games/{game}", game_endpoint),
    ]
