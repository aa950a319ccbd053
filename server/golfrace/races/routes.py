"""The HTTP routes of races, leaderboards, the daily challenge and finished games' records."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.http.callers import caller, token_player
from golfrace.store.keys import seat_of
from golfrace.wire.ids import ID_LEN

from ..engine.errors import CodeError
from . import leaderboard as lb
from . import pages, race_views
from .daily import code_public_at, day_of, next_day_ms, parse_day, secret_days
from .daily_race import daily_status
from .errors import RaceError
from .followers import RaceWire
from .replay import GameRecord, public
from .service import RaceService

HTTP_ERRORS = {"game_not_found": 404, "race_not_found": 404, "game_not_ended": 409}


def _service(request: Request) -> RaceService:
    wire: RaceWire = request.app.state.ctx.get(RaceWire)
    return wire.service


def _http_error(code: str, message: str, status: int | None = None) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status or HTTP_ERRORS.get(code, 400))


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
    reader = token_player(request)  # a rank on a public board is public: the token names whose
    owner = reader if not board.startswith("pb:") else None
    you = await service.boards.rank_of(board, owner) if owner else None
    # fair play 19.3: the caller's own result waiting for its knowledge review (on no board meanwhile)
    pending = await service.boards.pending_of(board, owner) if owner else None
    body = {"board": board, "total": total, "offset": offset, "limit": limit, "entries": entries, "you": you}
    return JSONResponse({**body, "pending": pending})


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
    player = await caller(request)
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
    player = await caller(request)
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


async def ended_record(service: RaceService, game_id: str) -> GameRecord:
    """The record of a race seat's game once anyone may read it; else ``RaceError``: ``game_not_found``,
    ``game_not_ended`` (still being played) or ``code_hidden`` (over, but its race or its day is still on)."""
    split = seat_of(game_id)
    race = await service.load(split[0]) if split else None  # an ended race's records are completed here
    record = await service.records.load(game_id)
    if record is None:
        racer = race.racer_at(split[1] if split else 0) if race is not None else None
        if race is not None and racer is not None:
            if racer.finished_at is not None and race.ended_at is None and not race.typed:
                raise RaceError("code_hidden", "its race is still on")  # its record comes at the race's end
            raise RaceError("game_not_ended", "this game is still being played")
        raise RaceError("game_not_found", "no record of this game (never existed, or it expired)")
    now = service.clock()
    if record.race and (race is None or race.id != record.race):
        race = await service.load(record.race)
    # fair play 11.2: a record holds the code and the stock, so nobody gets it early, its own racers included
    if race is not None and race.ended_at is None and not race.typed:
        raise RaceError("code_hidden", "its race is still on")
    if record.daily and now < code_public_at(record.daily, service.settings.daily_grace_s):
        raise RaceError("code_hidden", "the daily challenge of that day is still on")
    return record


async def game_endpoint(request: Request) -> Response:
    service = _service(request)
    try:
        record = await ended_record(service, request.path_params["game"][:ID_LEN])
    except RaceError as exc:  # this endpoint's contract: a hidden record is one whose game is not over
        return _http_error("game_not_ended" if exc.code == "code_hidden" else exc.code, exc.message)
    try:
        review = await service.boards.review_of(record)  # fair play: with its review verdict
        return JSONResponse(public(record, service.boards.checks, review))
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
