"""Load report of the real-time server: bot players over real websockets against `golfrace serve` (its own
embedded redis-server), and the same clients against a bare Starlette websocket echo endpoint (the floor).

    .venv/bin/python bench/server.py [--players 200] [--seconds 8] [--rate 1000] [--idle 5000]

Phases (each on a fresh server process; this process runs the clients, so client and server share the
2 cores as they would in any single-box test):
1. echo floor: N connections in a closed loop (send a 60-byte msgpack frame, await the echo) → round trips/s;
2. saturation: N players in a closed loop (act, await ack; new game when one ends) → moves/s, vs the floor;
3. paced: N players sending --rate moves/s in total, W watchers following some of the games →
   p50/p99 move→ack and p99 move→watcher (send time of the move → arrival of its diff at the watcher);
4. idle memory: --idle connections that said hello, server RSS growth per connection, compression off/on.
Targets (issue 4): saturation ≥ 60% of the echo floor; paced p99 move→ack ≤ 20 ms at 1,000 moves/s over 200
connections; ≤ 20 KB per idle connection at 5,000. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import psutil
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from golfrace.client import GameView
from golfrace.redis_server import RedisServer, free_port
from golfrace.settings import Settings
from golfrace.testing import start_process, stop_process

WARMUP = 1.0  # seconds of the paced phase not measured (connections settle, caches fill)
PROTO = [Subprotocol("golfrace.msgpack")]
LIMITS = {"rate": 100_000.0, "burst": 100_000, "flood_close_after": 10**9, "max_open_games": 64}
ECHO_APP = """
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
async def echo(ws):
    await ws.accept(subprotocol="golfrace.msgpack")
    try:
        while True:
            await ws.send_bytes(await ws.receive_bytes())
    except Exception:
        pass
app = Starlette(routes=[WebSocketRoute("/ws", echo)])
"""


def raise_fd_limit() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1 << 20
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def open_ws(url: str, compression: bool = False) -> ClientConnection:
    return await connect(
        url,
        subprotocols=PROTO,
        compression="deflate" if compression else None,
        ping_interval=None,
        max_size=2**20,
    )


async def open_many(url: str, n: int, batch: int = 100, compression: bool = False) -> list[ClientConnection]:
    out: list[ClientConnection] = []
    for start in range(0, n, batch):
        out += await asyncio.gather(*(open_ws(url, compression) for _ in range(min(batch, n - start))))
    return out


class Player:
    """A lean bot: raw frames, a public view for legal moves, timestamps per seq."""

    def __init__(self, ws: ClientConnection, rng: random.Random) -> None:
        self.ws = ws
        self.rng = rng
        self.view: GameView | None = None
        self.seq = 0

    async def request(self, msg: dict[str, Any], until: str) -> dict[str, Any]:
        await self.ws.send(msgpack.packb(msg))
        while True:
            reply = msgpack.unpackb(await self.ws.recv())
            t = reply["t"]
            if t == "snapshot":
                self.view = GameView(reply["game"], reply["v"], reply["role"], reply["state"])
            elif t == "diff" and self.view is not None and reply["game"] == self.view.game:
                self.view.apply(reply)
            if t in (until, "error", "refused"):
                return reply

    async def start(self) -> None:
        reply = await self.request({"t": "hello"}, "welcome")
        if reply["t"] != "welcome":
            raise RuntimeError(f"hello failed: {reply}")
        await self.new_game()

    async def new_game(self) -> None:
        if self.view is not None:
            await self.ws.send(msgpack.packb({"t": "close", "game": self.view.game}))
        reply = await self.request({"t": "new", "rules": "easy"}, "snapshot")
        if reply["t"] != "snapshot":
            raise RuntimeError(f"new game failed: {reply}")

    async def move(self) -> float:
        """One action; returns its move→ack seconds."""
        assert self.view is not None
        if self.view.status != "playing":
            await self.new_game()
        legal = self.view.legal()
        taps = [a for a in legal if a["a"] == "tap"]
        action = self.rng.choice(taps) if taps else legal[0]
        self.seq += 1
        started = time.perf_counter()
        reply = await self.request({"t": "act", "game": self.view.game, "seq": self.seq, **action}, "ack")
        if reply["t"] != "ack":
            raise RuntimeError(f"unexpected answer {reply}")
        return time.perf_counter() - started


async def echo_floor(url: str, n: int, seconds: float) -> float:
    conns = await open_many(url, n)
    frame = msgpack.packb(
        {"t": "act", "game": "abcdefghijkm", "seq": 12345, "a": "tap", "col": 3, "x": "y" * 6}
    )
    count = 0
    deadline = time.perf_counter() + seconds

    async def loop(ws: ClientConnection) -> None:
        nonlocal count
        while time.perf_counter() < deadline:
            await ws.send(frame)
            await ws.recv()
            count += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop(ws) for ws in conns))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(ws.close() for ws in conns))
    return count / elapsed


async def start_players(url: str, n: int) -> list[Player]:
    conns = await open_many(url, n)
    players = [Player(ws, random.Random(i)) for i, ws in enumerate(conns)]
    for start in range(0, n, 100):
        await asyncio.gather(*(p.start() for p in players[start : start + 100]))
    return players


async def saturation(url: str, n: int, seconds: float) -> tuple[float, list[float]]:
    players = await start_players(url, n)
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def loop(p: Player) -> None:
        while time.perf_counter() < deadline:
            latencies.append(await p.move())

    start = time.perf_counter()
    await asyncio.gather(*(loop(p) for p in players))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(p.ws.close() for p in players))
    return len(latencies) / elapsed, latencies


async def paced(url: str, n: int, rate: float, seconds: float, watchers: int) -> dict[str, Any]:
    players = await start_players(url, n)
    sent_at: dict[tuple[str, int], float] = {}
    delivery: list[float] = []
    watched = players[:watchers]
    wconns = await open_many(url, len(watched))

    async def watch(ws: ClientConnection, game: str) -> None:
        await ws.send(msgpack.packb({"t": "hello"}))
        await ws.send(msgpack.packb({"t": "open", "game": game, "role": "watcher"}))
        with contextlib.suppress(Exception):
            async for frame in ws:
                msg = msgpack.unpackb(frame)
                if msg.get("t") == "diff":
                    at = sent_at.get((msg["game"], msg["v"]))
                    if at is not None:
                        delivery.append(time.perf_counter() - at)

    watch_tasks = [asyncio.create_task(watch(ws, p.view.game)) for ws, p in zip(wconns, watched, strict=True)]
    await asyncio.sleep(0.5)
    latencies: list[float] = []
    interval = n / rate
    warm_until = time.perf_counter() + WARMUP
    deadline = warm_until + seconds

    async def loop(p: Player, index: int) -> None:
        await asyncio.sleep(interval * index / n)
        next_at = time.perf_counter()
        while time.perf_counter() < deadline:
            assert p.view is not None
            if p.view.status != "playing" and p in watched:
                return  # keep the watched games alive for the whole run
            now = time.perf_counter()
            if now >= warm_until:
                sent_at[(p.view.game, p.view.v + 1)] = now
            took = await p.move()
            if now >= warm_until:
                latencies.append(took)
            next_at += interval * random.uniform(0.5, 1.5)
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))

    await asyncio.gather(*(loop(p, i) for i, p in enumerate(players)))
    elapsed = seconds
    await asyncio.sleep(0.3)
    for task in watch_tasks:
        task.cancel()
    await asyncio.gather(
        *(p.ws.close() for p in players), *(ws.close() for ws in wconns), return_exceptions=True
    )
    return {"moves_s": len(latencies) / elapsed, "ack": latencies, "delivery": delivery}


async def idle_memory(url: str, pid: int, n: int, compression: bool) -> float:
    proc = psutil.Process(pid)
    await asyncio.sleep(0.5)
    before = proc.memory_info().rss
    conns: list[ClientConnection] = []
    hello = msgpack.packb({"t": "hello"})
    ping = msgpack.packb({"t": "ping", "n": 1})
    for start in range(0, n, 250):  # hello right away: hello_timeout closes silent connections
        batch = await open_many(url, min(250, n - start), batch=250, compression=compression)
        await asyncio.gather(*(ws.send(hello) for ws in batch))
        await asyncio.gather(*(ws.recv() for ws in batch))
        if compression:  # one more frame each, so that the deflate contexts are really in use
            await asyncio.gather(*(ws.send(ping) for ws in batch))
            await asyncio.gather(*(ws.recv() for ws in batch))
        conns += batch
    await asyncio.sleep(1.0)
    after = proc.memory_info().rss
    for start in range(0, n, 500):
        await asyncio.gather(*(ws.close() for ws in conns[start : start + 500]), return_exceptions=True)
    return (after - before) / n


def start_echo(port: int) -> subprocess.Popen[bytes]:
    run = f"\nimport uvicorn\nuvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning'," + (
        " ws_per_message_deflate=False)"
    )
    args = [sys.executable, "-c", ECHO_APP + run]
    proc = subprocess.Popen(args)
    deadline = time.monotonic() + 15
    import socket

    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("echo server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--watchers", type=int, default=20)
    parser.add_argument("--idle", type=int, default=5000)
    parser.add_argument("--no-persist", action="store_true", help="embedded Redis without AOF/snapshots")
    args = parser.parse_args()
    fds = raise_fd_limit()
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="golfrace-bench-") as tmp:
        redis = RedisServer(
            Path(tmp) / "redis", persist=not args.no_persist
        ).start()  # embedded: unix socket, persistence on
        base = Settings(host="127.0.0.1", redis_url=redis.url, secret="bench").with_(**LIMITS)
        try:
            echo_port = free_port()
            echo = start_echo(echo_port)
            try:
                report["echo_rt_s"] = asyncio.run(
                    echo_floor(f"ws://127.0.0.1:{echo_port}/ws", args.players, args.seconds)
                )
            finally:
                echo.terminate()
                echo.wait(10)

            server = start_process(base.with_(port=free_port()), log=Path(tmp) / "server.log")
            try:
                rate, lat = asyncio.run(saturation(server.ws, args.players, args.seconds))
                report.update(sat_moves_s=rate, sat_p50=pct(lat, 50), sat_p99=pct(lat, 99))
            finally:
                stop_process(server)
            server = start_process(base.with_(port=free_port()), log=Path(tmp) / "server.log")
            try:
                out = asyncio.run(paced(server.ws, args.players, args.rate, args.seconds, args.watchers))
                report.update(
                    paced_moves_s=out["moves_s"],
                    ack_p50=pct(out["ack"], 50),
                    ack_p99=pct(out["ack"], 99),
                    watch_p50=pct(out["delivery"], 50),
                    watch_p99=pct(out["delivery"], 99),
                    watch_n=len(out["delivery"]),
                )
            finally:
                stop_process(server)

            if args.idle:
                for compression in (False, True):
                    server = start_process(base.with_(port=free_port(), compression=compression))
                    try:
                        assert server.process is not None
                        per = asyncio.run(idle_memory(server.ws, server.process.pid, args.idle, compression))
                        report[f"idle_kb_{'on' if compression else 'off'}"] = per / 1024
                    finally:
                        stop_process(server)
        finally:
            redis.stop()
            log = Path(tmp) / "server.log"
            if log.exists() and "Error" in log.read_text():
                print(log.read_text()[-3000:], file=sys.stderr)

    ms = 1000
    ratio = report["sat_moves_s"] / report["echo_rt_s"]
    print(
        f"golfrace server benchmark: {args.players} connections, {args.seconds:g} s per phase, fd limit {fds}"
    )
    print(f"  echo floor           {report['echo_rt_s']:9.0f} round trips/s")
    print(
        f"  saturation           {report['sat_moves_s']:9.0f} moves/s = {ratio:.0%} of the floor (target 60%)"
        f"   ack p50 {report['sat_p50'] * ms:.1f} ms, p99 {report['sat_p99'] * ms:.1f} ms"
    )
    print(
        f"  paced {args.rate:g}/s       {report['paced_moves_s']:9.0f} moves/s   move→ack p50 "
        f"{report['ack_p50'] * ms:.1f} ms, p99 {report['ack_p99'] * ms:.1f} ms (target ≤ 20 ms); "
        f"move→watcher p50 {report['watch_p50'] * ms:.1f} ms, p99 {report['watch_p99'] * ms:.1f} ms "
        f"({report['watch_n']} deliveries, {args.watchers} watchers)"
    )
    ok = ratio >= 0.6 and report["ack_p99"] <= 0.020
    if args.idle:
        print(
            f"  idle memory          {report['idle_kb_off']:.1f} KB/connection without compression, "
            f"{report['idle_kb_on']:.1f} KB with permessage-deflate ({args.idle} connections; target ≤ 20 KB)"
        )
        ok = ok and report["idle_kb_off"] <= 20
    print("  targets met" if ok else "  TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
