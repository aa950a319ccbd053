"""Benchmark: the exact solver against a plain memoised depth-first search, on the same deals, in one process.

    .venv/bin/python bench/solver.py [--deals 1000] [--seed 2026] [--memory-sample 20] [--rules easy]

The deals are the first ``--deals`` codes per rule set drawn with the engine's documented SplitMix64 from
``--seed`` (so every run and every machine uses the same deals). For each deal both searches answer the same
question — can the deal be won, and how many cards can be removed at best — and must agree; every line the
solver returns is replayed through the engine. Reported per rule set: total time of each search and the
ratio, median/p95/max per deal, states per second, and peak memory (tracemalloc, in an extra untimed run
so that tracing does not slow the timed ones; the baseline's memory on a sample, because tracing its
millions of dict entries is slow). Targets: >= 20x in total, p95 <= 100 ms per deal, < 200 MB for any deal.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from golfrace.engine import Game, GameCode, Rules, Status, replay
from golfrace.engine.codes import SEED_SPACE
from golfrace.engine.rng import SplitMix64
from golfrace.engine.solver import solve
from golfrace.engine.solver_space import levels, slabs

TARGET_RATIO = 20.0
TARGET_P95 = 0.100
TARGET_MEMORY = 200 * 2**20
TABLEAU = 35


def bench_codes(rules: Rules, count: int, seed: int) -> list[GameCode]:
    rng = SplitMix64(seed)
    return [GameCode(rules, rng.below(SEED_SPACE)) for _ in range(count)]


def baseline(game: Game) -> tuple[int, int]:
    """Plain memoised DFS. State: (column heights, stock position, discard rank). Tries the removals column
    by column, then the draw; stops at the first win. Returns (most cards removable, states)."""
    d = game.deal
    columns = [[c.rank for c in col] for col in d.columns]
    stock = [c.rank for c in d.stock]
    easy = game.rules is Rules.EASY
    memo: dict[tuple[tuple[int, ...], int, int], int] = {}

    def fits(card: int, top: int) -> bool:
        gap = abs(card - top)
        return gap == 1 or (easy and gap == 12)

    def go(heights: tuple[int, ...], drawn: int, top: int) -> int:
        key = (heights, drawn, top)
        if key in memo:
            return memo[key]
        best = TABLEAU - sum(heights)
        memo[key] = best
        if best < TABLEAU:
            for c in range(7):
                h = heights[c]
                if h and fits(columns[c][h - 1], top):
                    got = go((*heights[:c], h - 1, *heights[c + 1 :]), drawn, columns[c][h - 1])
                    best = max(best, got)
                    if best == TABLEAU:
                        break
            if best < TABLEAU and drawn < len(stock):
                best = max(best, go(heights, drawn + 1, stock[drawn]))
        memo[key] = best
        return best

    assert game.discard is not None
    best = go(game.heights, game.drawn, game.discard.rank)
    return best, len(memo)


@dataclass
class Runs:
    seconds: list[float]  # wall clock (perf_counter)
    states: list[int]
    cpu: list[float]  # this process's CPU time (process_time): unaffected by other work on the machine

    def total(self) -> float:
        return sum(self.seconds)

    def quantile(self, q: float, cpu: bool = False) -> float:
        ordered = sorted(self.cpu if cpu else self.seconds)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def rate(self) -> float:
        return sum(self.states) / self.total()


def peak_bytes(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


@dataclass
class RuleSetRun:
    rules: Rules
    deals: int
    winnable: int
    ours: Runs
    base: Runs
    our_peak: int
    base_peak: int
    memory_sample: int


def run(rules: Rules, count: int, seed: int, memory_sample: int, partial: Path | None = None) -> RuleSetRun:
    codes = bench_codes(rules, count, seed)
    r = RuleSetRun(rules, 0, 0, Runs([], [], []), Runs([], [], []), 0, 0, 0)
    # The baseline's memory first, in a pass of its own: tracing millions of allocations leaves the allocator
    # in a state that slows the next few timed runs, so it must not sit between them.
    for i, code in enumerate(codes[:memory_sample], start=1):
        r.base_peak = max(r.base_peak, peak_bytes(lambda c=code: baseline(Game.new(c))))
        r.memory_sample = i
    gc.collect()
    for i, code in enumerate(codes, start=1):
        game = Game.new(code)
        # Collect garbage outside the timed runs: the baseline's closure is a reference cycle, so its memo
        # (millions of tuples) would otherwise be collected during the next timed run.
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        result = solve(game)
        c1, t1 = time.process_time(), time.perf_counter()
        our_cpu, our_wall = c1 - c0, t1 - t0
        gc.collect()
        c1, t1 = time.process_time(), time.perf_counter()
        best, states = baseline(game)
        c2, t2 = time.process_time(), time.perf_counter()
        r.ours.cpu.append(our_cpu)
        r.base.cpu.append(c2 - c1)
        r.ours.seconds.append(our_wall)
        r.ours.states.append(result.states)
        r.base.seconds.append(t2 - t1)
        r.base.states.append(states)
        if result.best_removed != best or result.winnable is not (best == TABLEAU):
            raise SystemExit(f"DISAGREE on {code}: solver {result}, baseline best {best}")
        end = replay(code, list(result.line))
        expected = Status.WON if result.winnable else Status.STUCK
        if end.status is not expected or end.removed != result.best_removed:
            raise SystemExit(f"BAD LINE on {code}: ends {end.status.value} with {end.removed} removed")
        r.winnable += bool(result.winnable)
        r.deals = i
        # memory in untimed runs: tracing slows the search down
        r.our_peak = max(r.our_peak, peak_bytes(lambda c=code: solve(Game.new(c))))
        if i % 50 == 0:
            print(f"  {rules.value}: {i}/{count} deals", file=sys.stderr, flush=True)
            if partial is not None:
                partial.write_text("\n".join(report(r)) + "\n")
    return r


def report(r: RuleSetRun) -> list[str]:
    ours, base = r.ours, r.base
    ratio = base.total() / ours.total()
    our_peak, base_peak = r.our_peak, r.base_peak
    ms = 1000.0
    lines = [
        f"## {r.rules.value}: {r.deals} deals, {r.winnable} winnable; verdicts and best counts agree on all",
        "",
        "| | solver | baseline |",
        "|---|---:|---:|",
        f"| total time | {ours.total():.2f} s | {base.total():.2f} s |",
        f"| median per deal | {ours.quantile(0.5) * ms:.1f} ms | {base.quantile(0.5) * ms:.1f} ms |",
        f"| p95 per deal | {ours.quantile(0.95) * ms:.1f} ms | {base.quantile(0.95) * ms:.1f} ms |",
        f"| max per deal | {max(ours.seconds) * ms:.1f} ms | {max(base.seconds) * ms:.1f} ms |",
        f"| total CPU time | {sum(ours.cpu):.2f} s | {sum(base.cpu):.2f} s |",
        f"| median / p95 / max CPU per deal | {ours.quantile(0.5, True) * ms:.1f} /"
        f" {ours.quantile(0.95, True) * ms:.1f} / {max(ours.cpu) * ms:.1f} ms"
        f" | {base.quantile(0.5, True) * ms:.1f} / {base.quantile(0.95, True) * ms:.1f} /"
        f" {max(base.cpu) * ms:.1f} ms |",
        f"| states per deal (mean) | {statistics.fmean(ours.states):,.0f}"
        f" | {statistics.fmean(base.states):,.0f} |",
        f"| states per second | {ours.rate():,.0f} | {base.rate():,.0f} |",
        f"| peak memory, worst deal | {our_peak / 2**20:.1f} MB | {base_peak / 2**20:.1f} MB"
        f" (first {r.memory_sample} deals) |",
        "",
        f"ratio (baseline total / solver total): **{ratio:.1f}x** wall clock,"
        f" {sum(base.cpu) / sum(ours.cpu):.1f}x CPU time",
        "",
        f"- ratio >= {TARGET_RATIO:.0f}x: {'PASS' if ratio >= TARGET_RATIO else 'FAIL'}",
        f"- p95 <= {TARGET_P95 * ms:.0f} ms: {'PASS' if ours.quantile(0.95) <= TARGET_P95 else 'FAIL'}",
        f"- memory < {TARGET_MEMORY / 2**20:.0f} MB: {'PASS' if our_peak < TARGET_MEMORY else 'FAIL'}",
        "",
    ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--memory-sample", type=int, default=20)
    parser.add_argument("--rules", choices=["easy", "classic"], action="append", help="default: both")
    parser.add_argument("--partial", type=Path, help="rewrite a report of the deals so far every 50 deals")
    args = parser.parse_args()
    rule_sets = [Rules(r) for r in args.rules] if args.rules else [Rules.EASY, Rules.CLASSIC]
    sys.setrecursionlimit(10_000)
    t0 = time.perf_counter()
    slabs(), levels()  # built once per process (deal-independent masks)
    warm = time.perf_counter() - t0
    results = [run(rules, args.deals, args.seed, args.memory_sample, args.partial) for rules in rule_sets]
    print(f"# Solver benchmark (seed {args.seed}, Python {sys.version.split()[0]})")
    print()
    print(f"One-time set-up of the deal-independent masks: {warm * 1000:.0f} ms per process.")
    print()
    failed = False
    for r in results:
        lines = report(r)
        failed = failed or any(line.endswith("FAIL") for line in lines)
        print("\n".join(lines))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Process peak RSS (both searches): {rss:.0f} MB")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
