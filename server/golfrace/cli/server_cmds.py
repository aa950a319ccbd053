"""``golfrace serve`` (the server, with an embedded Redis unless one is given) and ``golfrace bot``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import ipaddress
import logging
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from golfrace.engine.rules import DEFAULT_RULES, RULES

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
    p.add_argument("--rules", choices=RULES, default=None)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument(
        "--strength",
        type=int,
        default=None,
        help="race in the quick-race pool at this strength (1-5, docs/bots.md) instead of playing solo games",
    )
    p.set_defaults(func=cmd_bot)
    p = sub.add_parser("settings", help="print every GOLFRACE_* setting with its default (Markdown)")
    p.set_defaults(func=cmd_settings)

    p = sub.add_parser("messages", help="print every message of the wire (JSON, or the web client's module)")
    p.add_argument("--js", action="store_true", help="client_web/src/net/messages.js (web client)")
    p.set_defaults(func=cmd_messages)
    return ["serve", "bot", "settings", "messages"]


def cmd_messages(args: argparse.Namespace) -> int:
    import json

    from golfrace.wire.client_js import javascript
    from golfrace.wire.messages import export

    text = javascript() if args.js else json.dumps(export(), indent=2, ensure_ascii=False) + "\n"
    print(text, end="")
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    from ..settings import Settings

    print(Settings().reference(), end="")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from golfrace.seams.uvicorn_server import uvicorn_config
    from golfrace.server import product_app
    from golfrace.store.embedded import RedisServer

    from ..seams.uvicorn_server import Server
    from ..settings import Settings
    from ..settings.secret import refusal

    settings = Settings.from_env(host=args.host, port=args.port, redis_url=args.redis, data_dir=args.data_dir)
    weak = refusal(settings.secret)  # fair play 19.7: a guessable secret forges tokens and the daily's codes
    if weak:
        print(weak, file=sys.stderr, flush=True)
        return 2
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
    if cluster_not_ready(settings):
        return 1
    try:
        app = product_app(settings)
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


def cluster_not_ready(settings: Any) -> bool:
    """On a Redis Cluster: wait, saying so, until it is ok and its replicas are online (a cluster still
    syncing answers every write ``unavailable``); True, after one line, for a cluster too old to use."""
    from golfrace.store import connection
    from golfrace.store.cluster_wait import RedisTooOld, wait_ready

    if not connection.is_cluster(settings.redis_url):
        return False

    def say(line: str) -> None:
        print(f"golfrace: {line}", flush=True)

    try:
        asyncio.run(wait_ready(settings.redis_url, connection.wait_replicas(settings), say))
    except RedisTooOld as exc:
        print(f"golfrace: {exc}", file=sys.stderr, flush=True)
        return True
    return False


def serving_lines(host: str, port: int) -> list[str]:
    """What ``serve`` prints once it listens: the address to open. A loopback or any-address bind is
    ``http://localhost:PORT`` (passkeys need a domain name: on ``127.0.0.1`` none can be made, issue 20.4); a
    bind to one IP address says that it offers passwords only there."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return [f"golfrace: serving on http://{host}:{port}/"]  # a name: passkeys work
    if address.is_loopback or address.is_unspecified:
        lines = [f"golfrace: serving on http://localhost:{port}/"]
        if address.is_unspecified:
            lines.append(f"golfrace: and on this machine's addresses, port {port} (by IP: passwords only)")
        return lines
    shown = f"[{address}]" if address.version == 6 else str(address)
    return [
        f"golfrace: serving on http://{shown}:{port}/",
        "golfrace: passkeys need a domain name; on an IP address the site offers passwords only",
    ]


def say_serving(server: Server) -> None:
    for line in serving_lines(server.config.host, server.port()):
        print(line, flush=True)


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


def _say_bot(line: str) -> None:
    print(f"golfrace bot: {line}", file=sys.stderr, flush=True)


def _pool_bot(args: argparse.Namespace) -> int:
    from golfrace.strategy import STRENGTHS
    from golfrace_client.pool_bot import run_pool

    if args.strength not in STRENGTHS:
        raise UsageError(f"golfrace bot: --strength is {min(STRENGTHS)}-{max(STRENGTHS)}")
    rules = args.rules or DEFAULT_RULES.value
    for r in asyncio.run(run_pool(args.url, args.strength, args.games, rules, args.seed, say=_say_bot)):
        rating = "" if r.rating is None else f" rating {r.rating} ({r.delta:+d})"
        print(f"{r.race} place {r.place}/{r.racers} {r.status} score {r.score}{rating}")
    return 0


def cmd_bot(args: argparse.Namespace) -> int:
    from golfrace_client.bot import run

    if args.games < 1:
        raise UsageError("golfrace bot: --games must be at least 1")
    if not args.url.startswith(("ws://", "wss://")):
        raise UsageError("golfrace bot: the URL starts with ws:// or wss://, e.g. ws://127.0.0.1:8000/ws")
    if args.strength is not None:
        return _pool_bot(args)

    results = asyncio.run(run(args.url, args.games, args.rules, args.seed, say=_say_bot))
    for r in results:
        print(f"{r.game} {r.code or '?'} {r.status} score {r.score} moves {r.moves}")
    return 0
