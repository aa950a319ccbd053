"""Idle memory A B A B: RSS growth per connection after ``hello`` (bench/server.py's idle phase, compression
off) of two server trees alternately, each on a fresh server, in one run, so that both see the same machine.

    .venv/bin/python bench/idle_ab.py --a /tmp/base/server --b server [--idle 5000] [--pairs 2]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import tempfile
from pathlib import Path

from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer, free_port
from golfrace_testkit.servers import start_process, stop_process
from server import LIMITS, idle_memory, raise_fd_limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, help="server source folder A (PYTHONPATH)")
    parser.add_argument("--b", required=True, help="server source folder B")
    parser.add_argument("--idle", type=int, default=5000)
    parser.add_argument("--pairs", type=int, default=2)
    args = parser.parse_args()
    raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="golfrace-idle-") as tmp:
        redis = RedisServer(Path(tmp) / "redis", persist=False).start()
        base = Settings(host="127.0.0.1", redis_url=redis.url, secret=secrets.token_hex(32)).with_(**LIMITS)
        try:
            figures: dict[str, list[float]] = {"A": [], "B": []}
            for _ in range(args.pairs):
                for name, src in (("A", args.a), ("B", args.b)):
                    server = start_process(base.with_(port=free_port()), env={"PYTHONPATH": src})
                    try:
                        assert server.process is not None
                        per = asyncio.run(idle_memory(server.ws, server.process.pid, args.idle, False))
                    finally:
                        stop_process(server)
                    figures[name].append(per / 1024)
                    print(f"{name} ({src}): {per / 1024:.2f} KB a connection at {args.idle}", flush=True)
        finally:
            redis.stop()
    a, b = figures["A"], figures["B"]
    print(f"A {min(a):.2f}–{max(a):.2f} KB, B {min(b):.2f}–{max(b):.2f} KB; B/A {sum(b) / sum(a):.3f}")


if __name__ == "__main__":
    main()
