"""The course extension (``EXTENSION``, installed by ``golfrace/server.py``):

- ``POST /api/courses/{code}/holes`` ``{"hole": n, "game": id}``: record a finished solo game as hole ``n``
  of the caller's attempt at an open course (the caller's token, or their account's session); the ninth puts
  the course on its board. ``GET /api/courses/{code}/card``: the caller's card of that course.
- ``GET /api/course/daily``: today's daily course (weekends): the caller's card, the share text once done;
  ``POST /api/course/daily/next``: the caller's next hole, dealt by the server (accounts only).
  ``GET /api/course/daily/{day}/codes``: a daily course's codes, once its day and grace are over.
- ``/api/course-races…``: course races (``race_routes.py``).
- ``GET /api/leaderboards/course/{code}``, ``GET /api/leaderboards/course-day/{day}``: the boards, a page
  at a time (``offset``, ``limit``), with the caller's own rank (``you``).

Every refusal is ``{"error": code, "message": …}`` with a code of ``errors.COURSE_ERROR_CODES``.
"""

from __future__ import annotations

import hashlib
import hmac

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.http.callers import caller, token_player
from golfrace.http.extension import Extension
from golfrace.live.services import Context
from golfrace.races import leaderboard as lb
from golfrace.races.daily import parse_day
from golfrace.races.errors import RaceError
from golfrace.races.extension import race_wire
from golfrace.wire.protocol import ID_LEN

from ..engine.course import CourseCode
from ..engine.errors import CodeError
from .errors import CourseRefusal
from .race_routes import race_routes
from .race_service import CourseRaces
from .requests import json_body, refused, require_player
from .review import CourseReview
from .service import CourseService

CODE_MAX = 48
PAGE_MAX = 100


async def startup(ctx: Context) -> None:
    races = race_wire(ctx).service
    boards = races.boards  # the races' leaderboards: one board store, one ranking rule
    secret = ctx.settings.secret or await ctx.store.shared_secret()
    course_secret = hmac.new(secret.encode(), b"golfrace daily course", hashlib.sha256).digest()
    review = CourseReview(ctx, boards, races.reviews, races.tasks.spawn)  # its reviews: the races' workers
    ctx.provide(CourseService(ctx, boards, course_secret, ctx.settings.races.daily_grace_s, review))
    ctx.provide(CourseRaces(ctx))


def _service(request: Request) -> CourseService:
    ctx: Context = request.app.state.ctx
    return ctx.get(CourseService)


def _course(raw: str) -> CourseCode:
    try:
        return CourseCode.parse(raw[:CODE_MAX])
    except CodeError as exc:
        raise CourseRefusal("bad_code", str(exc)) from None


async def hole_endpoint(request: Request) -> Response:
    try:
        course = _course(request.path_params["code"])
        player = await require_player(request)
        body = await json_body(request)  # a JSON request only
        n, game = body.get("hole"), body.get("game")
        if (
            not isinstance(n, int)
            or isinstance(n, bool)
            or not isinstance(game, str)
            or not 0 < len(game) <= ID_LEN
        ):
            raise CourseRefusal("bad_option", "name the hole (1 to 9) and its game id")
        return JSONResponse(await _service(request).record_hole(player, course, n, game))
    except CourseRefusal as exc:
        return refused(exc)


async def card_endpoint(request: Request) -> Response:
    try:
        course = _course(request.path_params["code"])
        return JSONResponse(await _service(request).card(await require_player(request), course))
    except CourseRefusal as exc:
        return refused(exc)


def _lang(request: Request) -> str:
    return request.query_params.get("lang", "en")[:5]


async def daily_endpoint(request: Request) -> Response:
    return JSONResponse(await _service(request).daily_status(await caller(request), _lang(request)))


async def daily_next_endpoint(request: Request) -> Response:
    try:
        player = await require_player(request)
        await json_body(request)
        return JSONResponse(await _service(request).daily_next(player, _lang(request)))
    except CourseRefusal as exc:
        return refused(exc)


async def daily_codes_endpoint(request: Request) -> Response:
    service = _service(request)
    try:
        day = parse_day(request.path_params["day"][:12], service.ctx.clock())
        return JSONResponse(await service.day_codes(day))
    except RaceError as exc:
        return refused(CourseRefusal(exc.code, exc.message))
    except CourseRefusal as exc:
        return refused(exc)


def _int(request: Request, name: str, default: int, hi: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9) or int(raw) > hi:
        raise CourseRefusal("bad_option", f"{name} must be an integer in 0..{hi}", option=name)
    return int(raw)


async def _page(request: Request, board: str) -> Response:
    service = _service(request)
    limit = max(1, _int(request, "limit", 20, PAGE_MAX))
    offset = _int(request, "offset", 0, 10**9)
    total, entries = await service.boards.page(board, offset, limit)
    reader = token_player(request) or await caller(request)  # a rank on a public board is public
    you = await service.boards.rank_of(board, reader) if reader else None
    body = {"board": board, "total": total, "offset": offset, "limit": limit, "entries": entries, "you": you}
    return JSONResponse(body)


async def course_board_endpoint(request: Request) -> Response:
    try:
        return await _page(request, lb.course_board(_course(request.path_params["code"])))
    except CourseRefusal as exc:
        return refused(exc)


async def day_board_endpoint(request: Request) -> Response:
    try:
        day = parse_day(request.path_params["day"][:12], _service(request).ctx.clock())
        return await _page(request, lb.daily_course_board(day.isoformat()))
    except RaceError as exc:
        return refused(CourseRefusal(exc.code, exc.message))
    except CourseRefusal as exc:
        return refused(exc)


def routes() -> list[BaseRoute]:
    post = ["POST"]
    return [
        Route("/api/courses/{code}/holes", hole_endpoint, methods=post),
        Route("/api/courses/{code}/card", card_endpoint),
        Route("/api/course/daily", daily_endpoint),
        Route("/api/course/daily/next", daily_next_endpoint, methods=post),
        Route("/api/course/daily/{day}/codes", daily_codes_endpoint),
        Route("/api/leaderboards/course/{code}", course_board_endpoint),
        Route("/api/leaderboards/course-day/{day}", day_board_endpoint),
        *race_routes(),
    ]


EXTENSION = Extension("course", (), routes, startup)
