"""``golfrace serve`` (the server, with an embedded Redis unless one is given) and ``golfrace bot``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn

from ..cli import UsageError


def register(sub: Any) -> list[str]:
    p = sub.add_parser("serve", help="run the Golf Race server")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="TCP port (default 8000)")
    p.add_argument(
        "--redis", default=None, help="redis://… URL (default: $REDIS_URL, else an embedded Redis)"
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
    return ["serve", "bot", "settings"]


def cmd_settings(args: argparse.Namespace) -> int:
    from ..settings import Settings

    print(Settings().reference(), end="")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from ..app import create_app, uvicorn_config
    from ..redis_server import RedisServer
    from ..settings import Settings

    settings = Settings.from_env(host=args.host, port=args.port, redis_url=args.redis, data_dir=args.data_dir)
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
        print(f"golfrace: serving on http://{settings.host}:{settings.port}/", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            _Server(uvicorn_config(app, settings)).run()
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


class _Server(uvicorn.Server):
    """uvicorn's Server, except that SIGTERM/SIGINT only stop it: uvicorn re-raises the signal after a
    graceful shutdown, which would end the process before the embedded Redis is stopped."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


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
