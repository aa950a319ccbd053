"""Statistics of random deals: how many can be won, and what solving them costs.

    .venv/bin/python bench/solver_stats.py [--deals 10000] [--seed 7]

Draws ``--deals`` codes per rule set with the engine's documented SplitMix64 from ``--seed``, solves each
exactly, and prints a Markdown report: the fraction winnable (with a 95% interval), the distribution of states
explored and of time per deal (wall clock and CPU time), the most cards removable in the deals that cannot be
won, and the mean par. For orientation, the literature gives about 93% winnable for Easy (King–Ace linked)
and about 45% for Classic.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from golfrace.engine import Game, GameCode, Rules
from golfrace.engine.codes import SEED_SPACE
from golfrace.engine.rng import SplitMix64
from golfrace.engine.solver import solve


def quantiles(values: list[float]) -> tuple[float, float, float, float]:
    ordered = sorted(values)
    n = len(ordered)
    return statistics.fmean(ordered), ordered[n // 2], ordered[min(n - 1, int(0.95 * n))], ordered[-1]


def run(rules: Rules, count: int, seed: int) -> list[str]:
    rng = SplitMix64(seed)
    wins, states, wall, cpu, pars = 0, [], [], [], []
    lost_best: Counter[int] = Counter()
    for i in range(1, count + 1):
        game = Game.new(GameCode(rules, rng.below(SEED_SPACE)))
        c0, t0 = time.process_time(), time.perf_counter()
        result = solve(game)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
        if result.winnable is None:
            raise SystemExit(f"undecided without a budget: {game.code}")
        states.append(result.states)
        pars.append(result.par)
        if result.winnable:
            wins += 1
        else:
            lost_best[result.best_removed] += 1
        if i % 500 == 0:
            print(f"  {rules.value}: {i}/{count}", file=sys.stderr, flush=True)
    p = wins / count
    margin = 1.96 * math.sqrt(p * (1 - p) / count)
    ms = 1000.0
    s_mean, s_med, s_p95, s_max = quantiles([float(s) for s in states])
    w_mean, w_med, w_p95, w_max = quantiles(wall)
    c_mean, c_med, c_p95, c_max = quantiles(cpu)
    spread = ", ".join(f"{k}: {v}" for k, v in sorted(lost_best.items(), reverse=True))
    return [
        f"## {rules.value}: {count:,} random deals",
        "",
        f"- winnable: **{wins:,} = {100 * p:.1f}%** (95% interval ± {100 * margin:.1f} points)",
        f"- mean par: {statistics.fmean(pars):.1f} points",
        f"- most cards removable when the deal cannot be won (cards: deals): {spread}",
        "",
        "| per deal | mean | median | p95 | max |",
        "|---|---:|---:|---:|---:|",
        f"| states explored | {s_mean:,.0f} | {s_med:,.0f} | {s_p95:,.0f} | {s_max:,.0f} |",
        "| wall clock | " + " | ".join(f"{x * ms:.1f} ms" for x in (w_mean, w_med, w_p95, w_max)) + " |",
        "| CPU time | " + " | ".join(f"{x * ms:.1f} ms" for x in (c_mean, c_med, c_p95, c_max)) + " |",
        "",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    lines = [f"# Solver statistics (seed {args.seed}, Python {sys.version.split()[0]})", ""]
    for rules in (Rules.EASY, Rules.CLASSIC):
        lines += run(rules, args.deals, args.seed)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
