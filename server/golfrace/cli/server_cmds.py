"""``golfrace serve`` (the server, with an embedded Redis unless one is given) and ``golfrace bot``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cli import UsageError

if TYPE_CHECKING:
    from ..seams.uvicorn_server import Server


def register(sub: Any) -> list[str]:
    p = sub.add_parser("serve", help="run the Golf Race server")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="TCP port (default 8000)")
    p.add_argument(
        "--redis",
        default=None,
        help="redis://… URL, or redis+cluster://host:port,… for a Redis Cluster"
        " (default: $REDIS_URL, else an embedded Redis)",
    )
    p.add_argument("--data-dir", default=None, help="embedded Redis data directory (default ./var)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("bot", help="play games against a server, e.g. ws://127.0.0.1:8000/ws")
    p.add_argument("url")
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--rules", choices=("easy", "classic"), default=None)
    p.add_argument("--seed", type=int, default=None)
    p.set_defaults(func=cmd_bot)
    p = sub.add_parser("settings", help="print every GOLFRACE_* setting with its default (Markdown)")
    p.set_defaults(func=cmd_settings)

    p = sub.add_parser("messages", help="print every message of the wire (JSON, or the web client's module)")
    p.add_argument("--js", action="store_true", help="client_web/src/messages.js (web client)")
    p.set_defaults(func=cmd_messages)
    return ["serve", "bot", "settings", "messages"]


def cmd_messages(args: argparse.Namespace) -> int:
    import json

    from ..messages import export, javascript

    text = javascript() if args.js else json.dumps(export(), indent=2, ensure_ascii=False) + "\n"
    print(text, end="")
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    from ..settings import Settings

    print(Settings().reference(), end="")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from ..app import create_app, uvicorn_config
    from ..redis_server import RedisServer
    from ..seams.uvicorn_server import Server
    from ..settings import Settings

    settings = Settings.from_env(host=args.host, port=args.port, redis_url=args.redis, data_dir=args.data_dir)
    taken = port_taken(settings.host, settings.port)
    if taken:
        print(taken, file=sys.stderr, flush=True)
        return 1
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    embedded: RedisServer | None = None
    if not settings.redis_url:
        embedded = RedisServer(
            Path(settings.data_dir) / "redis",
            maxmemory=settings.redis_maxmemory,
            policy=settings.redis_maxmemory_policy,
        ).start()
        settings = settings.with_(redis_url=embedded.url)
        print(f"golfrace: embedded Redis at {embedded.url} (data in {embedded.data_dir})", flush=True)
    try:
        app = create_app(settings)
        server = Server(uvicorn_config(app, settings), signals="stop", on_listening=say_serving)
        try:
            with contextlib.suppress(KeyboardInterrupt):
                server.run()
        except SystemExit:  # uvicorn's answer to a failed start: taken between the check and the bind?
            if server.listening:
                raise
            why = port_taken(settings.host, settings.port) or "golfrace: the server did not start"
            print(why, file=sys.stderr)
            return 1
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def say_serving(server: Server) -> None:
    print(f"golfrace: serving on http://{server.config.host}:{server.port()}/", flush=True)


def port_taken(host: str, port: int) -> str | None:
    """A plain message when ``host:port`` cannot be listened on (in use, or not this machine's address),
    saying how to choose another; None when it is free. Checked before anything starts, so nothing claims to
    be serving first."""
    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            how = f"choose another port: golfrace serve --port {port + 1}, or make run PORT={port + 1}"
            if exc.errno == errno.EADDRINUSE:
                return f"golfrace: port {port} on {host} is already in use (another server?); {how}"
            return f"golfrace: cannot listen on {host}:{port} ({exc.strerror}); {how}, or HOST=127.0.0.1"
    return None


def cmd_bot(args: argparse.Namespace) -> int:
    from ..bot import run

    if args.games < 1:
        raise UsageError("golfrace bot: --games must be at least 1")
    if not args.url.startswith(("ws://", "wss://")):
        raise UsageError("golfrace bot: the URL starts with ws:// or wss://, e.g. ws://127.0.0.1:8000/ws")
    results = asyncio.run(run(args.url, args.games, args.rules, args.seed))
    for r in results:
        print(f"{r.game} {r.code or '?'} {r.status} score {r.score} moves {r.moves}")
    return 0
