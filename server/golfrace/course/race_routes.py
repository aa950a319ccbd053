"""The course race's HTTP (``race_service.py``, docs/course.md):

- ``POST /api/course-races`` ``{"name"?, "seats"?}``: a new course race, hosted by the caller (its lobby);
- ``GET /api/course-races/{id}``: the race as the caller sees it (anyone with the link: a watcher sees the
  racers' holes and strokes, never a code or a hole game before the end);
- ``POST /api/course-races/{id}/join`` ``{"name"?}``, ``…/start`` (the host), ``…/next`` (the caller's hole
  to play, the one before recorded), ``…/resign``.

The caller is the token's player or the account's session; a new race and a start take a token of the
network's ``lobby`` and ``race`` buckets (``live/limits.py``), as a race's do. Refusals as ``routes.py``'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.http.callers import caller
from golfrace.live import limits
from golfrace.live.services import Context

from .errors import CourseRefusal
from .race_service import CourseRaces
from .requests import json_body, refused, require_player

ID_MAX = 16


def _races(request: Request) -> CourseRaces:
    ctx: Context = request.app.state.ctx
    return ctx.get(CourseRaces)


def _id(request: Request) -> str:
    race_id = str(request.path_params["id"])
    if not (0 < len(race_id) <= ID_MAX and race_id.isascii() and race_id.isalnum()):
        raise CourseRefusal("race_not_found", "no such course race")
    return race_id


async def _charge(request: Request, kind: str) -> None:
    ctx: Context = request.app.state.ctx
    net = limits.network(limits.scope_client_ip(dict(request.scope), ctx.settings.trusted_proxies))
    if await ctx.limiter.take(kind, net):
        raise CourseRefusal("rate_limited", f"too many {kind} requests from your network; retry later")


async def _answer(work: Callable[[], Awaitable[dict[str, Any]]]) -> Response:
    try:
        return JSONResponse(await work())
    except CourseRefusal as exc:
        return refused(exc)


async def create_endpoint(request: Request) -> Response:
    async def work() -> dict[str, Any]:
        player = await require_player(request)
        body = await json_body(request)
        await _charge(request, "lobby")
        return await _races(request).create(player, body.get("name"), body.get("seats"))

    return await _answer(work)


async def read_endpoint(request: Request) -> Response:
    async def work() -> dict[str, Any]:
        return await _races(request).read(_id(request), await caller(request))

    return await _answer(work)


async def join_endpoint(request: Request) -> Response:
    async def work() -> dict[str, Any]:
        player = await require_player(request)
        body = await json_body(request)
        return await _races(request).join(_id(request), player, body.get("name"))

    return await _answer(work)


async def start_endpoint(request: Request) -> Response:
    async def work() -> dict[str, Any]:
        player = await require_player(request)
        await json_body(request)
        await _charge(request, "race")
        return await _races(request).start(_id(request), player)

    return await _answer(work)


async def next_endpoint(request: Request) -> Response:
    async def work() -> dict[str, Any]:
        player = await require_player(request)
        await json_body(request)
        return await _races(request).next(_id(request), player)

    return await _answer(work)


async def resign_endpoint(request: Request) -> Response:
    async def work() -> dict[str, Any]:
        player = await require_player(request)
        await json_body(request)
        return await _races(request).resign(_id(request), player)

    return await _answer(work)


def race_routes() -> list[BaseRoute]:
    post = ["POST"]
    return [
        Route("/api/course-races", create_endpoint, methods=post),
        Route("/api/course-races/{id}", read_endpoint),
        Route("/api/course-races/{id}/join", join_endpoint, methods=post),
        Route("/api/course-races/{id}/start", start_endpoint, methods=post),
        Route("/api/course-races/{id}/next", next_endpoint, methods=post),
        Route("/api/course-races/{id}/resign", resign_endpoint, methods=post),
    ]
