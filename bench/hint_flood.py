"""A hint flood from one network against a bystander (issue 19.4): the bystander's move and sign-in latency
while idle, then while --flooders connections from the same address ask hints as fast as the server lets
them (a new hint the moment the last one is answered or refused), each its own guest identity.

    .venv/bin/python bench/hint_flood.py [--flooders 40] [--seconds 10] [--moves 60] [--signins 6]

It runs ``golfrace serve`` as a subprocess on a Redis of its own with the shipped settings, except the
network's ``identity`` bucket (the flood's 40 guests); ``--wide`` opens its ``hint`` bucket too, so that
only the hint queue and its CPU share stand between the flood and the bystander (as with a flood from many
addresses). The flood runs in a process of its own. Prints the p50 (and p90) of a
bystander's move (``act`` → ``ack``) and of a password sign-in (HTTP, argon2id with the shipped parameters),
idle and under the flood, their ratios, and how the flood's hints were answered. Target: both ratios ≤ 2.
Exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import secrets
import statistics
import sys
import tempfile
import time
from collections import Counter
from typing import Any

import httpx

from golfrace.settings import Settings
from golfrace.store.embedded import start_test_server
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, start_process, stop_process

T = 30.0
CODE = "GO1-E-AAAAAAB"
PASSWORD = "a long and rare phrase"


async def moves(client: Client, game: str, n: int) -> list[float]:
    """``n`` moves of the bystander, one every 25 ms: a draw then its undo, again and again (casual play)."""
    out = []
    for i in range(n):
        started = time.perf_counter()
        answer = await client.act(game, "draw" if i % 2 == 0 else "undo", timeout=T)
        out.append((time.perf_counter() - started) * 1000)
        assert answer["t"] == "ack", answer
        await asyncio.sleep(0.025)
    return out


async def signins(http: httpx.AsyncClient, username: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        r = await http.post("/api/account/signin", json={"username": username, "password": PASSWORD})
        out.append((time.perf_counter() - started) * 1000)
        assert r.status_code == 200, r.text
        await asyncio.sleep(0.05)
    return out


async def flooder(ws: str, stop: asyncio.Event, answers: Counter[str]) -> None:
    client = await Client(ws, name="Flood").start(T)
    try:
        game = (await client.new()).game
        while not stop.is_set():
            await client.send({"t": "hint", "game": game})
            m = await client.expect(
                None,
                T,
                where=lambda m: (m.get("t") == "hint" and m.get("game") == game) or m.get("ref") == "hint",
            )
            answers[m["t"] if m["t"] == "hint" else m["code"]] += 1
            if m.get("code") == "rate_limited":
                await asyncio.sleep(m["params"]["retry_ms"] / 1000)
    finally:
        await client.close()


def flood_process(ws: str, n: int, stop: Any, out: Any) -> None:
    """The flood, in a process of its own (its event loop is not the bystander's): ``n`` flooders until
    ``stop`` (a multiprocessing Event) is set; sends the answer counts back through ``out``."""

    async def run() -> Counter[str]:
        done, answers = asyncio.Event(), Counter[str]()
        tasks = [asyncio.create_task(flooder(ws, done, answers)) for _ in range(n)]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        done.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), T)
        return answers

    out.send(dict(asyncio.run(run())))
    out.close()


def p(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]
    )


async def measure(server: RunningServer, bystander: Client, game: str, http: httpx.AsyncClient,
                  username: str, args: argparse.Namespace) -> tuple[list[float], list[float]]:  # fmt: skip
    return await moves(bystander, game, args.moves), await signins(http, username, args.signins)


async def main(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="golfrace-bench-") as tmp:
        redis = start_test_server(tmp)
        wide: dict[str, Any] = {"limit_identity_burst": 1_000_000, "limit_identity_per_hour": 1e9}
        if args.wide:
            wide |= {"limit_hint_burst": 1_000_000, "limit_hint_per_hour": 1e9}
        server = start_process(Settings(port=0, redis_url=redis.url, secret=secrets.token_hex(32), **wide))
        try:
            async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
                username = "Bench" + str(int(time.time()))[-6:]
                r = await http.post("/api/account/signup", json={"username": username, "password": PASSWORD})
                assert r.status_code == 201, r.text
                http.cookies.clear()
                bystander = await Client(server.ws, name="Bystander").start(T)
                game = (await bystander.new(CODE)).game
                await moves(bystander, game, 10)  # warm up
                idle_moves, idle_signins = await measure(server, bystander, game, http, username, args)

                context = multiprocessing.get_context("spawn")
                receive, send = context.Pipe(duplex=False)
                stop = context.Event()
                flood = context.Process(target=flood_process, args=(server.ws, args.flooders, stop, send))
                flood.start()
                await asyncio.sleep(3.0)  # the flood runs, the hint workers are busy
                started = time.monotonic()
                flood_moves, flood_signins = await measure(server, bystander, game, http, username, args)
                while time.monotonic() - started < args.seconds:
                    more_moves, more_signins = await measure(server, bystander, game, http, username, args)
                    flood_moves += more_moves
                    flood_signins += more_signins
                stop.set()
                answers = receive.recv() if receive.poll(T) else {}
                flood.join(T)
                await bystander.close()
        finally:
            stop_process(server)
            redis.stop()
    move_ratio = statistics.median(flood_moves) / statistics.median(idle_moves)
    signin_ratio = statistics.median(flood_signins) / statistics.median(idle_signins)
    print(f"flood: {args.flooders} connections of one address asking hints; answers {answers}")
    for name, idle, busy in (("move", idle_moves, flood_moves), ("sign-in", idle_signins, flood_signins)):
        print(
            f"{name:8} idle p50 {statistics.median(idle):7.1f} ms p90 {p(idle, 90):7.1f} ms | flood p50 "
            f"{statistics.median(busy):7.1f} ms p90 {p(busy, 90):7.1f} ms ({len(busy)} samples)"
        )
    print(f"ratio flood/idle p50: move {move_ratio:.2f}x, sign-in {signin_ratio:.2f}x (target <= 2x)")
    return 0 if move_ratio <= 2 and signin_ratio <= 2 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flooders", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--signins", type=int, default=6)
    parser.add_argument(
        "--wide", action="store_true", help="open the network's hint bucket too: only the queue stands"
    )
    sys.exit(asyncio.run(main(parser.parse_args())))
