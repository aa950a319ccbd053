"""The Starlette application: ``/ws`` (the game protocol), ``/healthz``, ``/metrics``,
``/catalogs/<lang>.json`` and the web client at ``/``.

Extensions (races, leaderboards, the daily challenge…) are modules named in ``EXTENSIONS`` (or passed to
``create_app``). Their ``@handler`` functions join this app's dispatch table (``dispatch.Dispatch``: the
messages themselves are defined in ``messages.py``); a module may also define ``routes() ->
list[BaseRoute]``, ``async startup(ctx)`` and ``async shutdown(ctx)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import redis.asyncio as aioredis
import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from . import handlers, limits, metrics, moves, redis_conn
from .accounts import sessions as accounts_sessions
from .accounts.hello import COOKIE_EXTRA
from .context import Clock, Context, wall_clock
from .dispatch import Dispatch
from .engine.i18n import LOCALES, catalog
from .errors import ErrorCode
from .lanes import Lanes
from .protocol import (
    CLOSE_GOING_AWAY,
    CLOSE_NO_HELLO,
    JSON,
    ProtocolError,
    choose_codec,
    decode,
)
from .seams.uvicorn_server import quiet_bad_text_frames, websocket_protocol
from .seams.ws_frames import FRAMES
from .session import Session
from .settings import Settings
from .store import Store
from .tokens import Tokens

log = logging.getLogger("golfrace.app")
REPO = Path(__file__).resolve().parents[2]
EXTENSIONS: tuple[str, ...] = (
    "golfrace.races.wire",
    "golfrace.hints",
    "golfrace.accounts.routes",
    "golfrace.races.daily_stats",
)
CORE: tuple[ModuleType, ...] = (handlers, moves)
"""The modules of the core handlers (``dispatch.py``): every app's table has them, then its extensions'."""


def static_dir(settings: Settings) -> Path | None:
    if settings.static_dir:
        return Path(settings.static_dir)
    for candidate in (REPO / "client_web" / "dist", REPO / "client_web"):
        if (candidate / "index.html").is_file():
            return candidate
    return None


def _load_extensions(names: Sequence[str]) -> list[ModuleType]:
    return [importlib.import_module(name) for name in names]


def create_app(
    settings: Settings, extensions: Sequence[str] | None = None, clock: Clock = wall_clock
) -> GolfApp:
    """The app of ``settings`` (every limit) and ``clock`` (server milliseconds), with the extension modules
    ``extensions`` (default ``EXTENSIONS``)."""
    if not settings.redis_url:
        raise ValueError("create_app needs settings.redis_url (golfrace serve starts an embedded Redis)")
    redis_conn.check_url(settings.redis_url)  # a bad cluster URL: one clear error now, not at startup
    modules = _load_extensions(EXTENSIONS if extensions is None else extensions)
    # per-network buckets for new identities, games, races (limits.py) are taken before each handler
    dispatch = Dispatch.from_modules([*CORE, *modules], guard=limits.charge)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # one Redis or a Redis Cluster (redis+cluster://): redis_conn builds the matching clients
        redis = await redis_conn.general_client(settings)
        store = Store(redis, settings, redis_conn.batcher(redis, settings))
        secret = settings.secret or await store.shared_secret()
        hub = redis_conn.hub(redis, settings, store.origin)
        await hub.start()
        # a RedisCluster has the same command methods; every caller keeps to one hash slot per command
        ctx = Context(settings, cast(aioredis.Redis, redis), store, hub, Tokens(secret), dispatch, clock)
        app.state.ctx = ctx
        for module in modules:
            if hasattr(module, "startup"):
                await module.startup(ctx)
        try:
            yield
        finally:
            for module in reversed(modules):
                if hasattr(module, "shutdown"):
                    with contextlib.suppress(Exception):
                        await module.shutdown(ctx)
            for session in list(ctx.sessions):
                session.close(CLOSE_GOING_AWAY)
            await asyncio.sleep(0.05)
            await hub.stop()
            await store.batch.aclose()
            await redis.aclose()

    routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/metrics", metrics_endpoint),
        Route("/catalogs/{locale}.json", catalog_endpoint),
    ]
    for module in modules:
        if hasattr(module, "routes"):
            routes.extend(module.routes())
    root = static_dir(settings)
    if root is not None:
        routes.append(Mount("/", StaticFiles(directory=root, html=True), name="client"))
    else:
        routes.append(Route("/", placeholder))
    # the client's script and styles go out compressed (the first visit's transfer budget); frames on /ws
    # do not pass through here
    middleware = [Middleware(GZipMiddleware, minimum_size=settings.gzip_min_bytes)]
    on_error = {HTTPException: http_exception, Exception: server_fault}
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware, exception_handlers=on_error)
    app.state.settings = settings
    return GolfApp(app)


def uvicorn_config(app: GolfApp, settings: Settings, **overrides: Any) -> uvicorn.Config:
    options: dict[str, Any] = {
        "ws": websocket_protocol(),
        "host": settings.host,
        "port": settings.port,
        "ws_max_size": settings.hard_max_frame,
        "ws_ping_interval": settings.ping_interval,
        "ws_ping_timeout": settings.ping_timeout,
        "ws_per_message_deflate": settings.compression,
        "log_level": "warning",
        "lifespan": "on",
        "timeout_graceful_shutdown": 3,
        # X-Forwarded-For is read by limits.client_ip through Settings.trusted_proxies only; uvicorn's own
        # proxy handling would believe it from any loopback peer
        "proxy_headers": False,
    }
    options.update(overrides)
    config = uvicorn.Config(app, **options)  # configures uvicorn's loggers
    quiet_bad_text_frames()
    return config


# --- HTTP -----------------------------------------------------------------------------------------------
def http_error(code: ErrorCode, message: str, http_status: int, **extra: Any) -> JSONResponse:
    """The one shape of every HTTP error: ``{"error": code, "message": text}`` (plus ``extra`` fields)."""
    return JSONResponse({"error": code.value, "message": message, **extra}, status_code=http_status)


HTTP_STATUS_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.BAD_METHOD}


async def http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (no route, a method the route lacks) in the same shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    code = HTTP_STATUS_CODES.get(status, ErrorCode.INTERNAL)
    return http_error(code, str(getattr(exc, "detail", "")) or code.value, status)


async def server_fault(request: Request, exc: Exception) -> Response:
    log.exception("HTTP %s failed", request.url.path, exc_info=exc)
    return http_error(ErrorCode.INTERNAL, "unexpected server fault", 500)


async def healthz(request: Request) -> Response:
    ctx: Context = request.app.state.ctx
    try:
        ms = await asyncio.wait_for(ctx.store.ping_ms(), ctx.settings.health_timeout_s)
    except Exception as exc:  # a timeout has no text of its own: name its type
        cause = (str(exc) or type(exc).__name__)[:200]
        return http_error(ErrorCode.UNAVAILABLE, f"redis: {cause}", 503, status="unavailable", redis=cause)
    return JSONResponse({"status": "ok", "redis_ms": round(ms, 3), "connections": len(ctx.sessions)})


async def metrics_endpoint(request: Request) -> Response:
    ctx: Context = request.app.state.ctx
    with contextlib.suppress(Exception):
        ms = await asyncio.wait_for(ctx.store.ping_ms(), ctx.settings.health_timeout_s)
        metrics.REDIS_PING.set(ms / 1000)
    return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)


async def catalog_endpoint(request: Request) -> Response:
    locale = request.path_params["locale"]
    if locale not in LOCALES:
        return http_error(ErrorCode.BAD_LOCALE, f"languages: {', '.join(LOCALES)}", 404)
    return JSONResponse(catalog(locale), headers={"Cache-Control": "public, max-age=300"})


async def placeholder(request: Request) -> Response:
    return HTMLResponse(
        "<!doctype html><title>Golf Race</title><p>Golf Race server: the web client is not built."
    )


# --- websocket ------------------------------------------------------------------------------------------
class GolfApp:
    """The ASGI app: ``/ws`` straight to ``websocket_asgi``, everything else to Starlette. A game connection
    lives for hours; going around Starlette's router, middleware and ``WebSocket`` saves a stack of
    coroutine frames per connection (memory) and several calls per frame (CPU)."""

    def __init__(self, starlette: Starlette) -> None:
        self.starlette = starlette
        self.state = starlette.state

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and scope["path"] == "/ws":
            await websocket_asgi(scope, receive, send, self.state.ctx)
        else:
            await self.starlette(scope, receive, send)


class Socket:
    """The few websocket operations a session needs, on the raw ASGI callables."""

    def __init__(self, send: Any) -> None:
        self._send = send

    async def send_bytes(self, data: bytes) -> None:
        await self._send({"type": "websocket.send", "bytes": data})

    async def send_text(self, data: str) -> None:
        await self._send({"type": "websocket.send", "text": data})

    async def close(self, code: int = 1000) -> None:
        await self._send({"type": "websocket.close", "code": code})


async def websocket_asgi(scope: Any, receive: Any, send: Any, ctx: Context) -> None:
    if (await receive())["type"] != "websocket.connect":
        return
    chosen = choose_codec(list(scope.get("subprotocols") or []))
    # fair play (limits.py): the Origin check and the client's network, read before the headers go
    origin_ok = limits.origin_allowed(scope.get("headers") or (), ctx.settings.allowed_origins)
    client_net = limits.network(limits.scope_client_ip(scope, ctx.settings.trusted_proxies))
    await send({"type": "websocket.accept", "subprotocol": chosen})
    if not origin_ok:  # accepted first so that the page sees the close code, not a failed handshake
        await send({"type": "websocket.close", "code": limits.CLOSE_BAD_ORIGIN})
        return
    cookie = accounts_sessions.from_asgi_headers(scope.get("headers"))  # accounts: a browser's session
    scope["headers"] = []  # the handshake is over: nothing reads them again
    frames = (scope.get("extensions") or {}).get(FRAMES)  # the protocol of seams/uvicorn_ws.py offers it
    session = Session(ctx, Socket(send), chosen or JSON, frames)
    session.extras[limits.IP_EXTRA] = client_net
    if cookie is not None:
        session.extras[COOKIE_EXTRA] = cookie
    ctx.sessions.add(session)
    metrics.CONNECTIONS.inc()
    loop = asyncio.get_running_loop()

    def no_hello() -> None:
        if session.player is None:
            session.close(CLOSE_NO_HELLO)

    session.hello_timer = loop.call_later(ctx.settings.hello_timeout, no_hello)
    lanes = Lanes(session)
    try:
        while not session.closing:
            message = await receive()
            if message["type"] != "websocket.receive":
                break
            frame = message.get("bytes")
            if frame is None:
                frame = message.get("text")
            msg = read_frame(session, frame) if frame is not None else None
            if msg is not None:
                lanes.submit(msg)
            await session.make_room()
    except Exception as exc:  # the socket went away under us
        log.debug("connection ended: %s", exc)
    finally:
        if session.hello_timer is not None:
            session.hello_timer.cancel()
        ctx.sessions.discard(session)
        metrics.CONNECTIONS.dec()
        await lanes.stop()
        await session.writer.stop()
        await session.shutdown()


def read_frame(session: Session, frame: bytes | str) -> dict[str, Any] | None:
    """One client frame: size limit, decode, rate limit. The validated message, or None when the frame was
    answered with an error (or the connection is closing)."""
    allowed = session.take_token()
    if session.closing:
        return None
    size = len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8", "surrogatepass"))
    if size > session.settings.max_frame:
        session.error(
            ProtocolError("too_big", f"frame of {size} bytes; the limit is {session.settings.max_frame}")
        )
        return None
    try:
        msg = decode(frame, session.codec, session.ctx.dispatch.specs)
    except ProtocolError as exc:
        session.error(exc)
        return None
    if not allowed:
        error = ProtocolError(
            "rate_limited",
            f"over {session.settings.rate:g} messages/s; resend later",
            ref=msg.get("seq", msg["t"]),
        )
        error.rid = msg.get("rid")
        session.error(error)
        return None
    return msg
