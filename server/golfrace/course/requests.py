"""What every course endpoint does with a request: who calls, its JSON body, and a refusal's answer."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from golfrace.http.callers import caller

from .errors import CourseRefusal


def refused(exc: CourseRefusal) -> JSONResponse:
    return JSONResponse({"error": exc.code, "message": exc.message}, status_code=exc.status)


async def require_player(request: Request) -> str:
    player = await caller(request)
    if player is None:
        raise CourseRefusal("bad_token", "send your token (Authorization: Bearer …) or sign in")
    return player


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object. Only a JSON request is taken: another site's page cannot send one with
    the player's cookie without the browser asking first (no cross-site form posts a hole or deals one)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise CourseRefusal("bad_request", "send a JSON object (Content-Type: application/json)")
    try:
        body = await request.json()
    except ValueError:
        raise CourseRefusal("bad_option", "the body is a JSON object") from None
    if not isinstance(body, dict):
        raise CourseRefusal("bad_option", "the body is a JSON object")
    return body
