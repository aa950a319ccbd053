"""Pairing of the quick-race pool under 10k simulated seekers: time to pair, rating gap of the races.

    .venv/bin/python bench/pool.py [--seekers 10000] [--arrival-s 20] [--seed 1]

Two parts:
1. **Waves** (pure ``pairing.pair``, the production settings): ``--seekers`` seekers arrive uniformly over
   ``--arrival-s`` seconds, ratings ~ N(1500, 300), one network each (1 in 20 shares a network with another
   seeker: households), 1 in 4 a guest (casual queue), 1 in 100 flagged. Waves run every ``wave_interval_s``
   on simulated time until nobody waits. Reported: the CPU time of each wave's pairing, the time each human
   waited until paired (races with humans) or until bots came, group sizes, and each race's rating gap
   (highest − lowest of its humans).
2. **One wave on Redis** (an embedded redis-server): the same seekers written into the sharded pool keys
   (``PoolStore.put``), then what a leading instance does — read every shard, pair, claim each group with the
   per-shard script — timed as a whole (races are not made: that is the races code's cost, per race).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

import redis.asyncio as aioredis

from golfrace.pool.pairing import Seeker, pair
from golfrace.pool.store import PoolStore
from golfrace.settings.pool import PoolSettings
from golfrace.store.embedded import start_test_server

SETTINGS = PoolSettings()


def seekers(n: int, arrival_s: float, seed: int) -> list[Seeker]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        queue = "casual" if rng.random() < 0.25 else "flagged" if rng.random() < 0.01 else "ranked"
        network = f"n{rng.randrange(n)}" if rng.random() < 0.05 else f"own{i}"
        rating = max(600, int(rng.gauss(1500, 300))) if queue != "casual" else 1500
        joined = int(rng.uniform(0, arrival_s) * 1000)
        out.append(Seeker(f"p{i}", rating, network, queue, joined, stamp=joined))
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def waves(all_seekers: list[Seeker]) -> list[str]:
    wave_ms = int(SETTINGS.wave_interval_s * 1000)
    pending = sorted(all_seekers, key=lambda s: s.joined_at)
    waiting: list[Seeker] = []
    now = 0
    cpu: list[float] = []
    sizes: list[float] = []
    waits_human: list[float] = []
    waits_bot: list[float] = []
    gaps: list[float] = []
    largest = 0
    while pending or waiting:
        now += wave_ms
        while pending and pending[0].joined_at <= now:
            waiting.append(pending.pop(0))
        stamped = [Seeker(s.player, s.rating, s.network, s.queue, s.joined_at, stamp=now) for s in waiting]
        largest = max(largest, len(stamped))
        started = time.process_time()
        result = pair(stamped, now, SETTINGS)
        cpu.append((time.process_time() - started) * 1000)
        for group in result.groups:
            sizes.append(len(group.seekers) + group.bots)
            for s in group.seekers:
                (waits_bot if group.bots else waits_human).append((now - s.joined_at) / 1000)
            if not group.bots:
                gaps.append(group.gap)
        waiting = list(result.waiting)
    humans = len(waits_human)
    return [
        f"seekers: {len(all_seekers):,}; most in the pool at one wave: {largest:,}; waves: {len(cpu)}",
        f"pairing CPU per wave: p50 {pct(cpu, 0.5):.1f} ms, p99 {pct(cpu, 0.99):.1f} ms, "
        f"max {max(cpu):.1f} ms",
        f"paired with people: {humans:,} ({100 * humans / len(all_seekers):.1f} %), "
        f"wait p50 {pct(waits_human, 0.5):.1f} s, p90 {pct(waits_human, 0.9):.1f} s, "
        f"max {max(waits_human):.1f} s",
        f"given bots: {len(waits_bot):,} ({100 * len(waits_bot) / len(all_seekers):.1f} %), "
        f"wait p50 {pct(waits_bot, 0.5):.1f} s, max {max(waits_bot, default=0):.1f} s",
        f"races: {len(sizes):,}, mean size {statistics.mean(sizes):.2f}",
        f"rating gap of races with people (highest − lowest): p50 {pct(gaps, 0.5):.0f}, "
        f"p90 {pct(gaps, 0.9):.0f}, p99 {pct(gaps, 0.99):.0f}, max {max(gaps):.0f}",
    ]


async def redis_wave(all_seekers: list[Seeker]) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="golfrace-bench-pool-") as tmp:
        server = start_test_server(tmp)
        redis = aioredis.Redis.from_url(server.url)
        try:
            store = PoolStore(redis, SETTINGS)
            now = max(s.joined_at for s in all_seekers)
            put_start = time.perf_counter()
            stamped = [
                Seeker(s.player, s.rating, s.network, s.queue, s.joined_at, stamp=now) for s in all_seekers
            ]
            for start in range(0, len(stamped), 100):  # 100 joins at once, as from many connections
                await asyncio.gather(*(store.put("easy", s) for s in stamped[start : start + 100]))
            put_s = time.perf_counter() - put_start
            shards = await store.shards("easy")
            started = time.perf_counter()
            read = await store.read("easy")
            read_s = time.perf_counter() - started
            where = {s.player: shard for shard, group in read.items() for s in group}
            result = pair((s for group in read.values() for s in group), now, SETTINGS)
            pair_s = time.perf_counter() - started - read_s
            claims = []
            for group in result.groups:
                by_shard: dict[str, list[str]] = {}
                for s in group.seekers:
                    by_shard.setdefault(where[s.player], []).append(s.player)
                claims.extend(by_shard.items())
            outcome = await store.claim_many(claims)
            claimed = sum(len(p) for (_, p), ok in zip(claims, outcome, strict=True) if ok)
            total_s = time.perf_counter() - started
            left = await store.count("easy")
        finally:
            await redis.aclose()
            server.stop()
    return [
        f"{len(all_seekers):,} seekers in {len(shards)} shard keys; writing them: {put_s:.2f} s "
        f"({1e6 * put_s / len(all_seekers):.0f} µs a join, 2 round trips each, 100 at once)",
        f"one wave: read {1000 * read_s:.0f} ms + pair {1000 * pair_s:.0f} ms + claim "
        f"{1000 * (total_s - read_s - pair_s):.0f} ms = {1000 * total_s:.0f} ms; "
        f"{len(result.groups):,} groups, {claimed:,} seekers claimed, {left:,} left waiting",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seekers", type=int, default=10_000)
    parser.add_argument("--arrival-s", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    population = seekers(args.seekers, args.arrival_s, args.seed)
    print(f"# Quick-race pool: {args.seekers:,} seekers arriving over {args.arrival_s:g} s")
    print(
        f"(settings: waves every {SETTINGS.wave_interval_s:g} s, gap {SETTINGS.gap_base} + "
        f"{SETTINGS.gap_per_wave}/wave ≤ {SETTINGS.gap_max}, bots after {SETTINGS.bot_wait_s:g} s)"
    )
    print("\n## Waves (pure pairing)")
    for line in waves(population):
        print("- " + line)
    print(f"\n## Waves (pure pairing), all {args.seekers:,} seeking within the same second")
    for line in waves(seekers(args.seekers, 1.0, args.seed)):
        print("- " + line)
    print("\n## One wave on Redis")
    for line in asyncio.run(redis_wave(population)):
        print("- " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
