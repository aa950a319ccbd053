"""uvicorn as Golf Race runs it: which websocket protocol, its log of a bad text frame, and its ``Server``
with the signal handlers replaced.

uvicorn documents ``Config(ws=…)`` and running ``Server(config)`` (``serve()``, ``run()``); what this module
relies on beyond that is uvicorn's own: the module path of its websockets-sansio protocol, the text it logs
for a text frame that is not UTF-8, and of ``Server``: ``capture_signals`` (the context ``serve`` runs in,
which installs uvicorn's handlers and re-raises the signal after a graceful shutdown), ``handle_exit`` (its
handler), ``started`` and ``should_exit`` (its state), ``startup`` and the asyncio ``servers`` it makes.
``tests/server/test_seams_contract.py`` holds them against the installed uvicorn. Unlike ``uvicorn_ws``
(which subclasses the protocol), this module imports on any uvicorn.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import signal
import socket
from collections.abc import Callable, Iterator
from typing import Any, Literal

import uvicorn

from golfrace.settings import Settings

log = logging.getLogger("golfrace.http.app")
SANSIO_MODULE = "uvicorn.protocols.websockets.websockets_sansio_impl"


def websocket_protocol() -> Any:
    """The trimmed protocol of ``uvicorn_ws``; when this uvicorn cannot give it its base class, uvicorn's own
    ``websockets-sansio`` protocol (or, without that, the ``websockets`` one)."""
    try:
        from .uvicorn_ws import LeanWebSocketProtocol
    except ImportError as exc:
        try:
            sansio = importlib.util.find_spec(SANSIO_MODULE) is not None
        except ImportError:
            sansio = False
        fallback = "websockets-sansio" if sansio else "websockets"
        log.warning("lean websocket protocol unavailable (%s); uvicorn's %r instead", exc, fallback)
        return fallback
    return LeanWebSocketProtocol


class BadTextFrameLog(logging.Filter):
    """uvicorn logs a text frame that is not UTF-8 as an error with a traceback, then closes with 1007 as the
    protocol asks. It is the client's fault and handled: one warning line, no traceback."""

    MESSAGE = "Invalid UTF-8 sequence received from client."

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == self.MESSAGE:
            record.msg = "a text frame that is not UTF-8: closed with 1007"
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_bad_text_frames() -> None:
    """Install ``BadTextFrameLog`` on uvicorn's error logger, once."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, BadTextFrameLog) for f in logger.filters):
        logger.addFilter(BadTextFrameLog())


class Server(uvicorn.Server):
    """``signals="stop"``: SIGINT/SIGTERM only stop the server (uvicorn re-raises the signal after a graceful
    shutdown, which would end the process before, say, an embedded Redis is stopped); ``"none"``: no signal
    handlers at all (a test runner keeps its Ctrl+C). ``on_listening`` is called once the server listens."""

    def __init__(
        self,
        config: uvicorn.Config,
        signals: Literal["stop", "none"] = "stop",
        on_listening: Callable[[Server], None] | None = None,
    ) -> None:
        super().__init__(config)
        self.signals = signals
        self.on_listening = on_listening

    @property
    def listening(self) -> bool:
        """Startup is done: the server accepts connections."""
        return bool(self.started)

    def stop(self) -> None:
        """Shut down gracefully (``serve`` returns once done)."""
        self.should_exit = True

    def port(self) -> int:
        """The TCP port listened on (the one chosen for port 0); the configured one before startup."""
        for server in getattr(self, "servers", ()):
            for sock in server.sockets:
                return int(sock.getsockname()[1])
        return int(self.config.port)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.on_listening is not None:
            self.on_listening(self)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if self.signals == "none":
            yield
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def uvicorn_config(app: Any, settings: Settings, **overrides: Any) -> uvicorn.Config:
    """uvicorn's configuration of the ASGI ``app`` (``http.app.GolfApp``) with the limits of ``settings``."""
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
