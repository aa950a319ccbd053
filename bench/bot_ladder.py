"""The bot ladder: each strength's openskill rating (Plackett–Luce), measured by bot-vs-bot races.

    nice -n 10 timeout 600 .venv/bin/python bench/bot_ladder.py run --races 60 --seed 2101 --out var/a.jsonl
    .venv/bin/python bench/bot_ladder.py report var/a.jsonl var/b.jsonl --prior 1:0.2:7.0,2:19.8:6.7,...

``run`` deals ``--races`` random long codes (Easy and Classic in turn, from ``--seed``); in each, every
strength of ``golfrace.strategy.STRENGTHS`` plays the same deal with ``choose`` (never seeing the stock) at
the human pace of ``move_delay_ms``, and the race's order is the race results' own: score, then time. One
JSON line per race. ``report`` rates the races in order with openskill's Plackett–Luce model (default
parameters: mu 25, sigma 25/3) and prints the ladder: mu, sigma, the ordinal mu − 3 sigma, the mean score,
how often a strength won its race, the mean game time and the CPU time a move of each strength costs.
A run cut short (``timeout``) keeps every race it finished (one line each, flushed). ``--prior`` starts each
strength from an earlier run's posterior (``level:mu:sigma,...``, as its report printed it), so that runs of
a bounded CPU budget add up: rating a run's races from the posterior of the runs before is rating them all.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from openskill.models import PlackettLuce

from golfrace.engine import Game, GameCode, Rules, Status
from golfrace.engine.codes import LONG_SEED_SPACE
from golfrace.strategy import STRENGTHS, Visible, choose, move_delay_ms


def play(code: GameCode, level: int, rng: random.Random) -> dict[str, float]:
    game = Game.new(code, draws_final=True)
    elapsed = 0
    cpu = 0.0
    while game.status is Status.PLAYING:
        visible = Visible.from_game(game)
        start = time.process_time()
        action = choose(visible, STRENGTHS[level], rng)
        cpu += time.process_time() - start
        elapsed += move_delay_ms(rng, first=game.moves == 0, choices=len(visible.legal()))
        game = game.apply(action)
    return {
        "score": game.score,
        "won": game.status is Status.WON,
        "elapsed": elapsed,
        "moves": game.moves,
        "cpu": cpu,
    }


def run(races: int, seed: int, out: Path) -> None:
    rng = random.Random(seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as f:
        for i in range(races):
            rules = Rules.EASY if i % 2 == 0 else Rules.CLASSIC
            code = GameCode(rules, rng.randrange(LONG_SEED_SPACE), long=True)
            games = {level: play(code, level, random.Random(rng.random())) for level in STRENGTHS}
            f.write(json.dumps({"code": str(code), "games": games}) + "\n")
            f.flush()
            line = " ".join(f"{lv}:{g['score']}" for lv, g in games.items())
            print(f"race {i + 1}/{races} {code} {line}", file=sys.stderr)


def order(games: dict[str, dict[str, float]]) -> list[int]:
    """Ranks (1 = first) by the race results' order: the higher score, then the shorter time."""
    keys = {lv: (-g["score"], g["elapsed"]) for lv, g in games.items()}
    ranked = sorted(set(keys.values()))
    return [ranked.index(keys[lv]) + 1 for lv in games]


def parse_prior(text: str) -> dict[int, tuple[float, float]]:
    """``1:0.2:7.0,2:19.8:6.7`` → {level: (mu, sigma)}."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        level, mu, sigma = part.split(":")
        out[int(level)] = (float(mu), float(sigma))
    return out


def report(paths: list[Path], prior: dict[int, tuple[float, float]] | None = None) -> None:
    races = [json.loads(t) for path in paths for t in path.read_text().splitlines() if t.strip()]
    model = PlackettLuce()
    levels = sorted(STRENGTHS)
    start = prior or {}
    ratings = {
        lv: model.rating(*start.get(lv, (None, None)), name=f"strength {lv}")  # type: ignore[arg-type]
        for lv in levels
    }
    firsts = dict.fromkeys(levels, 0)
    for race in races:
        games = {int(k): v for k, v in race["games"].items()}
        present = [lv for lv in levels if lv in games]
        ranks = order({str(lv): games[lv] for lv in present})
        teams = model.rate([[ratings[lv]] for lv in present], ranks=ranks)
        for lv, team, rank in zip(present, teams, ranks, strict=True):
            ratings[lv] = team[0]
            firsts[lv] += rank == 1
    print(f"bot ladder: {len(races)} races of {len(levels)} bots (openskill {model.__class__.__name__})")
    if start:
        print("from the prior " + ", ".join(f"{lv}: {m:g} ± {sd:g}" for lv, (m, sd) in sorted(start.items())))
    print()
    head = ["strength", "samples", "temperature", "counts cards", "mu", "sigma", "ordinal", "mean score"]
    head += ["wins", "first", "mean time", "CPU per move"]
    print("| " + " | ".join(head) + " |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for lv in levels:
        s = STRENGTHS[lv]
        games = [r["games"][str(lv)] for r in races if str(lv) in r["games"]]
        r = ratings[lv]
        score = statistics.fmean(g["score"] for g in games)
        wins = sum(1 for g in games if g["won"])
        secs = statistics.fmean(g["elapsed"] for g in games) / 1000
        per_move = sum(g["cpu"] for g in games) / max(1, sum(g["moves"] for g in games)) * 1000
        print(
            f"| {lv} | {s.samples} | {s.temperature:g} | {'yes' if s.counts_cards else 'no'} | {r.mu:.1f} | "
            f"{r.sigma:.1f} | {r.ordinal():.1f} | {score:.0f} | {wins}/{len(games)} | {firsts[lv]} | "
            f"{secs:.0f} s | {per_move:.0f} ms |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--races", type=int, default=20)
    r.add_argument("--seed", type=int, default=21)
    r.add_argument("--out", type=Path, default=Path("var/ladder.jsonl"))
    p = sub.add_parser("report")
    p.add_argument("paths", type=Path, nargs="+")
    p.add_argument("--prior", type=parse_prior, default=None, help="level:mu:sigma,... of an earlier run")
    args = parser.parse_args()
    if args.command == "run":
        run(args.races, args.seed, args.out)
    else:
        report(args.paths, args.prior)


if __name__ == "__main__":
    main()
