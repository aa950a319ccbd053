"""Cluster report: the deployment of `docker compose --profile cluster` on loopback (a Redis Cluster from
Debian's redis-server >= 7, `golfrace serve` instances, HAProxy with deploy/haproxy.cfg), loaded through
HAProxy, in one run:

    .venv/bin/python bench/cluster.py [--players 120] [--seconds 5] [--rate 600] [--watchers 2]

1. "1/1": one instance on a cluster of one master (and its replica); "3/3": three instances on three
   masters (three replicas). Per setup: saturation (every player in a closed loop: act, await the ack) →
   moves/s and move→ack p50/p99; the same with --watchers watcher connections per game (each on whichever
   instance HAProxy picks) → the CPU one watcher frame costs; paced (--rate moves/s in total) → p99 at a
   load every setup carries. The players alternate a move and its undo, so no game ends and the watchers
   stay on theirs.
2. CPU per move of each component from each process's own CPU time (psutil, around the timed window):
   instances, masters, replicas, HAProxy, load generators. The machine has 2 cores that all of them share,
   so moves/s says little about a real deployment; CPU per move does, and from it the capacity plan for
   100,000 players making a move every 2 s with 10 watchers per race is computed (printed; the numbers of
   one run are in docs/architecture.md, "Redis Cluster").
3. Bytes on the cluster bus: during the 3/3 saturation phase (sharded pub/sub: SPUBLISH inside the commit
   script), and the same payload published with SPUBLISH and with classic PUBLISH on the 3-master cluster,
   from the nodes' TCP counters (ss: bytes sent on every cluster-bus connection, an idle window's gossip
   subtracted) and CLUSTER INFO's message counters.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import multiprocessing
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgpack

from golfrace.engine import Game, GameCode
from golfrace.live.limits import GENEROUS
from golfrace.settings import Settings
from golfrace.store.connection import cluster_client
from golfrace.wire.protocol import pack
from golfrace.wire.views import diff
from golfrace_testkit.balancer import Balancer
from golfrace_testkit.cluster import LocalCluster, command, info_fields
from golfrace_testkit.servers import start_process, stop_process
from server import LIMITS, Player, cpu_seconds, move_lines, open_many, pct, raise_fd_limit

PLAYERS_TARGET = 100_000
MOVE_EVERY_S = 2.0
WATCHERS_PER_RACE = 10
RACERS_PER_RACE = 4  # assumed: each move also reaches the race's 3 other racers (their progress line)
BUSY = 0.7  # plan each process (one core) for 70 % busy: headroom for bursts and a failover's catch-up
IDLE_KB = 13.6  # per idle websocket (bench/server.py's idle phase, docs/architecture.md)


# --- the load ------------------------------------------------------------------------------------------
def endless_lines(seed: int, games: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """Per game: its first move and the undo, over and over (the game never ends; every act is a commit)."""
    return [(code, [line[0], {"a": "undo"}] * 5000) for code, line in move_lines(seed, games)]


async def _worker(job: dict[str, Any], pipe: Connection) -> dict[str, Any]:
    lines = endless_lines(job["seed"], 40)  # before any connection: a connection has 10 s to say hello
    conns = await open_many(job["url"], job["players"])
    players = [Player(ws, lines, i) for i, ws in enumerate(conns)]
    for start in range(0, len(players), 50):
        await asyncio.gather(*(p.start() for p in players[start : start + 50]))
    watchers = await open_many(job["url"], job["players"] * job["watchers"])
    frames = 0
    for i, ws in enumerate(watchers):
        await ws.send(msgpack.packb({"t": "hello"}))
        await ws.send(msgpack.packb({"t": "open", "game": players[i % len(players)].game, "role": "watcher"}))

    async def watch(ws: Any) -> None:
        nonlocal frames
        with contextlib.suppress(Exception):
            async for frame in ws:
                if msgpack.unpackb(frame).get("t") == "diff":
                    frames += 1

    tasks = [asyncio.create_task(watch(ws)) for ws in watchers]
    await asyncio.sleep(0.5)  # the watchers' snapshots are in
    pipe.send("ready")
    start_at = pipe.recv()
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    frames = 0
    cpu0 = time.process_time()
    deadline = time.perf_counter() + job["seconds"]
    latencies: list[float] = []

    async def closed(p: Player) -> None:
        while time.perf_counter() < deadline:
            latencies.append(await p.move())

    async def paced(p: Player, index: int) -> None:
        interval = job["total_players"] / job["rate"]
        await asyncio.sleep(interval * index / len(players))
        next_at = time.perf_counter()
        while time.perf_counter() < deadline:
            latencies.append(await p.move())
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))

    if job["rate"]:
        await asyncio.gather(*(paced(p, i) for i, p in enumerate(players)))
    else:
        await asyncio.gather(*(closed(p) for p in players))
    await asyncio.sleep(0.2)  # the last diffs reach the watchers
    cpu = time.process_time() - cpu0
    got = frames
    for task in tasks:
        task.cancel()
    await asyncio.gather(
        *(p.ws.close() for p in players), *(ws.close() for ws in watchers), return_exceptions=True
    )
    return {"count": len(latencies), "lat": latencies, "frames": got, "cpu": cpu}


def _worker_main(job: dict[str, Any], pipe: Connection) -> None:
    import uvloop

    uvloop.install()
    try:
        pipe.send(asyncio.run(_worker(job, pipe)))
    except BaseException as exc:
        pipe.send({"error": repr(exc)})
        raise


class Deployment:
    def __init__(self, tmp: Path, masters: int, instances: int) -> None:
        self.tmp = tmp
        self.cluster = LocalCluster(tmp / "redis", masters=masters, replicas=1).start()
        settings = Settings(
            host="127.0.0.1", redis_url=self.cluster.url, secret=secrets.token_hex(32), trusted_proxies=1
        )
        settings = settings.with_(**LIMITS, **GENEROUS)  # every load connection comes from 127.0.0.1
        self.servers = []
        try:
            for n in range(instances):
                self.servers.append(start_process(settings.with_(port=0), log=tmp / f"server{n}.log"))
            self.balancer = Balancer(tmp / "haproxy", [s.settings.port for s in self.servers]).start()
        except BaseException:
            self.stop()
            raise

    def pids(self) -> dict[str, list[int]]:
        roles = self.cluster.roles()
        nodes = {n.port: n.process.pid for n in self.cluster.live() if n.process is not None}
        assert self.balancer.process is not None
        return {
            "instances": [s.process.pid for s in self.servers if s.process is not None],
            "masters": [pid for port, pid in nodes.items() if roles.get(port) == "master"],
            "replicas": [pid for port, pid in nodes.items() if roles.get(port) == "slave"],
            "haproxy": [self.balancer.process.pid],
        }

    def stop(self) -> None:
        if getattr(self, "balancer", None) is not None:
            self.balancer.stop()
        for server in self.servers:
            stop_process(server)
        self.cluster.stop()


def run_phase(dep: Deployment, args: argparse.Namespace, watchers: int, rate: float) -> dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    procs, pipes = [], []
    for i in range(args.procs):
        job = {
            "url": dep.balancer.ws,
            "players": args.players // args.procs,
            "total_players": args.players // args.procs * args.procs,
            "watchers": watchers,
            "seconds": args.seconds,
            "rate": rate,
            "seed": 2000 + i,
        }
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_worker_main, args=(job, theirs), daemon=True)
        proc.start()
        procs.append(proc)
        pipes.append(mine)
    try:
        for pipe in pipes:
            msg = pipe.recv() if pipe.poll(120) else "no answer within 120 s"
            if msg != "ready":
                raise RuntimeError(f"a load generator failed: {msg}")
        pids = dep.pids()
        start_at = time.monotonic() + 0.3
        for pipe in pipes:
            pipe.send(start_at)
        time.sleep(max(0.0, start_at - time.monotonic()))
        bus0, repl0 = bus_bytes(dep.cluster), repl_bytes(dep.cluster)
        cpu0 = {k: cpu_seconds(v) for k, v in pids.items()}
        results = []
        for pipe in pipes:
            if not pipe.poll(args.seconds * 4 + 60):
                raise RuntimeError("a load generator did not finish")
            results.append(pipe.recv())
        window = time.monotonic() - start_at
        cpu1 = {k: cpu_seconds(v) for k, v in pids.items()}
        bus1, repl1 = bus_bytes(dep.cluster), repl_bytes(dep.cluster)
    finally:
        for proc in procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
    for r in results:
        if "error" in r:
            raise RuntimeError(f"load generator failed: {r['error']}")
    count = sum(r["count"] for r in results)
    us = {k: (cpu1[k] - cpu0[k]) / count * 1e6 for k in pids}
    us["load generators"] = sum(r["cpu"] for r in results) / count * 1e6
    return {
        "rate": count / args.seconds,
        "count": count,
        "lat": [x for r in results for x in r["lat"]],
        "frames": sum(r["frames"] for r in results),
        "us": us,
        "window": window,
        "bus": bus1 - bus0,
        "repl": repl1 - repl0,
    }


# --- the cluster bus -----------------------------------------------------------------------------------
def bus_bytes(cluster: LocalCluster) -> int:
    """Bytes sent so far on every TCP connection of the cluster bus (each byte counted once: on the socket
    that sent it; both ends are on this machine)."""
    ports = {n.bus_port for n in cluster.nodes}
    out = subprocess.run(["ss", "-tinH", "state", "established"], capture_output=True, text=True).stdout
    total = 0
    for head, info in zip(out.splitlines()[::2], out.splitlines()[1::2], strict=False):
        addrs = re.findall(r":(\d+)\s", head + " ")
        if addrs and {int(a) for a in addrs} & ports:
            sent = re.search(r"bytes_sent:(\d+)", info)
            total += int(sent[1]) if sent else 0
    return total


def repl_bytes(cluster: LocalCluster) -> int:
    total = 0
    for node in cluster.live():
        with contextlib.suppress(OSError):
            total += int(
                info_fields(command(node.port, "INFO", "stats")).get("total_net_repl_output_bytes", 0)
            )
    return total


def bus_messages(cluster: LocalCluster) -> dict[str, int]:
    out: dict[str, int] = {}
    for node in cluster.live():
        for key, value in info_fields(command(node.port, "CLUSTER", "INFO")).items():
            if key.startswith("cluster_stats_messages_publish") and key.endswith("_sent"):
                out[key] = out.get(key, 0) + int(value)
    return out


def idle_bus_rate(cluster: LocalCluster, seconds: float = 2.0) -> float:
    """Bytes/s of gossip (pings and pongs) on an idle cluster bus."""
    before = bus_bytes(cluster)
    time.sleep(seconds)
    return (bus_bytes(cluster) - before) / seconds


def a_diff() -> tuple[str, bytes]:
    """A real move's channel and published payload (the origin prefix and the packed diff)."""
    code = GameCode.parse("GO1-E-AAAAAAB")
    game = Game.new(code)
    action = game.legal_actions()[0]
    after = game.apply(action)
    return "game:{abcdefghijkm}", b"\x00" + os.urandom(8) + pack(
        diff("abcdefghijkm", 0, game, after, action, False)
    )


async def publish_many(url: str, command_name: str, n: int) -> None:
    redis = cluster_client(url, 8)
    channel, payload = a_diff()
    try:
        await redis.initialize()
        node = redis.get_node_from_key(channel)
        for start in range(0, n, 200):
            await asyncio.gather(
                *(
                    redis.execute_command(command_name, channel, payload, target_nodes=node)
                    for _ in range(min(200, n - start))
                )
            )
    finally:
        await redis.aclose()


def bus_per_message(
    cluster: LocalCluster, command_name: str, n: int, idle: float
) -> tuple[float, dict[str, int]]:
    before, msgs0, t0 = bus_bytes(cluster), bus_messages(cluster), time.monotonic()
    asyncio.run(publish_many(cluster.url, command_name, n))
    elapsed = time.monotonic() - t0
    after, msgs1 = bus_bytes(cluster), bus_messages(cluster)
    return (after - before - idle * elapsed) / n, {k: msgs1[k] - msgs0.get(k, 0) for k in msgs1}


# --- the report ----------------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=120)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rate", type=float, default=600.0, help="moves/s of the paced phase")
    parser.add_argument("--watchers", type=int, default=2, help="watchers per game in the watched phase")
    parser.add_argument("--procs", type=int, default=2, help="load-generator processes")
    parser.add_argument("--messages", type=int, default=4000, help="messages of the bus comparison")
    args = parser.parse_args()
    raise_fd_limit()
    report: dict[str, dict[str, Any]] = {}
    bus: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="golfrace-cluster-") as tmp:
        for name, masters, instances in (("1/1", 1, 1), ("3/3", 3, 3)):
            dep = Deployment(Path(tmp) / name.replace("/", "-"), masters, instances)
            try:
                idle = idle_bus_rate(dep.cluster) if masters == 3 else 0.0
                report[name] = {
                    "saturation": run_phase(dep, args, 0, 0.0),
                    "watched": run_phase(dep, args, args.watchers, 0.0),
                    "paced": run_phase(dep, args, 0, args.rate),
                }
                if masters == 3:
                    sat = report[name]["saturation"]
                    bus["moves"] = (sat["bus"] - idle * sat["window"]) / sat["count"]
                    bus["repl"] = sat["repl"] / sat["count"]
                    bus["idle"] = idle
                    for command_name in ("SPUBLISH", "PUBLISH"):
                        bus[command_name] = bus_per_message(dep.cluster, command_name, args.messages, idle)
            except BaseException:
                for log in sorted(Path(tmp).rglob("*.log")):
                    tail = log.read_text(errors="replace")[-1500:]
                    if "Error" in tail or "WARNING" in tail or "ERROR" in tail:
                        print(f"--- {log}\n{tail}", file=sys.stderr)
                raise
            finally:
                dep.stop()
    print_report(args, report, bus)
    return 0


def print_report(args: argparse.Namespace, report: dict[str, dict[str, Any]], bus: dict[str, Any]) -> None:
    ms = 1000
    print(
        f"golfrace cluster benchmark through HAProxy: {args.players} players from {args.procs} load-generator"
        f" processes, {args.seconds:g} s per phase, load average {os.getloadavg()[0]:.1f} on"
        f" {os.cpu_count()} CPUs"
    )
    for name, phases in report.items():
        sat, watched, paced = phases["saturation"], phases["watched"], phases["paced"]
        print(
            f"  {name} (instances/masters)  saturation {sat['rate']:7.0f} moves/s, ack p50"
            f" {pct(sat['lat'], 50) * ms:.1f} ms p99 {pct(sat['lat'], 99) * ms:.1f} ms;"
            f" paced {paced['rate']:.0f} moves/s: ack p50 {pct(paced['lat'], 50) * ms:.1f} ms"
            f" p99 {pct(paced['lat'], 99) * ms:.1f} ms"
        )
        print(
            "      CPU per move at saturation: " + ", ".join(f"{k} {v:.0f} us" for k, v in sat["us"].items())
        )
        per_frame = watcher_frame_us(sat, watched)
        print(
            f"      with {args.watchers} watchers a game: {watched['rate']:.0f} moves/s,"
            f" {watched['frames'] / watched['count']:.2f} watcher frames a move; one watcher frame costs "
            + ", ".join(f"{k} {v:.1f} us" for k, v in per_frame.items())
        )
    print(
        f"  cluster bus (3 masters, 3 replicas): {bus['moves']:.0f} bytes a move during the 3/3 saturation"
        f" (sharded pub/sub; idle gossip {bus['idle'] / 1000:.1f} KB/s subtracted); replication"
        f" {bus['repl']:.0f} bytes a move (master to replica, not the bus)"
    )
    for command_name in ("SPUBLISH", "PUBLISH"):
        per, msgs = bus[command_name]
        print(f"      {command_name:8} one diff: {per:6.0f} bus bytes; bus messages {msgs}")
    print_plan(report["3/3"])


def watcher_frame_us(sat: dict[str, Any], watched: dict[str, Any]) -> dict[str, float]:
    frames = watched["frames"] / watched["count"]
    if frames <= 0:
        return {k: float("nan") for k in sat["us"]}
    return {k: max(0.0, watched["us"][k] - sat["us"][k]) / frames for k in sat["us"]}


def print_plan(phases: dict[str, Any]) -> None:
    sat, watched = phases["saturation"], phases["watched"]
    per_frame = watcher_frame_us(sat, watched)
    moves = PLAYERS_TARGET / MOVE_EVERY_S
    fanout = WATCHERS_PER_RACE + RACERS_PER_RACE - 1
    races = PLAYERS_TARGET / RACERS_PER_RACE
    connections = PLAYERS_TARGET + races * WATCHERS_PER_RACE

    def cores(component: str) -> float:
        return moves * (sat["us"][component] + fanout * per_frame[component]) / 1e6

    instances = cores("instances") / BUSY
    spread = cores("masters")  # every frame's connection on another instance: a delivery per frame
    together = moves * (sat["us"]["masters"] + per_frame["masters"]) / 1e6  # a race on one instance
    print(
        f"  plan: {PLAYERS_TARGET:,} players, a move every {MOVE_EVERY_S:g} s = {moves:,.0f} moves/s;"
        f" races of {RACERS_PER_RACE} with {WATCHERS_PER_RACE} watchers = {fanout} frames a move,"
        f" {connections:,.0f} websockets"
    )
    print(
        f"      instances: {cores('instances'):.1f} cores of server work → {math.ceil(instances)} instances"
        f" at {BUSY:.0%} busy (one core each; {connections / math.ceil(instances):,.0f} websockets,"
        f" {connections / math.ceil(instances) * IDLE_KB / 1024:,.0f} MB each)"
    )
    print(
        f"      masters: {spread:.1f} cores of Redis work → {math.ceil(spread / BUSY)} masters at {BUSY:.0%}"
        f" when a move's {fanout} followers sit on {fanout} other instances (a delivery each);"
        f" {together:.1f} cores → {math.ceil(together / BUSY)} masters when a race's connections share"
        f" one instance; as many replicas ({moves * sat['us']['replicas'] / 1e6:.1f} cores);"
        f" HAProxy {cores('haproxy'):.1f} cores"
    )


if __name__ == "__main__":
    sys.exit(main())
