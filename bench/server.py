"""Load report of the real-time server: bot players over real websockets against `golfrace serve` (its own
embedded redis-server), and the same clients against a bare Starlette websocket echo endpoint (the floor).

    .venv/bin/python bench/server.py [--players 200] [--seconds 8] [--rate 1000] [--idle 5000] [--procs 2]

How it measures (each phase on a fresh server process; uvicorn with its defaults, i.e. uvloop + httptools
when installed, for the echo and for the game server alike):
- The load comes from --procs separate processes (multiprocessing, uvloop), each with its share of the
  connections, started together at one monotonic-clock instant; this process only coordinates and reads the
  CPU time of the server, Redis and the generators (psutil), so the figures say where the CPU went.
- Both phases time the same code path, ``Player.round_trip``: send one frame, read frames until the awaited
  one. The echo frame is a real ``act`` message (same size); the echo answers with one frame, a move with
  two (the ``diff`` to the game's followers, the player included, then the ``ack``).
- The bots' moves are computed by the engine before any timing (150 games per process, played out taps
  first, like ``golfrace bot``), so the generators spend their CPU on websockets, not on choosing moves.
Phases:
1. echo floor: N connections in a closed loop → round trips/s; then the same echo awaiting one Redis INCR
   per frame (plain redis-py; the game server's batcher), lower bounds for any server that writes each move
   to Redis before answering;
2. saturation: N players in a closed loop (act, await ack; a new game with a known code when one ends) →
   moves/s, vs the floor;
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
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgpack
import psutil
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from golfrace.engine import Game, GameCode, Rules, Status, Tap
from golfrace.engine.codes import SEED_SPACE
from golfrace.engine.rules import NO_VARIANTS
from golfrace.redis_server import RedisServer, free_port, terminate
from golfrace.settings import Settings
from golfrace.testing import start_process, stop_process

WARMUP = 1.0  # seconds of the paced phase not measured (connections settle, caches fill)
PROTO = [Subprotocol("golfrace.msgpack")]
LIMITS = {"rate": 100_000.0, "burst": 100_000, "flood_close_after": 10**9, "max_open_games": 64}
ECHO_APP = """
import os
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
step = None
if os.environ["BENCH_ECHO"] == "redis":  # one command per frame, as redis-py is usually used
    import redis.asyncio as aioredis
    client = aioredis.Redis.from_url(os.environ["BENCH_REDIS"], max_connections=1000)
    step = lambda: client.incr("bench:echo")
elif os.environ["BENCH_ECHO"] == "batched":  # the game server's own path to Redis (store.Batcher)
    from golfrace.store import Batcher, batch_client
    batcher = Batcher(batch_client(os.environ["BENCH_REDIS"], 2, 5.0), 2, 5.0)
    step = lambda: batcher.call("INCR", "bench:echo")
async def echo(ws):
    await ws.accept(subprotocol="golfrace.msgpack")
    try:
        while True:
            frame = await ws.receive_bytes()
            if step is not None:
                await step()
            await ws.send_bytes(frame)
    except Exception:
        pass
app = Starlette(routes=[WebSocketRoute("/ws", echo)])
"""
ECHO_KINDS = {
    "echo": "echo floor",
    "redis": "echo + 1 Redis INCR (redis-py)",
    "batched": "echo + 1 Redis INCR (batcher)",
}
"""The floor, and two lower bounds for any server that writes each move to Redis before answering: the same
bare echo with one Redis command per frame, awaited before the echo (plain redis-py; the game server's
batcher). They do no game logic and answer with one frame, not two."""


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


def move_lines(seed: int, games: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """Games played out by the engine before any timing: (code, wire actions) — taps first, like the bot —
    so that the load generator spends its CPU on the websocket, not on choosing moves."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        code = GameCode(Rules.EASY, rng.randrange(SEED_SPACE), NO_VARIANTS)
        game, line = Game.new(code), []
        while game.status is Status.PLAYING:
            legal = game.legal_actions()
            taps = [a for a in legal if isinstance(a, Tap)]
            action = rng.choice(taps) if taps else legal[0]
            line.append({"a": "tap", "col": action.column} if isinstance(action, Tap) else {"a": "draw"})
            game = game.apply(action)
        out.append((str(code), line))
    return out


class Player:
    """One connection of the load generator. ``round_trip`` is the one path both phases time: send a
    frame, read frames until the awaited one (echo: the first; game: the `ack`, after the `diff`)."""

    def __init__(
        self, ws: ClientConnection, lines: list[tuple[str, list[dict[str, Any]]]], first: int
    ) -> None:
        self.ws = ws
        self.lines = lines
        self.next_line = first
        self.game = ""
        self.line: list[dict[str, Any]] = []
        self.pos = 0
        self.seq = 0
        self.v = 0

    async def round_trip(self, frame: bytes, until: str | None) -> dict[str, Any] | None:
        await self.ws.send(frame)
        while True:
            data = await self.ws.recv()
            if until is None:
                return None
            reply = msgpack.unpackb(data)
            t = reply["t"]
            if t == until:
                return reply  # type: ignore[no-any-return]
            if t in ("error", "refused"):
                raise RuntimeError(f"unexpected answer {reply}")

    async def start(self) -> None:
        reply = await self.round_trip(msgpack.packb({"t": "hello"}), "welcome")
        assert reply is not None
        await self.new_game()

    async def new_game(self) -> None:
        if self.game:
            await self.ws.send(msgpack.packb({"t": "close", "game": self.game}))
        code, self.line = self.lines[self.next_line % len(self.lines)]
        self.next_line += 1
        reply = await self.round_trip(msgpack.packb({"t": "new", "code": code}), "snapshot")
        assert reply is not None
        self.game, self.pos, self.v = reply["game"], 0, reply["v"]

    def act_frame(self) -> bytes:
        self.seq += 1
        return msgpack.packb({"t": "act", "game": self.game, "seq": self.seq, **self.line[self.pos]})  # type: ignore[no-any-return]

    async def move(self) -> float:
        """The next precomputed action; returns its move→ack seconds."""
        if self.pos >= len(self.line):
            await self.new_game()
        frame = self.act_frame()
        started = time.perf_counter()
        reply = await self.round_trip(frame, "ack")
        took = time.perf_counter() - started
        assert reply is not None
        self.pos += 1
        self.v = reply["v"]
        return took

    async def echo(self, frame: bytes) -> float:
        started = time.perf_counter()
        await self.round_trip(frame, None)
        return time.perf_counter() - started


ECHO_FRAME = msgpack.packb({"t": "act", "game": "abcdefghijkm", "seq": 12345, "a": "tap", "col": 3})


async def _worker(job: dict[str, Any], pipe: Connection) -> dict[str, Any]:
    """One load-generator process: its share of connections; waits for the common start time."""
    mode, n = job["mode"], job["players"]
    lines = move_lines(job["seed"], 150) if mode != "echo" else []
    conns = await open_many(job["url"], n)
    players = [Player(ws, lines, i * 7) for i, ws in enumerate(conns)]
    if mode != "echo":
        for start in range(0, n, 100):
            await asyncio.gather(*(p.start() for p in players[start : start + 100]))
    watched = players[: job.get("watchers", 0)] if mode == "paced" else []
    wconns = await open_many(job["url"], len(watched)) if watched else []
    sent_at: dict[tuple[str, int], float] = {}
    delivery: list[float] = []
    for ws, p in zip(wconns, watched, strict=True):
        await ws.send(msgpack.packb({"t": "hello"}))
        await ws.send(msgpack.packb({"t": "open", "game": p.game, "role": "watcher"}))

    async def watch(ws: ClientConnection) -> None:
        with contextlib.suppress(Exception):
            async for frame in ws:
                msg = msgpack.unpackb(frame)
                if msg.get("t") == "diff":
                    at = sent_at.get((msg["game"], msg["v"]))
                    if at is not None:
                        delivery.append(time.perf_counter() - at)

    pipe.send("ready")
    start_at = pipe.recv()  # a time.monotonic() value shared by all processes
    watch_tasks = [asyncio.create_task(watch(ws)) for ws in wconns]
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    latencies: list[float] = []
    count = 0
    t0 = time.perf_counter()
    warm_until = t0 + (WARMUP if mode == "paced" else 0.0)
    deadline = warm_until + job["seconds"]

    async def closed_loop(p: Player) -> None:
        nonlocal count
        while time.perf_counter() < deadline:
            latencies.append(await (p.echo(ECHO_FRAME) if mode == "echo" else p.move()))
            count += 1

    async def paced_loop(p: Player, index: int) -> None:
        nonlocal count
        interval = job["total_players"] / job["rate"]
        await asyncio.sleep(interval * index / n)
        next_at = time.perf_counter()
        while time.perf_counter() < deadline:
            if p in watched and p.pos >= len(p.line):
                return  # keep the watched games alive for the whole run
            now = time.perf_counter()
            if now >= warm_until:
                sent_at[(p.game, p.v + 1)] = now
            took = await p.move()
            if now >= warm_until:
                latencies.append(took)
                count += 1
            next_at += interval * random.uniform(0.5, 1.5)
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))

    if mode == "paced":
        await asyncio.gather(*(paced_loop(p, i) for i, p in enumerate(players)))
        elapsed = job["seconds"]
        await asyncio.sleep(0.3)  # the last diffs reach the watchers
    else:
        await asyncio.gather(*(closed_loop(p) for p in players))
        elapsed = time.perf_counter() - warm_until
    for task in watch_tasks:
        task.cancel()
    cpu = time.process_time()
    await asyncio.gather(
        *(p.ws.close() for p in players), *(ws.close() for ws in wconns), return_exceptions=True
    )
    return {"count": count, "elapsed": elapsed, "lat": latencies, "delivery": delivery, "cpu": cpu}


def _worker_main(job: dict[str, Any], pipe: Connection) -> None:
    if job.get("uvloop"):
        import uvloop

        uvloop.install()
    try:
        pipe.send(asyncio.run(_worker(job, pipe)))
    except BaseException as exc:  # report instead of hanging the parent
        pipe.send({"error": repr(exc)})
        raise


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            t = psutil.Process(pid).cpu_times()
            total += t.user + t.system
    return total


def run_load(
    url: str,
    mode: str,
    args: argparse.Namespace,
    server_pids: list[int],
    redis_pids: list[int] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """Run one phase in ``args.procs`` load-generator processes; CPU of the server side measured around the
    timed window."""
    ctx = multiprocessing.get_context("fork")
    procs, pipes = [], []
    shares = [
        args.players // args.procs + (1 if i < args.players % args.procs else 0) for i in range(args.procs)
    ]
    wshares = [
        args.watchers // args.procs + (1 if i < args.watchers % args.procs else 0) for i in range(args.procs)
    ]
    for i, share in enumerate(shares):
        job = {
            "mode": mode,
            "url": url,
            "players": share,
            "total_players": args.players,
            "rate": args.rate,
            "watchers": wshares[i],
            "seconds": args.seconds,
            "seed": 1000 + i,
            "uvloop": not args.no_uvloop,
        }
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_worker_main, args=(job, theirs), daemon=True)
        proc.start()
        procs.append(proc)
        pipes.append(mine)
    try:
        for pipe in pipes:
            if not pipe.poll(120):
                raise RuntimeError("a load generator did not get ready")
            msg = pipe.recv()
            if msg != "ready":
                raise RuntimeError(f"load generator failed: {msg}")
        start_at = time.monotonic() + 0.3
        for pipe in pipes:
            pipe.send(start_at)
        time.sleep(max(0.0, start_at - time.monotonic()))
        cpu0, rcpu0 = cpu_seconds(server_pids), cpu_seconds(list(redis_pids))
        results = []
        for pipe in pipes:
            if not pipe.poll(args.seconds * 4 + 60):
                raise RuntimeError("a load generator did not finish")
            results.append(pipe.recv())
        cpu1, rcpu1 = cpu_seconds(server_pids), cpu_seconds(list(redis_pids))
        window = time.monotonic() - start_at
    finally:
        for proc in procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
    for r in results:
        if "error" in r:
            raise RuntimeError(f"load generator failed: {r['error']}")
    count = sum(r["count"] for r in results)
    elapsed = max(r["elapsed"] for r in results)
    return {
        "rate": count / elapsed,
        "count": count,
        "lat": [x for r in results for x in r["lat"]],
        "delivery": [x for r in results for x in r["delivery"]],
        "server_us": (cpu1 - cpu0) / count * 1e6 if count else float("nan"),
        "server_load": (cpu1 - cpu0) / window,
        "redis_us": (rcpu1 - rcpu0) / count * 1e6 if count else float("nan"),
        "client_us": sum(r["cpu"] for r in results) / count * 1e6 if count else float("nan"),
    }


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


def start_echo(port: int, kind: str, redis_url: str) -> subprocess.Popen[bytes]:
    run = f"\nimport uvicorn\nuvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning'," + (
        " ws_per_message_deflate=False)"
    )
    args = [sys.executable, "-c", ECHO_APP + run]
    proc = subprocess.Popen(args, env={**os.environ, "BENCH_ECHO": kind, "BENCH_REDIS": redis_url})
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
    parser.add_argument("--procs", type=int, default=2, help="load-generator processes")
    parser.add_argument(
        "--no-uvloop", action="store_true", help="load generators on the default asyncio loop"
    )
    parser.add_argument("--no-persist", action="store_true", help="embedded Redis without AOF/snapshots")
    args = parser.parse_args()
    fds = raise_fd_limit()
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="golfrace-bench-") as tmp:
        redis = RedisServer(Path(tmp) / "redis", persist=not args.no_persist).start()  # unix socket
        redis_pids = [redis.process.pid] if redis.process is not None else []
        base = Settings(host="127.0.0.1", redis_url=redis.url, secret="bench").with_(**LIMITS)
        try:
            for kind in ECHO_KINDS:
                echo_port = free_port()
                echo = start_echo(echo_port, kind, redis.url)
                try:
                    pids = redis_pids if kind != "echo" else []
                    report[kind] = run_load(f"ws://127.0.0.1:{echo_port}/ws", "echo", args, [echo.pid], pids)
                finally:
                    terminate(echo)
            for mode in ("game", "paced"):
                server = start_process(base.with_(port=free_port()), log=Path(tmp) / "server.log")
                try:
                    assert server.process is not None
                    report[mode] = run_load(server.ws, mode, args, [server.process.pid], redis_pids)
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
    echo, sat, paced = report["echo"], report["game"], report["paced"]
    ratio = sat["rate"] / echo["rate"]
    print(
        f"golfrace server benchmark: {args.players} connections from {args.procs} load-generator processes, "
        f"{args.seconds:g} s per phase, fd limit {fds}, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(
        f"  echo floor           {echo['rate']:9.0f} round trips/s   "
        f"server CPU {echo['server_us']:.0f} us/round trip"
        f" (busy {echo['server_load']:.0%}); load generator {echo['client_us']:.0f} us/round trip"
    )
    for kind in ("redis", "batched"):
        floor = report[kind]
        print(
            f"  {ECHO_KINDS[kind]:<31} {floor['rate']:9.0f} round trips/s = "
            f"{floor['rate'] / echo['rate']:.0%} of the floor; server CPU {floor['server_us']:.0f} us, "
            f"Redis {floor['redis_us']:.0f} us, load generator {floor['client_us']:.0f} us a round trip"
        )
    print(
        f"  saturation           {sat['rate']:9.0f} moves/s = {ratio:.0%} of the floor (target 60%)"
        f"   ack p50 {pct(sat['lat'], 50) * ms:.1f} ms, p99 {pct(sat['lat'], 99) * ms:.1f} ms\n"
        f"                       server CPU {sat['server_us']:.0f} us/move "
        f"(busy {sat['server_load']:.0%}), Redis "
        f"{sat['redis_us']:.0f} us/move, load generator {sat['client_us']:.0f} us/move"
    )
    print(
        f"  paced {args.rate:g}/s       {paced['rate']:9.0f} moves/s   move→ack p50 "
        f"{pct(paced['lat'], 50) * ms:.1f} ms, p99 {pct(paced['lat'], 99) * ms:.1f} ms (target ≤ 20 ms); "
        f"move→watcher p50 {pct(paced['delivery'], 50) * ms:.1f} ms, "
        f"p99 {pct(paced['delivery'], 99) * ms:.1f} ms "
        f"({len(paced['delivery'])} deliveries, {args.watchers} watchers); "
        f"server CPU {paced['server_us']:.0f} us/move"
    )
    ok = ratio >= 0.6 and pct(paced["lat"], 99) <= 0.020
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
