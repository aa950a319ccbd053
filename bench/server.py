"""Load report of the real-time server: bot players over real websockets against `golfrace serve` (its own
embedded redis-server), and the same clients against a bare Starlette websocket echo endpoint (the floor).

    .venv/bin/python bench/server.py [--players 200] [--seconds 8] [--rate 1000] [--idle 5000] [--procs 2]
    .venv/bin/python bench/server.py --phases peer [--peer-pairs 2]     # against the peer only (~2-3 min)

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
4. idle memory: --idle connections that said hello, server RSS growth per connection, compression off/on;
5. race (``race``, ``race_paced``): the saturation and paced phases in races of 4, each seat playing the same
   generator's games as the solo phases; ``fanout``: one mover, 200 watchers (issue 10.2);
6. life (``life``): the same lives without their moves, so the report can tell a race's per-move cost from
   the cost of its life: a solo game made and closed, and a race of 4 made, joined, started, its seats
   opened and resigned one after the other (its results written), then each seat closed and the race
   unwatched, as the web client does before its next race. From the two and the saturation phase it
   prints the most the race phase could reach against solo if a seat's move cost exactly a solo move.
7. peer (``peer``, issue 18.11): the same moves against a python-socketio server with AsyncRedisManager on
   its own redis-server, the same engine, codec and diff (bench/peer_socketio.py; the generators speak
   Socket.IO over the same websockets client, bench/peer_client.py), alternating A B A B (``--peer-pairs``
   pairs of: saturation here, saturation there, fan-out here, fan-out there), each on a fresh server.
Targets (issue 4): saturation ≥ 60% of the echo floor; paced p99 move→ack ≤ 20 ms at 1,000 moves/s over 200
connections; ≤ 20 KB per idle connection at 5,000; (issue 10.2) race ≥ 90% of solo, race paced p99 ≤ 5 ms,
fan-out ≤ 6 us of server CPU a delivery; (issue 18.11, each a ratio of this run, min–max over the pairs) solo
moves/s ≥ 5× the peer's, p99 move→ack at saturation ≤ ⅓ of the peer's, server CPU a watcher delivery ≤ ¼ of
the peer's, a race move ≤ 1.25× a solo move's server CPU, a race seat's life ≤ 1.2 ms of server CPU, an idle
connection ≤ 14 KB. It also prints moves per second of server CPU against the peer's: the saturation ratio
once each server has a core of its own, whatever share a loaded machine gave them (not a target). Exits 1
when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import resource
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from importlib.metadata import version
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgpack
import psutil
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from bench_player import LinePlayer
from golfrace.engine import Game, GameCode, Rules, Status, Tap
from golfrace.engine.codes import SEED_SPACE
from golfrace.engine.rules import NO_VARIANTS
from golfrace.live.limits import GENEROUS
from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer, free_port, terminate
from golfrace_testkit.servers import start_process, stop_process
from peer_client import PeerPlayer, make_peer_game, open_many_peers, peer_fanout_worker, socket_url

WARMUP = 1.0  # seconds of the paced phase not measured (connections settle, caches fill)
PROTO = [Subprotocol("golfrace.msgpack")]
LIMITS: dict[str, Any] = {
    "rate": 100_000.0,
    "burst": 100_000,
    "flood_close_after": 10**9,
    "max_open_games": 64,
    # every benchmark client comes from 127.0.0.1: the per-network buckets and connection caps opened
    "max_connections_per_network": 10**6,
    "max_connections_per_player": 10**6,
    # a storage deadline for a shared, loaded machine: at 2 s (the default) 100 hellos at once on a machine at
    # load 20 were answered `unavailable`; the peer (bench/peer_socketio.py) has no deadline at all
    "request_timeout_s": 30.0,
    "hello_timeout": 60.0,  # the idle phase's batches of 250 handshakes took over the 10 s default at load 10
    **GENEROUS,
}
ECHO_APP = """
import os
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
step = None
if os.environ["BENCH_ECHO"] == "redis":  # one command per frame, as redis-py is usually used
    import redis.asyncio as aioredis
    client = aioredis.Redis.from_url(os.environ["BENCH_REDIS"], max_connections=1000)
    step = lambda: client.incr("bench:echo")
elif os.environ["BENCH_ECHO"] == "batched":  # the game server's own path to Redis (batcher.Batcher)
    from golfrace.store.batcher import Batcher, batch_client
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
        open_timeout=OPEN_TIMEOUT_S,
    )


OPEN_TIMEOUT_S = 60.0
"""A handshake's deadline on a shared, loaded machine (websockets' default 10 s failed at load 30)."""


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


def answer_head(t: str) -> bytes:
    """How a server message of type ``t`` starts after its map header: the server writes ``t`` first."""
    return b"\xa1t" + msgpack.packb(t)  # type: ignore[no-any-return]


ACK_HEAD = answer_head("ack")
FAILURES = (answer_head("error"), answer_head("refused"))


def passing(data: bytes | str, head: bytes) -> bool:
    """A frame that is neither the awaited answer (``head``) nor a failure, told from its first bytes
    without decoding it (the diffs and race broadcasts a move brings): the generators spend their CPU on
    the websocket, not on decoding what they skip. Solo and race phases alike."""
    if type(data) is not bytes or not 0x80 <= data[0] <= 0x8F:  # not a small msgpack map: decode it
        return False
    return not data.startswith(head, 1) and not any(data.startswith(f, 1) for f in FAILURES)


class Player(LinePlayer):
    """One connection of the load generator. ``round_trip`` is the one path both phases time: send a
    frame, read frames until the awaited one (echo: the first; game: the `ack`, after the `diff`)."""

    async def round_trip(self, frame: bytes, until: str | None) -> dict[str, Any] | None:
        await self.ws.send(frame)
        head = None if until is None else answer_head(until)
        while True:
            data = await self.ws.recv()
            if head is None:
                return None
            if passing(data, head):
                continue
            reply = msgpack.unpackb(data)
            t = reply["t"]
            if t == until:
                return reply  # type: ignore[no-any-return]
            if t in ("error", "refused"):
                raise RuntimeError(f"unexpected answer {reply}")

    async def until(self, t: str, where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        """Read frames until one of type ``t`` (that ``where`` accepts); others are skipped."""
        while True:
            reply = msgpack.unpackb(await self.ws.recv())
            if reply["t"] == t and (where is None or where(reply)):
                return reply  # type: ignore[no-any-return]
            if reply["t"] in ("error", "refused"):
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


class Racer(Player):
    """A player in races of 4 (``RACE_SEATS``): the host makes a race on the next precomputed line's code,
    the others join, the host starts (the bench server counts down 0 ms); each racer then plays the line on
    its seat, and once the 4 are done the group races again. A seat that is an ordinary game (``open`` of
    ``<race>-<seat>`` answers a snapshot) is played with ``act``; on a server whose seats live inside the
    race (``open`` answers ``no_game``) with ``race_act``, from the ``race_game``'s seq."""

    race = ""
    seat_game = ""
    seat_is_game = False

    def race_frame(self) -> bytes:
        self.seq += 1
        move = self.line[self.pos]
        if self.seat_is_game:
            return msgpack.packb({"t": "act", "game": self.seat_game, "seq": self.seq, **move})  # type: ignore[no-any-return]
        return msgpack.packb({"t": "race_act", "race": self.race, "seq": self.seq, **move})  # type: ignore[no-any-return]

    async def race_move(self) -> float:
        frame = self.race_frame()
        started = time.perf_counter()
        seq = self.seq
        await self.ws.send(frame)
        while True:  # like round_trip: only the answers are decoded
            data = await self.ws.recv()
            if passing(data, ACK_HEAD):
                continue
            reply = msgpack.unpackb(data)
            if reply["t"] == "ack" and reply.get("seq") == seq:
                break
            if reply["t"] in ("error", "refused"):
                raise RuntimeError(f"unexpected answer {reply}")
        self.pos += 1
        return time.perf_counter() - started

    async def resign(self) -> None:
        """``race_resign`` on this racer's seat; returns once the race has answered it (``ok``)."""
        self.seq += 1
        rid = f"q{self.seq}"
        await self.ws.send(msgpack.packb({"t": "race_resign", "race": self.race, "rid": rid}))
        await self.until("ok", lambda m: m.get("rid") == rid)

    async def leave_race(self) -> None:
        """What the web client sends once a race is over and its racer goes on (to the rematch, or to a new
        race): ``close`` of the seat's game and ``unwatch`` of the race; returns once both are answered
        (``ok``). Without them a connection would follow every race it ever ran (the server's cap,
        ``max_open_games``, then refuses the next race) and the bench would leave out two of a racer's
        requests."""
        frames = []
        if self.seat_is_game:
            frames.append({"t": "close", "game": self.seat_game})
        frames.append({"t": "unwatch", "race": self.race})
        rids = []
        for frame in frames:
            self.seq += 1
            rids.append(f"l{self.seq}")
            await self.ws.send(msgpack.packb({**frame, "rid": rids[-1]}))
        for rid in rids:
            await self.until("ok", lambda m, rid=rid: m.get("rid") == rid)

    async def take_seat(self, race: str) -> None:
        """After the start: this racer's seat, opened as an ordinary game where the server has them."""
        view = await self.until("race", lambda m: m.get("race") == race and m.get("phase") != "lobby")
        self.race, self.seat_game = race, view["you"]["game"]
        await self.ws.send(msgpack.packb({"t": "open", "game": self.seat_game, "role": "player"}))
        board = None
        while True:
            reply = msgpack.unpackb(await self.ws.recv())
            if reply["t"] == "snapshot" and reply.get("game") == self.seat_game:
                self.seat_is_game, self.seq = True, 0
                return
            if reply["t"] == "race_game" and reply.get("race") == race:
                board = reply
            if reply["t"] == "error" and reply.get("ref") == "open":  # no_game (or bad_field): not a game
                break
        self.seat_is_game = False
        if board is None:
            board = await self.until("race_game", lambda m: m.get("race") == race)
        self.seq = int(board["seq"])


async def new_race(group: list[Racer]) -> None:
    host = group[0]
    code, line = host.lines[host.next_line % len(host.lines)]
    host.next_line += 1
    rid = f"b{host.next_line}"
    await host.ws.send(msgpack.packb({"t": "race_new", "code": code, "seats": RACE_SEATS, "rid": rid}))
    race = (await host.until("race", lambda m: m.get("rid") == rid))["race"]
    for p in group[1:]:
        await p.ws.send(msgpack.packb({"t": "race_join", "race": race}))
        await p.until("race", lambda m: m.get("race") == race)
    await host.ws.send(msgpack.packb({"t": "race_start", "race": race}))
    await asyncio.gather(*(p.take_seat(race) for p in group))
    for p in group:
        p.line, p.pos = line, 0


RACE_SEATS = 4
RACE_ENV = {"GOLFRACE_RACE_COUNTDOWN_MS": "0", "GOLFRACE_RACE_SOLVER_BUDGET_S": "0"}
"""The race phases' server: no countdown (a group races again at once) and no par search at each race's
end (a background solver job, not the move path, that would take the CPU the phase measures)."""


async def fanout_worker(job: dict[str, Any], pipe: Connection) -> dict[str, Any]:
    """The fan-out phase: watchers of one game (half msgpack, half JSON), and in the first process its one
    mover, who alternates draw and undo (the game never ends) at ``fanout_rate`` moves/s."""
    url, game = job["url"], job["game"]
    watchers: list[ClientConnection] = []
    for i in range(job["watchers"]):
        codec = JSON_PROTO if (job["first_watcher"] + i) % 2 else PROTO
        ws = await connect(url, subprotocols=codec, compression=None, ping_interval=None, max_size=2**20)
        watchers.append(ws)
    for ws in watchers:
        await ws.send(_packed(ws, {"t": "hello"}))
        await ws.send(_packed(ws, {"t": "open", "game": game, "role": "watcher"}))
    for ws in watchers:  # each has its snapshot: from now on it only gets diffs
        while _unpacked(await ws.recv())["t"] != "snapshot":
            pass
    mover = None
    if job["mover"]:
        mover = await open_ws(url)
        await mover.send(msgpack.packb({"t": "hello", "token": job["token"]}))
        await mover.send(msgpack.packb({"t": "open", "game": game, "role": "player"}))
        while msgpack.unpackb(await mover.recv())["t"] != "snapshot":
            pass
    arrivals: list[list[tuple[int, float]]] = [[] for _ in watchers]

    async def watch(ws: ClientConnection, out: list[tuple[int, float]]) -> None:
        with contextlib.suppress(Exception):
            async for frame in ws:
                msg = _unpacked(frame)
                if msg.get("t") == "diff":
                    out.append((msg["v"], time.monotonic()))

    pipe.send("ready")
    start_at = pipe.recv()
    tasks = [asyncio.create_task(watch(ws, out)) for ws, out in zip(watchers, arrivals, strict=True)]
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    sent: dict[int, float] = {}
    deadline = time.monotonic() + job["seconds"]
    if mover is not None:
        seq, interval, next_at = 0, 1.0 / job["fanout_rate"], time.monotonic()
        while time.monotonic() < deadline:
            seq += 1
            sent_at = time.monotonic()
            await mover.send(
                msgpack.packb({"t": "act", "game": game, "seq": seq, "a": "undo" if seq % 2 == 0 else "draw"})
            )
            while True:
                reply = msgpack.unpackb(await mover.recv())
                if reply["t"] == "ack":
                    sent[reply["v"]] = sent_at
                    break
                if reply["t"] in ("error", "refused"):
                    raise RuntimeError(f"unexpected answer {reply}")
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    else:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    await asyncio.sleep(0.5)  # the last diffs reach the watchers
    for task in tasks:
        task.cancel()
    cpu = time.process_time()
    await until_told(pipe)
    await asyncio.gather(*(ws.close() for ws in watchers), return_exceptions=True)
    if mover is not None:
        await mover.close()
    return {
        "count": len(sent),
        "elapsed": job["seconds"],
        "lat": [],
        "sent": sent,
        "arrivals": arrivals,
        "cpu": cpu,
    }


FLOOR_APP = """
import asyncio, os, sys, uvloop
frame = b"\\x82" + bytes([len(sys.argv[2])]) + sys.argv[2].encode()
rate, seconds, conns = float(sys.argv[3]), float(sys.argv[4]), []
class Conn(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        conns.append(transport)
    def connection_lost(self, exc):
        conns.remove(self.transport)
    def data_received(self, data):
        asyncio.get_running_loop().create_task(broadcast())
async def broadcast():
    loop = asyncio.get_running_loop()
    next_at, end = loop.time(), loop.time() + seconds
    while loop.time() < end:
        for transport in conns:
            transport.write(frame)
        next_at += 1 / rate
        await asyncio.sleep(max(0.0, next_at - loop.time()))
async def main():
    await asyncio.get_running_loop().create_server(Conn, "127.0.0.1", int(sys.argv[1]))
    await asyncio.Future()
uvloop.run(main())
"""
"""The fan-out floor: a bare uvloop TCP server that, once told, writes the same websocket frame (a diff's
size) to every connection ``rate`` times a second — one ``transport.write`` per follower and nothing else."""


async def floor_worker(job: dict[str, Any], pipe: Connection) -> dict[str, Any]:
    """The fan-out floor's receivers: raw TCP connections counting the bytes they get."""
    host, port = "127.0.0.1", job["floor_port"]
    conns = [await asyncio.open_connection(host, port) for _ in range(job["watchers"])]
    got = [0] * len(conns)

    async def read(i: int, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                got[i] += len(data)

    pipe.send("ready")
    start_at = pipe.recv()
    tasks = [asyncio.create_task(read(i, r)) for i, (r, _w) in enumerate(conns)]
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    if job["mover"]:
        conns[0][1].write(b"go")
    await asyncio.sleep(job["seconds"] + 0.5)
    for task in tasks:
        task.cancel()
    cpu = time.process_time()
    await until_told(pipe)
    for _r, w in conns:
        w.close()
    return {"count": sum(got) // job["frame_len"], "elapsed": job["seconds"], "lat": [], "cpu": cpu}


def floor_run(args: argparse.Namespace, watchers: int) -> dict[str, Any]:
    port = free_port()
    payload = "d" * FLOOR_PAYLOAD
    argv = [str(port), payload, str(args.fanout_rate), str(args.fanout_seconds)]
    proc = subprocess.Popen([sys.executable, "-c", FLOOR_APP, *argv])
    try:
        _wait_port(port, proc)
        shares = split(watchers, args.procs)
        extra = [
            {
                "watchers": share,
                "mover": i == 0,
                "floor_port": port,
                "frame_len": FLOOR_PAYLOAD + 2,
                "seconds": args.fanout_seconds,
            }
            for i, share in enumerate(shares)
        ]
        out = run_load("", "floor", args, [proc.pid], [], extra)
    finally:
        terminate(proc)
    out["deliveries"] = out["count"]
    out["per_delivery_us"] = out["server_cpu"] / out["count"] * 1e6 if out["count"] else float("nan")
    return out


FLOOR_PAYLOAD = 120
"""Bytes of the floor's frame payload: about a diff's (msgpack ~110 bytes, JSON ~170)."""


JSON_PROTO = [Subprotocol("golfrace.json")]


def _packed(ws: ClientConnection, message: dict[str, Any]) -> bytes | str:
    if ws.subprotocol == "golfrace.json":
        return json.dumps(message)
    return msgpack.packb(message)  # type: ignore[no-any-return]


def _unpacked(frame: bytes | str) -> dict[str, Any]:
    return json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame)  # type: ignore[no-any-return]


ECHO_FRAME = msgpack.packb({"t": "act", "game": "abcdefghijkm", "seq": 12345, "a": "tap", "col": 3})


async def _worker(job: dict[str, Any], pipe: Connection) -> dict[str, Any]:
    """One load-generator process: its share of connections; waits for the common start time."""
    if job["mode"] == "fanout":
        return await fanout_worker(job, pipe)
    if job["mode"] == "peer_fanout":
        return await peer_fanout_worker(job, pipe, until_told)
    if job["mode"] == "floor":
        return await floor_worker(job, pipe)
    if job["mode"] in ("race", "race_paced", "race_life"):
        return await race_worker(job, pipe)
    mode, n = job["mode"], job["players"]
    lines = move_lines(job["seed"], 150) if mode != "echo" else []
    peer = mode == "peer_game"  # the same closed loop against the peer (bench/peer_socketio.py)
    conns = await (open_many_peers if peer else open_many)(job["url"], n)
    players = [(PeerPlayer if peer else Player)(ws, lines, i * 7) for i, ws in enumerate(conns)]
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

    async def closed_loop(p: Player | PeerPlayer) -> None:
        nonlocal count
        while time.perf_counter() < deadline:
            if mode == "game_life":  # a solo game's life without its moves: a new game, closed by the next
                await p.new_game()
                count += 1
                continue
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
    await until_told(pipe)
    await asyncio.gather(
        *(p.ws.close() for p in players), *(ws.close() for ws in wconns), return_exceptions=True
    )
    return {"count": count, "elapsed": elapsed, "lat": latencies, "delivery": delivery, "cpu": cpu}


async def race_worker(job: dict[str, Any], pipe: Connection) -> dict[str, Any]:
    """The race phases: this process's racers in groups of 4, each group racing again once its race is over;
    closed loop (``race``) or paced like the solo paced phase (``race_paced``)."""
    n, paced = job["players"], job["mode"] == "race_paced"
    lines = move_lines(job["seed"], 150)
    conns = await open_many(job["url"], n)
    racers = [Racer(ws, lines, 0) for ws in conns]
    for start in range(0, n, 100):
        await asyncio.gather(
            *(p.round_trip(msgpack.packb({"t": "hello"}), "welcome") for p in racers[start : start + 100])
        )
    groups = [racers[i : i + RACE_SEATS] for i in range(0, n, RACE_SEATS)]
    for i, group in enumerate(groups):
        group[0].next_line = i * 7
    pipe.send("ready")
    start_at = pipe.recv()
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    latencies: list[float] = []
    count = 0
    t0 = time.perf_counter()
    warm_until = t0 + (WARMUP if paced else 0.0)
    deadline = warm_until + job["seconds"]
    interval = job["total_players"] / job["rate"]

    async def play(p: Racer, index: int) -> None:
        nonlocal count
        next_at = time.perf_counter() + (interval * index / n if paced else 0.0)
        while p.pos < len(p.line) and time.perf_counter() < deadline:
            if paced:
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            now = time.perf_counter()
            took = await p.race_move()
            if now >= warm_until:
                latencies.append(took)
                count += 1
            next_at += interval * random.uniform(0.5, 1.5)

    async def group_loop(group: list[Racer], first: int) -> None:
        nonlocal count
        while time.perf_counter() < deadline:
            await new_race(group)
            if job["mode"] == "race_life":  # the race's life without its moves: its racers resign one
                for p in group:  # after the other, as seats end apart in a race (no write contention)
                    await p.resign()
                await asyncio.gather(*(p.leave_race() for p in group))
                count += 1
                continue
            await asyncio.gather(*(play(p, first + k) for k, p in enumerate(group)))
            await asyncio.gather(*(p.leave_race() for p in group))

    await asyncio.gather(*(group_loop(g, i * RACE_SEATS) for i, g in enumerate(groups)))
    elapsed = job["seconds"] if paced else time.perf_counter() - warm_until
    cpu = time.process_time()
    await until_told(pipe)
    await asyncio.gather(*(p.ws.close() for p in racers), return_exceptions=True)
    return {"count": count, "elapsed": elapsed, "lat": latencies, "delivery": [], "cpu": cpu}


async def until_told(pipe: Connection) -> None:
    """The timed part is over: tell the coordinator (which reads the servers' CPU time now), then wait for
    its word before closing the connections, so that closing them is not counted."""
    pipe.send("timed")
    await asyncio.get_running_loop().run_in_executor(None, pipe.recv)


def _worker_main(job: dict[str, Any], pipe: Connection) -> None:
    if job.get("uvloop"):
        import uvloop

        uvloop.install()
    try:
        pipe.send(asyncio.run(_worker(job, pipe)))
    except BaseException as exc:  # report instead of hanging the parent
        pipe.send({"error": repr(exc)})
        raise


def cpu_seconds(pids: list[int], system: bool = False) -> float:
    """CPU seconds (user + system; or only system) the processes have used so far."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            t = psutil.Process(pid).cpu_times()
            total += t.system if system else t.user + t.system
    return total


def run_load(
    url: str,
    mode: str,
    args: argparse.Namespace,
    server_pids: list[int],
    redis_pids: list[int] = (),  # type: ignore[assignment]
    extra: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run one phase in ``args.procs`` load-generator processes (or one per ``extra``); CPU of the server side
    measured around the timed window. ``extra``: more of each process's job (fan-out: its watchers, the
    mover)."""
    ctx = multiprocessing.get_context("fork")
    procs, pipes = [], []
    unit = RACE_SEATS if mode.startswith("race") else 1  # racers come in whole races
    units = args.players // unit
    shares = [(units // args.procs + (1 if i < units % args.procs else 0)) * unit for i in range(args.procs)]
    wshares = [
        args.watchers // args.procs + (1 if i < args.watchers % args.procs else 0) for i in range(args.procs)
    ]
    if extra and len(extra) > len(shares):  # processes of their own (the fan-out's mover)
        shares += [0] * (len(extra) - len(shares))
        wshares += [0] * (len(extra) - len(wshares))
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
            **(extra[i] if extra else {}),
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
        sys0 = cpu_seconds(server_pids, system=True)
        for pipe in pipes:
            if not pipe.poll(args.seconds * 4 + 60):
                raise RuntimeError("a load generator did not finish")
            msg = pipe.recv()
            if msg != "timed":
                raise RuntimeError(f"load generator failed: {msg}")
        cpu1, rcpu1 = cpu_seconds(server_pids), cpu_seconds(list(redis_pids))
        sys1 = cpu_seconds(server_pids, system=True)
        window = time.monotonic() - start_at
        results = []
        for pipe in pipes:
            pipe.send("close")
        for pipe in pipes:
            if not pipe.poll(60):
                raise RuntimeError("a load generator did not finish")
            results.append(pipe.recv())
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
        "results": results,
        "server_cpu": cpu1 - cpu0,
        "server_system": (sys1 - sys0) / (cpu1 - cpu0) if cpu1 > cpu0 else float("nan"),
        "rate": count / elapsed,
        "count": count,
        "lat": [x for r in results for x in r["lat"]],
        "delivery": [x for r in results for x in r.get("delivery", ())],
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
    _wait_port(port, proc)
    return proc


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("a benchmark server did not start")


PHASES = ("echo", "game", "paced", "race", "race_paced", "life", "fanout", "idle", "peer")


async def make_game(url: str) -> tuple[str, str]:
    """A new game for the fan-out phase: (its player's token, its id)."""
    ws = await open_ws(url)
    try:
        await ws.send(msgpack.packb({"t": "hello"}))
        token = (await Player(ws, [], 0).until("welcome"))["token"]
        await ws.send(msgpack.packb({"t": "new", "code": FANOUT_CODE}))
        game = (await Player(ws, [], 0).until("snapshot"))["game"]
    finally:
        await ws.close()
    return token, game


FANOUT_CODE = "GO1-E-AAAAAAB"


def split(n: int, parts: int) -> list[int]:
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)]


def fanout_run(
    base: Settings, args: argparse.Namespace, tmp: str, redis_pids: list[int], direct: bool, watchers: int
) -> dict[str, Any]:
    """One mover and ``watchers`` watchers of its game on a fresh server: server CPU per delivery."""
    server = start_process(
        base.with_(port=free_port(), direct_frames=direct), env=server_env(args), log=Path(tmp) / "server.log"
    )
    try:
        assert server.process is not None
        token, game = asyncio.run(make_game(server.ws))
        shares = [*split(watchers, args.procs), 0]  # the mover in a process of its own: not starved by
        extra = [  # the watchers' reading, so that it keeps its pace
            {
                "game": game,
                "token": token,
                "mover": i == len(shares) - 1,
                "watchers": share,
                "first_watcher": sum(shares[:i]),
                "fanout_rate": args.fanout_rate,
                "seconds": args.fanout_seconds,
            }
            for i, share in enumerate(shares)
        ]
        out = run_load(server.ws, "fanout", args, [server.process.pid], redis_pids, extra)
    finally:
        stop_process(server)
    return fanout_figures(out, watchers)


def fanout_figures(out: dict[str, Any], watchers: int) -> dict[str, Any]:
    """A fan-out run's deliveries and latencies (from the mover's send times and the watchers' arrivals) and
    the server's CPU a delivery and a move."""
    sent: dict[int, float] = out["results"][-1]["sent"]
    latencies = [t - sent[v] for r in out["results"] for got in r["arrivals"] for v, t in got if v in sent]
    moves = len(sent)
    out["moves"] = moves
    out["deliveries"] = len(latencies)
    out["expected"] = moves * watchers
    out["delivery"] = latencies
    out["per_delivery_us"] = out["server_cpu"] / len(latencies) * 1e6 if latencies else float("nan")
    out["per_move_us"] = out["server_cpu"] / moves * 1e6 if moves else float("nan")
    return out


PEER_APP = Path(__file__).with_name("peer_socketio.py")


@contextlib.contextmanager
def peer_server(redis: RedisServer) -> Iterator[tuple[str, int]]:
    """The peer (bench/peer_socketio.py) on a free port against its own redis-server: (its Socket.IO
    websocket URL, its pid)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(PEER_APP), "--port", str(port), "--redis", redis.url])
    try:
        _wait_port(port, proc)
        yield socket_url(f"ws://127.0.0.1:{port}"), proc.pid
    finally:
        terminate(proc)


def peer_saturation_run(args: argparse.Namespace, redis: RedisServer) -> dict[str, Any]:
    """The saturation phase's closed loop, the same moves, against the peer."""
    assert redis.process is not None
    with peer_server(redis) as (url, pid):
        return run_load(url, "peer_game", args, [pid], [redis.process.pid])


def peer_fanout_run(args: argparse.Namespace, redis: RedisServer, watchers: int) -> dict[str, Any]:
    """The fan-out phase against the peer: one mover alternating draw and undo, ``watchers`` in its room."""
    assert redis.process is not None
    with peer_server(redis) as (url, pid):
        player = "fanout-mover"
        game = asyncio.run(make_peer_game(url, player, FANOUT_CODE))
        shares = [*split(watchers, args.procs), 0]  # the mover in a process of its own, as in fanout_run
        extra = [
            {
                "game": game,
                "token": player,
                "mover": i == len(shares) - 1,
                "watchers": share,
                "fanout_rate": args.fanout_rate,
                "seconds": args.fanout_seconds,
            }
            for i, share in enumerate(shares)
        ]
        out = run_load(url, "peer_fanout", args, [pid], [redis.process.pid], extra)
    return fanout_figures(out, watchers)


def game_run(
    base: Settings, args: argparse.Namespace, tmp: str, mode: str, redis_pids: list[int]
) -> dict[str, Any]:
    """One phase of ``mode`` (game, paced, race, ...) on a fresh game server."""
    env = RACE_ENV if mode.startswith("race") else None
    server = start_process(
        base.with_(port=free_port()), env={**(env or {}), **server_env(args)}, log=Path(tmp) / "server.log"
    )
    try:
        assert server.process is not None
        return run_load(server.ws, mode, args, [server.process.pid], redis_pids)
    finally:
        stop_process(server)


def server_env(args: argparse.Namespace) -> dict[str, str]:
    """``--server-src``: the game servers import ``golfrace`` from that tree (the load generators do not)."""
    return {"PYTHONPATH": args.server_src} if args.server_src else {}


def _span(values: list[float], unit: str = "", digits: int = 2) -> str:
    low, high = min(values), max(values)
    if f"{low:.{digits}f}" == f"{high:.{digits}f}":
        return f"{low:.{digits}f}{unit}"
    return f"{low:.{digits}f}–{high:.{digits}f}{unit}"


def print_targets(report: dict[str, Any], args: argparse.Namespace) -> list[bool]:
    """Issue 18.11's targets, each from this run: against the peer, pair by pair (A B A B), and the race and
    idle figures of the phases that ran. Returns, for each target printed (not the bracketed ones), whether it
    was met."""
    pairs: list[dict[str, Any]] = report.get("peer", [])
    rows: list[tuple[str, list[float], str, str, bool]] = []
    ms = 1000
    if pairs:
        print(
            f"  against the peer: python-socketio {version('python-socketio')} + AsyncRedisManager "
            f"(bench/peer_socketio.py, its own redis-server), the same moves, {len(pairs)} pairs A B A B"
        )
        for i, pair in enumerate(pairs, 1):
            ours, peer, fan, pfan = pair["game"], pair["peer_game"], pair["fanout"], pair["peer_fanout"]
            print(
                f"    pair {i}: saturation {ours['rate']:,.0f} vs {peer['rate']:,.0f} moves/s, "
                f"ack p99 {pct(ours['lat'], 99) * ms:.1f} vs {pct(peer['lat'], 99) * ms:.1f} ms, "
                f"server CPU {ours['server_us']:.0f} vs {peer['server_us']:.0f} us a move "
                f"(busy {ours['server_load']:.0%} vs {peer['server_load']:.0%}; Redis {ours['redis_us']:.0f} "
                f"vs {peer['redis_us']:.0f} us); fan-out {fan['per_delivery_us']:.1f} vs "
                f"{pfan['per_delivery_us']:.1f} us a delivery ({fan['deliveries']} of {fan['expected']} vs "
                f"{pfan['deliveries']} of {pfan['expected']}; "
                f"watcher p99 {pct(fan['delivery'], 99) * ms:.1f} vs {pct(pfan['delivery'], 99) * ms:.1f} ms)"
            )
        moves = [p["game"]["rate"] / p["peer_game"]["rate"] for p in pairs]
        rows.append(("solo moves/s, ours / peer", moves, "×", "≥ 5×", min(moves) >= 5))
        p99 = [pct(p["game"]["lat"], 99) / pct(p["peer_game"]["lat"], 99) for p in pairs]
        rows.append(("p99 move→ack at saturation, ours / peer", p99, "", "≤ 0.33", max(p99) <= 1 / 3))
        cpu = [p["peer_game"]["server_us"] / p["game"]["server_us"] for p in pairs]
        # the moves/s each server makes per second of its own CPU: the saturation ratio once both servers
        # have a core each, whatever share of the cores a loaded machine gave them (their "busy")
        rows.append(("moves a second of server CPU, ours / peer", cpu, "×", "(≥ 5×)", min(cpu) >= 5))
        fan = [p["fanout"]["per_delivery_us"] / p["peer_fanout"]["per_delivery_us"] for p in pairs]
        rows.append(("server CPU a watcher delivery, ours / peer", fan, "", "≤ 0.25", max(fan) <= 0.25))
    solo = [r["server_us"] for r in ([report["game"]] if "game" in report else [p["game"] for p in pairs])]
    if "race" in report and solo:
        race = [report["race"]["server_us"] / s for s in solo]
        rows.append(("server CPU a race move / a solo move", race, "×", "≤ 1.25×", max(race) <= 1.25))
    if "race_life" in report:
        seat = [report["race_life"]["server_us"] / RACE_SEATS / ms]
        rows.append(("server CPU a race seat's life (ms)", seat, " ms", "≤ 1.2 ms", seat[0] <= 1.2))
    if "idle_kb_off" in report:
        idle = [report["idle_kb_off"]]
        rows.append(("memory an idle connection (KB)", idle, " KB", "≤ 14 KB", idle[0] <= 14))
    if not rows:
        return []
    print("  issue 18.11 targets (min–max over the pairs)")
    for name, values, unit, target, met in rows:
        verdict = ("met" if met else "missed") if target.startswith("(") else ("met" if met else "MISSED")
        print(f"    {name:<44} {_span(values, unit):>14}   {target:<9} {verdict}")
    return [met for _name, _values, _unit, target, met in rows if not target.startswith("(")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--watchers", type=int, default=20)
    parser.add_argument("--idle", type=int, default=5000)
    parser.add_argument("--procs", type=int, default=2, help="load-generator processes")
    parser.add_argument("--fanout-watchers", type=int, default=200)
    parser.add_argument("--fanout-rate", type=float, default=100.0, help="the fan-out mover's moves/s")
    parser.add_argument("--fanout-seconds", type=float, default=4.0)
    parser.add_argument(
        "--fanout-repeat", type=int, default=1, help="pairs of fan-out runs (framed once, framed per send)"
    )
    parser.add_argument(
        "--peer-pairs", type=int, default=2, help="peer phase: pairs of (this server, the peer) runs"
    )
    parser.add_argument(
        "--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)} (all)"
    )
    parser.add_argument(
        "--no-uvloop", action="store_true", help="load generators on the default asyncio loop"
    )
    parser.add_argument("--no-persist", action="store_true", help="embedded Redis without AOF/snapshots")
    parser.add_argument(
        "--server-src",
        help="run the game servers from this source folder (PYTHONPATH), e.g. an older commit's server/ "
        "from `git archive <commit> server | tar -x -C /tmp/old` (settings it lacks are ignored)",
    )
    args = parser.parse_args()
    phases = set(args.phases.split(","))
    if not phases <= set(PHASES):
        parser.error(f"--phases: unknown {', '.join(sorted(phases - set(PHASES)))}")
    fds = raise_fd_limit()
    report: dict[str, Any] = {}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="golfrace-bench-") as tmp:
        redis = RedisServer(Path(tmp) / "redis", persist=not args.no_persist).start()  # unix socket
        redis_pids = [redis.process.pid] if redis.process is not None else []
        base = Settings(host="127.0.0.1", redis_url=redis.url, secret=secrets.token_hex(32)).with_(**LIMITS)
        try:
            for kind in ECHO_KINDS if "echo" in phases else ():
                echo_port = free_port()
                echo = start_echo(echo_port, kind, redis.url)
                try:
                    pids = redis_pids if kind != "echo" else []
                    report[kind] = run_load(f"ws://127.0.0.1:{echo_port}/ws", "echo", args, [echo.pid], pids)
                finally:
                    terminate(echo)
            modes = [m for m in ("game", "paced", "race", "race_paced") if m in phases]
            modes += ["game_life", "race_life"] if "life" in phases else []
            for mode in modes:
                report[mode] = game_run(base, args, tmp, mode, redis_pids)
            if "peer" in phases:  # A B A B: this server, the peer, this server, the peer, ...
                peer_redis = RedisServer(Path(tmp) / "peer-redis", persist=not args.no_persist).start()
                try:
                    report["peer"] = [
                        {
                            "game": game_run(base, args, tmp, "game", redis_pids),
                            "peer_game": peer_saturation_run(args, peer_redis),
                            "fanout": fanout_run(base, args, tmp, redis_pids, True, args.fanout_watchers),
                            "peer_fanout": peer_fanout_run(args, peer_redis, args.fanout_watchers),
                        }
                        for _ in range(args.peer_pairs)
                    ]
                finally:
                    peer_redis.stop()
            if "fanout" in phases:
                report["fanout_none"] = fanout_run(base, args, tmp, redis_pids, True, 0)
                report["fanout"], report["fanout_off"] = [], []
                for _ in range(args.fanout_repeat):  # alternating, so both see the same conditions
                    report["fanout"].append(
                        fanout_run(base, args, tmp, redis_pids, True, args.fanout_watchers)
                    )
                    report["fanout_off"].append(
                        fanout_run(base, args, tmp, redis_pids, False, args.fanout_watchers)
                    )
                report["fanout_floor"] = floor_run(args, args.fanout_watchers)
            if args.idle and "idle" in phases:
                for compression in (False, True):
                    server = start_process(
                        base.with_(port=free_port(), compression=compression), env=server_env(args)
                    )
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
    met: list[bool] = []  # each target that the phases run measured: met or not
    print(
        f"golfrace server benchmark: {args.players} connections from {args.procs} load-generator processes, "
        f"{args.seconds:g} s per phase, fd limit {fds}, "
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs, "
        f"{time.monotonic() - began:.0f} s in all"
    )
    echo = report.get("echo")
    if echo is not None:
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
    sat = report.get("game")
    if sat is not None:
        ratio = f" = {sat['rate'] / echo['rate']:.0%} of the floor (target 60%)" if echo else ""
        print(
            f"  saturation           {sat['rate']:9.0f} moves/s{ratio}"
            f"   ack p50 {pct(sat['lat'], 50) * ms:.1f} ms, p99 {pct(sat['lat'], 99) * ms:.1f} ms\n"
            f"                       server CPU {sat['server_us']:.0f} us/move "
            f"(busy {sat['server_load']:.0%}), Redis "
            f"{sat['redis_us']:.0f} us/move, load generator {sat['client_us']:.0f} us/move"
        )
        if echo is not None:
            met.append(sat["rate"] / echo["rate"] >= 0.6)
    paced = report.get("paced")
    if paced is not None:
        print(
            f"  paced {args.rate:g}/s       {paced['rate']:9.0f} moves/s   move→ack p50 "
            f"{pct(paced['lat'], 50) * ms:.1f} ms, p99 {pct(paced['lat'], 99) * ms:.1f} ms (target ≤ 20 ms); "
            f"move→watcher p50 {pct(paced['delivery'], 50) * ms:.1f} ms, "
            f"p99 {pct(paced['delivery'], 99) * ms:.1f} ms "
            f"({len(paced['delivery'])} deliveries, {args.watchers} watchers); "
            f"server CPU {paced['server_us']:.0f} us/move"
        )
        met.append(pct(paced["lat"], 99) <= 0.020)
    race = report.get("race")
    if race is not None:
        ratio = f" = {race['rate'] / sat['rate']:.0%} of solo saturation (target 90%)" if sat else ""
        print(
            f"  race saturation      {race['rate']:9.0f} moves/s{ratio}   "
            f"ack p50 {pct(race['lat'], 50) * ms:.1f} ms, p99 {pct(race['lat'], 99) * ms:.1f} ms\n"
            f"                       server CPU {race['server_us']:.0f} us/move "
            f"(busy {race['server_load']:.0%}), Redis {race['redis_us']:.0f} us/move, "
            f"load generator {race['client_us']:.0f} us/move ({args.players // RACE_SEATS} races of 4)"
        )
        if sat is not None:
            met.append(race["rate"] >= 0.9 * sat["rate"])
    rpaced = report.get("race_paced")
    if rpaced is not None:
        print(
            f"  race paced {args.rate:g}/s  {rpaced['rate']:9.0f} moves/s   move→ack p50 "
            f"{pct(rpaced['lat'], 50) * ms:.1f} ms, p99 {pct(rpaced['lat'], 99) * ms:.1f} ms "
            f"(target ≤ 5 ms); server CPU {rpaced['server_us']:.0f} us/move"
        )
        met.append(pct(rpaced["lat"], 99) <= 0.005)
    glife, rlife = report.get("game_life"), report.get("race_life")
    if glife is not None and rlife is not None:
        per_game = glife["server_us"]  # a new game (and the close of the one before)
        per_seat = rlife["server_us"] / RACE_SEATS  # a race of 4, from made to left
        moves = sum(len(line) for seed in range(args.procs) for _, line in move_lines(1000 + seed, 150))
        moves /= 150 * args.procs  # the generator's moves a game, in both saturation phases
        print(
            f"  life without moves   solo game {per_game:.0f} us of server CPU "
            f"({glife['rate']:.0f} games/s); "
            f"race seat {per_seat:.0f} us ({rlife['rate'] * RACE_SEATS:.0f} seats/s: race made, joined, "
            f"started, seat opened, resigned, results, seat closed, race unwatched); {moves:.1f} moves a game"
        )
        seat_redis = rlife["redis_us"] / RACE_SEATS
        print(
            f"                       race seats: server busy {rlife['server_load']:.0%}, "
            f"{rlife['server_system']:.0%} of its CPU in the kernel; Redis {seat_redis:.0f} us a seat; "
            f"solo games: busy {glife['server_load']:.0%}, {glife['server_system']:.0%} in the kernel"
        )
        if sat is not None:
            extra = (per_seat - per_game) / moves
            solo_move = sat["server_us"] - per_game / moves
            print(
                f"                       the race's life adds {extra:.0f} us a move to a solo move's "
                f"{sat['server_us']:.0f} us: with seat moves as cheap as solo moves, the race phase could "
                f"reach {sat['server_us'] / (solo_move + per_seat / moves):.0%} of solo at most"
            )
    if "fanout" in report:
        on, off, none = report["fanout"], report["fanout_off"], report["fanout_none"]
        print(
            f"  fan-out: 1 mover at {args.fanout_rate:g} moves/s, {args.fanout_watchers} watchers "
            f"(half msgpack, half JSON), {args.fanout_seconds:g} s"
        )
        runs = [("framed once", r) for r in on] + [("framed per send", r) for r in off]
        for label, run in runs:
            net = (run["server_cpu"] - run["moves"] * none["per_move_us"] / 1e6) / max(1, run["deliveries"])
            print(
                f"    {label:<16} {run['deliveries']:7d} deliveries of {run['expected']} "
                f"({run['moves']} moves); server CPU {run['per_delivery_us']:.1f} us/delivery "
                f"(busy {run['server_load']:.0%}, {run['server_system']:.0%} of it in the kernel), "
                f"{net * 1e6:.1f} us without the mover's own moves; "
                f"move→watcher p50 {pct(run['delivery'], 50) * ms:.1f} ms, "
                f"p99 {pct(run['delivery'], 99) * ms:.1f} ms"
            )
        print(
            f"    no watchers      server CPU {none['per_move_us']:.0f} us/move ({none['moves']} moves)"
            f"   (target ≤ 6 us/delivery framed once)"
        )
        floor = report["fanout_floor"]
        print(
            f"    floor            {floor['deliveries']:7d} writes; "
            f"{floor['per_delivery_us']:.1f} us of CPU a write ({floor['server_system']:.0%} in the kernel): "
            "a bare uvloop server writing one "
            f"{FLOOR_PAYLOAD + 2}-byte frame to each of the same number of sockets at the same rate"
        )
        met.append(all(r["per_delivery_us"] <= 6 for r in on))
    if "idle_kb_off" in report:
        print(
            f"  idle memory          {report['idle_kb_off']:.1f} KB/connection without compression, "
            f"{report['idle_kb_on']:.1f} KB with permessage-deflate ({args.idle} connections; target ≤ 20 KB)"
        )
        met.append(report["idle_kb_off"] <= 20)
    met += print_targets(report, args)
    if not met:
        print("  no target is measured by these phases")
    else:
        print("  targets met" if all(met) else "  TARGET MISSED")
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
