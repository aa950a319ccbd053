"""Redis memory under a flood from one address (issues 19.4, 19.5): --connections websockets of one guest,
each opening a new seq space (a fresh ``sid``), sending 64 moves the rules refuse on one game as fast as the
server lets them (each refusal is an answer the game keeps for its seq space), then reconnecting with a new
one, for --seconds.

    .venv/bin/python bench/memory_flood.py [--connections 40] [--seconds 20]

``golfrace serve`` runs as a subprocess with the shipped settings on a Redis of its own. Prints Redis's
``used_memory`` before and after, the growth per minute, the answers the flood got, and the game's ``:seq``
hash (fields, bytes). Without bounds (issue 19) such a flood grew Redis by 20 MB/min.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import tempfile
import time
from collections import Counter

import redis.asyncio as aioredis

from golfrace.settings import Settings
from golfrace.store.embedded import start_test_server
from golfrace.store.keys import game_key
from golfrace_client.client import Client
from golfrace_testkit.servers import start_process, stop_process

T = 30.0
CODE = "GO1-E-AAAAAAB"
SPACE = 64
"""Refused moves per seq space: as many answers as a game keeps for one (``seq_window``)."""


async def tapper(ws: str, token: str, game: str, until: float, answers: Counter[str]) -> None:
    """Connect with a fresh seq space, send ``SPACE`` refused moves on ``game``, again, until ``until``."""
    while time.monotonic() < until:
        client = Client(ws, token=token)
        try:
            await client.connect(T)
            await client.send({"t": "hello", "token": token, "lang": "en"})
            hello = await client.expect(None, T, where=lambda m: m["t"] in ("welcome", "error"))
            if hello["t"] == "error":
                answers[f"hello {hello['code']}"] += 1
                await asyncio.sleep(hello.get("params", {}).get("retry_ms", 1000) / 1000)
                continue
            await client.open(game, "player", T)
            for _ in range(SPACE):
                answer = await client.act(game, "undo", timeout=T)  # nothing to undo: refused, and kept
                answers[answer.get("code") or answer["t"]] += 1
                if answer.get("code") == "rate_limited":
                    await asyncio.sleep(answer["params"]["retry_ms"] / 1000)
        except Exception as exc:
            answers[f"ended: {type(exc).__name__}"] += 1
        finally:
            await client.close()


async def main(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="golfrace-bench-") as tmp:
        redis_server = start_test_server(tmp)
        server = start_process(Settings(port=0, redis_url=redis_server.url, secret=secrets.token_hex(32)))
        redis = aioredis.Redis.from_url(redis_server.url)
        try:
            owner = await Client(server.ws).start(T)
            game = (await owner.new(CODE)).game
            start_info = await redis.info("memory")
            before = int(start_info["used_memory"])
            dataset_before = int(start_info.get("used_memory_dataset", 0))
            answers: Counter[str] = Counter()
            started = time.monotonic()
            until = started + args.seconds
            await asyncio.gather(
                *(tapper(server.ws, str(owner.token), game, until, answers) for _ in range(args.connections))
            )
            minutes = (time.monotonic() - started) / 60
            after = int((await redis.info("memory"))["used_memory"])
            seq = game_key(game) + ":seq"
            fields = await redis.hlen(seq)
            size = await redis.memory_usage(seq) or 0
            info = await redis.info("memory")
            dataset = int(info.get("used_memory_dataset", 0))
            keys = await redis.dbsize()
            await owner.close()
        finally:
            await redis.aclose()
            stop_process(server)
            redis_server.stop()
    growth = (after - before) / minutes / 1e6
    print(f"flood: {args.connections} connections of one guest, {args.seconds:.0f} s")
    print(f"answers: {dict(answers)}")
    print(f"redis used_memory {before / 1e6:.2f} MB -> {after / 1e6:.2f} MB: {growth:+.2f} MB/min")
    print(
        f"dataset (the keys) {dataset_before / 1e6:.2f} MB -> {dataset / 1e6:.2f} MB in {keys} keys;"
        f" the game's :seq hash {fields} fields, {size / 1e3:.1f} KB"
    )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=20.0)
    sys.exit(asyncio.run(main(parser.parse_args())))
