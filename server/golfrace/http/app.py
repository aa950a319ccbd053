"""The Starlette application: ``/ws`` (the game protocol), ``/healthz``, ``/readyz``, ``/metrics``,
``/catalogs/<lang>.json`` and the web client at ``/``.

Extensions (races, accounts, …) are ``Extension`` values (``extension.py``) handed to ``create_app`` by the
composition root (``golfrace/server.py``). Their ``@handler`` functions join this app's dispatch table
(``dispatch.Dispatch``: the messages themselves are defined in ``wire/messages.py``), their routes the
router, and their ``startup``/``shutdown`` run with the app's lifespan.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from golfrace.engine.i18n import LOCALES, catalog
from golfrace.http.extension import Extension
from golfrace.http.ready import readyz
from golfrace.live import handlers, limits, metrics, moves, solo_follow
from golfrace.live.caps import ConnectionCaps
from golfrace.live.dispatch import Dispatch
from golfrace.live.ordering import Lanes
from golfrace.live.services import Clock, Context, wall_clock
from golfrace.live.session import Session
from golfrace.live.tasks import end
from golfrace.live.tokens import Tokens
from golfrace.seams.ws_frames import FRAMES
from golfrace.settings import Settings
from golfrace.settings.secret import refusal as weak_secret
from golfrace.store import connection as redis_conn
from golfrace.store.games import Store
from golfrace.wire.errors import ErrorCode, storage_full
from golfrace.wire.protocol import (
    CLOSE_BAD_ORIGIN,
    CLOSE_GOING_AWAY,
    CLOSE_NO_HELLO,
    CLOSE_TOO_MANY_CONNECTIONS,
    JSON,
    ProtocolError,
    choose_codec,
    decode,
)

log = logging.getLogger("golfrace.http.app")
REPO = Path(__file__).resolve().parents[3]
CORE = (handlers, moves)
"""The modules of the core handlers (``dispatch.py``): every app's table has them, then its extensions'."""


def static_dir(settings: Settings) -> Path | None:
    if settings.static_dir:
        return Path(settings.static_dir)
    for candidate in (REPO / "client_web" / "dist", REPO / "client_web"):
        if (candidate / "index.html").is_file():
            return candidate
    return None


def create_app(
    settings: Settings, extensions: Sequence[Extension] = (), clock: Clock = wall_clock
) -> GolfApp:
    """The app of ``settings`` (every limit) and ``clock`` (server milliseconds), with ``extensions`` (the
    whole product's: ``golfrace.server.EXTENSIONS``)."""
    if not settings.redis_url:
        raise ValueError("create_app needs settings.redis_url (golfrace serve starts an embedded Redis)")
    redis_conn.check_url(settings.redis_url)  # a bad cluster URL: one clear error now, not at startup
    weak = weak_secret(settings.secret)  # fair play 19.7, for servers started without the CLI too
    if weak:
        raise ValueError(weak)
    metrics_allowed = limits.networks(settings.metrics_allow, "GOLFRACE_METRICS_ALLOW")
    modules = [module for extension in extensions for module in extension.handlers]
    # per-network buckets for new identities, games, races (limits.py) are taken before each handler
    dispatch = Dispatch.from_modules([*CORE, *modules], guard=limits.charge)
    lifespan = _lifespan(settings, extensions, clock, dispatch)
    # the client's script and styles go out compressed (the first visit's transfer budget); frames on /ws
    # do not pass through here
    middleware = [Middleware(GZipMiddleware, minimum_size=settings.gzip_min_bytes)]
    on_error = {HTTPException: http_exception, Exception: server_fault}
    app = Starlette(
        routes=_routes(settings, extensions),
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers=on_error,
    )
    app.state.settings = settings
    app.state.metrics_allowed = metrics_allowed
    return GolfApp(app)


Lifespan = Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]


def _lifespan(
    settings: Settings, extensions: Sequence[Extension], clock: Clock, dispatch: Dispatch
) -> Lifespan:
    """The app's life: Redis, the store, the hub and the context up, the extensions started; at the end
    all of it down in reverse, the connections closed with 1001 (going away) first."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # one Redis or a Redis Cluster (redis+cluster://): redis_conn builds the matching clients
        redis = await redis_conn.general_client(settings)
        store = Store(redis, settings, redis_conn.batcher(redis, settings), clock)
        secret = settings.secret or await store.shared_secret()
        hub = redis_conn.hub(redis, settings, store.origin)
        await hub.start()
        limiter = limits.Limiter(redis, settings, store.batch)
        caps = ConnectionCaps(settings)
        ctx = Context(settings, redis, store, hub, Tokens(secret), dispatch, limiter, caps, clock)
        app.state.ctx = ctx
        for extension in extensions:
            if extension.startup is not None:
                await extension.startup(ctx)
        # what follows a Play game's end, left over: the app's, cancelled and awaited first at its end
        follower = asyncio.create_task(solo_follow.sweep(ctx), name="golfrace-solo-follow")
        try:
            yield
        finally:
            await end(follower)
            for extension in reversed(extensions):
                if extension.shutdown is not None:
                    with contextlib.suppress(Exception):
                        await extension.shutdown(ctx)
            sessions = list(ctx.sessions)
            for session in sessions:
                session.close(CLOSE_GOING_AWAY)
            # their close frames go out (each writer within close_timeout_s) before Redis and the hub go
            await asyncio.gather(*(session.writer.stop() for session in sessions))
            # what follows the last moves gets the writers' grace to end on its own, then is ended
            await ctx.tasks.wait(settings.close_timeout_s)
            await ctx.tasks.close()
            await hub.stop()
            await store.batch.aclose()
            await redis.aclose()

    return lifespan


def _routes(settings: Settings, extensions: Sequence[Extension]) -> list[BaseRoute]:
    """The core's routes, the extensions', and the web client (or a placeholder where it is not built)."""
    routes: list[BaseRoute] = [
        Route("/healthz", healthz),  # liveness
        Route("/readyz", readyz),  # readiness: Redis takes commands (http/ready.py)
        Route("/metrics", metrics_endpoint),
        Route("/catalogs/{locale}.json", catalog_endpoint),
    ]
    for extension in extensions:
        routes.extend(extension.routes())
    root = static_dir(settings)
    if root is not None:
        routes.append(Mount("/", StaticFiles(directory=root, html=True), name="client"))
    else:
        routes.append(Route("/", placeholder))
    return routes


# --- HTTP -----------------------------------------------------------------------------------------------
def http_error(code: ErrorCode, message: str, http_status: int, **extra: Any) -> JSONResponse:
    """The one shape of every HTTP error: ``{"error": code, "message": text}`` (plus ``extra`` fields)."""
    return JSONResponse({"error": code.value, "message": message, **extra}, status_code=http_status)


HTTP_STATUS_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.BAD_METHOD}


async def http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (no route, a method the route lacks) in the same shape; a browser asking for a
    page that is not there gets the app itself, with the 404 (it shows its own way on), not a JSON body."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status == 404 and _wants_page(request):
        root = static_dir(request.app.state.settings)
        index = root / "index.html" if root is not None else None
        if index is not None and index.is_file():
            return HTMLResponse(index.read_text("utf-8"), status_code=404)
    code = HTTP_STATUS_CODES.get(status, ErrorCode.INTERNAL)
    return http_error(code, str(getattr(exc, "detail", "")) or code.value, status)


def _wants_page(request: Request) -> bool:
    """A browser's navigation (GET, HTML accepted), not a program's or the API's request."""
    path = request.url.path
    accepts = request.headers.get("accept", "")
    return (
        request.method == "GET" and "text/html" in accepts and not path.startswith(("/api/", "/og/", "/ws"))
    )


async def server_fault(request: Request, exc: Exception) -> Response:
    if storage_full(exc):
        metrics.STORAGE_FULL.labels("http").inc()
        return http_error(ErrorCode.STORAGE_FULL, "storage is full; this was not done: retry later", 503)
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
    client = limits.scope_client_ip(dict(request.scope), ctx.settings.trusted_proxies)
    if not limits.listed(client, request.app.state.metrics_allowed):  # GOLFRACE_METRICS_ALLOW (19.9)
        return http_error(ErrorCode.FORBIDDEN, "/metrics is open to GOLFRACE_METRICS_ALLOW only", 403)
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
        await send({"type": "websocket.close", "code": CLOSE_BAD_ORIGIN})
        return
    cookie = ctx.identity.session_cookie(scope.get("headers"))  # accounts: a browser's session
    scope["headers"] = []  # the handshake is over: nothing reads them again
    frames = (scope.get("extensions") or {}).get(FRAMES)  # the protocol of seams/uvicorn_ws.py offers it
    if not ctx.caps.admit(client_net):  # accepted first, as above: the page sees the code
        metrics.CLOSES.labels(str(CLOSE_TOO_MANY_CONNECTIONS)).inc()
        await send({"type": "websocket.close", "code": CLOSE_TOO_MANY_CONNECTIONS})
        return
    session = Session(ctx, Socket(send), chosen or JSON, frames)
    session.network = session.caps_net = client_net
    session.cookie = cookie
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
        ctx.caps.release(session)
        metrics.CONNECTIONS.dec()
        try:
            await lanes.stop()
            await session.writer.stop()
        finally:  # even if this task is cancelled meanwhile: the close hooks must run (nothing sweeps)
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
