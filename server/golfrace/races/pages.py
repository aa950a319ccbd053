"""Pages and data around races for people and for link previews: race and watch pages carrying Open Graph
and Twitter card tags, their preview images, the app's icons, and a player's own stats.

``routes()`` goes before ``wire.routes()``: its ``/r/{race}`` and ``/watch/{id}`` pages replace the plain
copies of ``index.html``, and ``/api/races/live`` must match before ``/api/races/{race}``.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from golfrace.http.callers import caller
from golfrace.wire.ids import ID_LEN

from ..engine.i18n import DEFAULT_LOCALE, LOCALES, catalog, plural_category
from . import live, preview
from .daily import day_of
from .followers import RaceWire
from .race import Race

ICON_SIZES = (192, 512)
PREVIEW_MAX_AGE_S = 30
"""How long a crawler may keep a race's preview image (its bars follow the race)."""
ID_TEXT = re.compile(rf"[A-Za-z0-9_-]{{1,{ID_LEN}}}")


def _service(request: Request) -> Any:
    return request.app.state.ctx.get(RaceWire).service


def _lang(request: Request) -> str:
    lang = request.query_params.get("lang", DEFAULT_LOCALE)
    return lang if lang in LOCALES else DEFAULT_LOCALE


def _text(lang: str, key: str, **params: Any) -> str:
    value: Any = catalog(lang)["ui"]["og"][key]
    if isinstance(value, dict):
        value = value[plural_category(int(params.get("n", 0)), lang)]
    return str(value).format(**params)


def describe_race(race: Race | None, lang: str, now: int, watch: bool = False) -> tuple[str, str]:
    """The preview's title and description: how many race, and where the race is; never its code. A lobby's
    link asks to join; a race on (or any ``/watch/`` link) to watch it; a finished race shows results."""
    if race is None:
        return _text(lang, "title"), _text(lang, "description")
    phase = race.phase(now).value
    if race.daily:
        key = "daily_title"
    elif phase == "finished":
        key = "results_title"
    elif watch or phase != "lobby":
        key = "watch_title"
    else:
        key = "race_title"
    phase_text = str(catalog(lang)["ui"]["phase"][phase])
    return _text(lang, key), _text(lang, "race_description", n=len(race.racers), phase=phase_text)


def preview_line(race: Race, now: int) -> str:
    """What the preview image says under the app's name (the 5×7 font has Latin capitals only)."""
    if race.daily:
        return "daily challenge"
    phase = race.phase(now).value
    return {"lobby": "join the race", "finished": "results"}.get(phase, "racing live")


@cache
def _shell(path: Path, mtime: float) -> str:
    return path.read_text("utf-8")


def shell_html(request: Request) -> str | None:
    from golfrace.http.app import static_dir

    root = static_dir(request.app.state.settings)
    index = root / "index.html" if root is not None else None
    if index is None or not index.is_file():
        return None
    return _shell(index, index.stat().st_mtime)


def with_tags(page: str, title: str, description: str, url: str, image: str, lang: str) -> str:
    """``index.html`` with the preview's tags (the page itself is the same app), in the preview's language
    and direction (``<html lang dir>``: a Hebrew preview is right to left)."""
    e = html.escape
    direction = "rtl" if catalog(lang).get("dir") == "rtl" else "ltr"
    page = re.sub(r"<html[^>]*>", f'<html lang="{e(lang)}" dir="{direction}">', page, count=1)
    tags = "\n".join(
        [
            '<meta property="og:type" content="website">',
            '<meta property="og:site_name" content="Golf Race">',
            f'<meta property="og:title" content="{e(title)}">',
            f'<meta property="og:description" content="{e(description)}">',
            f'<meta property="og:url" content="{e(url)}">',
            f'<meta property="og:image" content="{e(image)}">',
            f'<meta property="og:image:width" content="{preview.WIDTH}">',
            f'<meta property="og:image:height" content="{preview.HEIGHT}">',
            f'<meta property="og:image:alt" content="{e(_text(lang, "image_alt"))}">',
            f'<meta property="og:locale" content="{e(lang)}">',
            '<meta name="twitter:card" content="summary_large_image">',
            f'<meta name="twitter:title" content="{e(title)}">',
            f'<meta name="twitter:description" content="{e(description)}">',
            f'<meta name="twitter:image" content="{e(image)}">',
        ]
    )
    described = f'<meta name="description" content="{e(description)}">'
    page = re.sub(r'<meta name="description" content="[^"]*">', described, page, count=1)
    page = re.sub(r"<title>[^<]*</title>", f"<title>{e(title)}</title>", page, count=1)
    return page.replace("</head>", tags + "\n</head>", 1)


async def _race_or_none(request: Request, race_id: str) -> Race | None:
    if not ID_TEXT.fullmatch(race_id):
        return None
    race: Race | None = await _service(request).load(race_id)
    return race


NOT_BUILT = "<!doctype html><title>Golf Race</title><p>The web client is not built."


async def _tagged_page(request: Request, race_id: str, watch: bool = False) -> Response:
    page = shell_html(request)
    if page is None:
        return HTMLResponse(NOT_BUILT)
    service, lang = _service(request), _lang(request)
    race = await _race_or_none(request, race_id)
    title, description = describe_race(race, lang, service.clock(), watch)
    base = str(request.base_url).rstrip("/")
    image = f"{base}/og/{race.id}.png" if race is not None else f"{base}/og/table.png"
    url = f"{base}{request.url.path}"
    return HTMLResponse(with_tags(page, title, description, url, image, lang))


async def race_page(request: Request) -> Response:
    return await _tagged_page(request, request.path_params["race"][:ID_LEN])


async def watch_page(request: Request) -> Response:
    return await _tagged_page(request, request.path_params["id"][:ID_LEN], watch=True)


async def daily_page(request: Request) -> Response:
    """``/daily``: the app on the daily challenge, with a preview of its own (the day's date, no code)."""
    page = shell_html(request)
    if page is None:
        return HTMLResponse(NOT_BUILT)
    lang, base = _lang(request), str(request.base_url).rstrip("/")
    title = f"{_text(lang, 'daily_title')} · {day_of(_service(request).clock()).isoformat()}"
    description = _text(lang, "daily_description")
    return HTMLResponse(with_tags(page, title, description, f"{base}/daily", f"{base}/og/daily.png", lang))


async def preview_endpoint(request: Request) -> Response:
    """``/og/<race id>.png``: the table's backs and a bar per racer; ``/og/table.png``: the table alone."""
    name = request.path_params["name"][:ID_LEN]
    racers, line = None, {"table": "solitaire", "daily": "daily challenge"}.get(name)
    if line is None:
        service = _service(request)
        found = await service.load_with_seats(name) if ID_TEXT.fullmatch(name) else None
        if found is None:
            return JSONResponse({"error": "race_not_found", "message": "no such race"}, 404)
        race, seats = found
        racers = [(seats[r.seat].game.removed if r.seat in seats else 0, r.status) for r in race.racers]
        line = preview_line(race, service.clock())
    headers = {"Cache-Control": f"public, max-age={PREVIEW_MAX_AGE_S}"}
    return Response(preview.table(racers, line), media_type="image/png", headers=headers)


@cache
def _icon(size: int) -> bytes:
    return preview.icon(size)


async def icon_endpoint(request: Request) -> Response:
    try:
        size = int(request.path_params["size"])
    except ValueError:
        size = 0
    if size not in ICON_SIZES:
        sizes = ", ".join(map(str, ICON_SIZES))
        body = {"error": "bad_option", "message": f"icon sizes: {sizes}", "params": {"option": "size"}}
        return JSONResponse(body, 404)
    return Response(_icon(size), media_type="image/png", headers={"Cache-Control": "public, max-age=86400"})


async def stats_endpoint(request: Request) -> Response:
    """``GET /api/players/me/stats`` (``Authorization: Bearer <token>``): the caller's own games only."""
    player = await caller(request)
    if player is None:
        return JSONResponse(
            {"error": "bad_token", "message": "send your token (Authorization: Bearer …)"}, status_code=401
        )
    service = _service(request)
    streak = await service.daily.streak(player)  # the history has the rest (accounts/history.py)
    today = day_of(service.clock())
    return JSONResponse(await service.history.page(player, streak.current(today), streak.best))


async def live_endpoint(request: Request) -> Response:
    """``GET /api/races/live``: the races one may watch now (``live.py`` says what it shows)."""
    service = _service(request)
    now = service.clock()
    races = await live.live_list(service, now, service.settings.live_list_max)
    return JSONResponse({"races": races, "now": now})


def routes() -> list[BaseRoute]:
    return [
        Route("/api/races/live", live_endpoint),
        Route("/r/{race}", race_page),
        Route("/watch/{id}", watch_page),
        Route("/daily", daily_page),
        Route("/og/{name}.png", preview_endpoint),
        Route("/icons/{size}.png", icon_endpoint),
        Route("/api/players/me/stats", stats_endpoint),
    ]
