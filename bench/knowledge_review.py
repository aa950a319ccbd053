"""Calibrating the knowledge review: its false-positive and detection rates.

    .venv/bin/python bench/knowledge_review.py collect --deals 16 --out var/knowledge.jsonl
    .venv/bin/python bench/knowledge_review.py report var/knowledge.jsonl [--threshold 8]

``collect`` deals ``--deals`` random long codes (Easy and Classic in turn, from ``--seed``), plays each with
every kind of player below, reviews every game (``golfrace.strategy.review``) and writes one JSON line per
game with the raw decisions, so ``report`` can score them again under other parameters without solving:

- ``honest-2`` … ``honest-5``: the bots of those strengths (``choose``: they never see the stock);
- ``oracle``: knows the stock and plays the solver's line (a stock-knowing client);
- ``disguised``: knows the stock, but plays the strength-5 bot's choice whenever that still keeps the true
  best outcome, and the true best only when it must (a cheater hiding in honest-looking play).

``report`` prints, for the threshold, the share of honest games held (false positives, all games and wins
only) and of informed games held (detection, all and wins), then a sweep of thresholds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from golfrace.engine import Game, GameCode, Rules, Status, parse_token, token
from golfrace.engine.codes import LONG_SEED_SPACE
from golfrace.engine.solver import solve
from golfrace.strategy import Visible, choose, strength
from golfrace.strategy.review import (
    HONEST_TEMPERATURE,
    KNOWLEDGE_THRESHOLD,
    SLIP,
    Decision,
    Review,
    review,
)

KINDS = ("oracle", "disguised", "honest-5", "honest-4", "honest-3", "honest-2")
INFORMED = ("oracle", "disguised")


def play(code: GameCode, kind: str, rng: random.Random) -> list[str]:
    game = Game.new(code, draws_final=True)
    out = []
    while game.status is Status.PLAYING:
        if kind == "oracle":
            action = solve(game).line[0]
        elif kind == "disguised":
            action = choose(Visible.from_game(game), strength(5), rng)
            best = solve(game).best_removed
            if solve(game.apply(action)).best_removed < best:
                action = solve(game).line[0]
        else:
            action = choose(Visible.from_game(game), strength(int(kind.split("-")[1])), rng)
        out.append(token(action))
        game = game.apply(action)
    return out


def collect(deals: int, seed: int, out: Path, kinds: list[str]) -> None:
    rng = random.Random(seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as f:
        for i in range(deals):
            code = GameCode(
                Rules.EASY if i % 2 == 0 else Rules.CLASSIC, rng.randrange(LONG_SEED_SPACE), long=True
            )
            for kind in kinds:
                t0 = time.process_time()
                tokens = play(code, kind, random.Random(rng.random()))
                t1 = time.process_time()
                rev = review(code, tokens, random.Random(rng.random()))
                t2 = time.process_time()
                final = Game.new(code)
                for tok in tokens:
                    final = final.apply(parse_token(tok))
                line = {
                    "code": str(code),
                    "kind": kind,
                    "score": final.score,
                    "won": final.status is Status.WON,
                    "moves": len(tokens),
                    "play_cpu_s": round(t1 - t0, 3),
                    "review_cpu_s": round(t2 - t1, 3),
                    "decisions": [[d.move, d.chosen, list(d.true), d.seen] for d in rev.decisions],
                }
                f.write(json.dumps(line) + "\n")
                f.flush()
                print(
                    f"{i} {kind:10} {final.score:3} score {rev.score:6.1f} review {t2 - t1:.1f}s",
                    file=sys.stderr,
                )


def load(path: Path) -> list[tuple[dict[str, object], Review]]:
    games = []
    for text in path.read_text().splitlines():
        g = json.loads(text)
        decisions = tuple(
            Decision(m, c, tuple(t), None if s is None else tuple(s)) for m, c, t, s in g["decisions"]
        )
        games.append((g, Review(decisions, True)))
    return games


def rate(games: list[tuple[dict[str, object], Review]], threshold: float, temp: float, slip: float) -> str:
    if not games:
        return "—"
    held = sum(1 for _, r in games if r.score_with(temp, slip) >= threshold)
    return f"{held}/{len(games)} ({100 * held / len(games):.0f} %)"


def report(path: Path, threshold: float, temp: float, slip: float) -> None:
    games = load(path)
    honest = [g for g in games if g[0]["kind"] not in INFORMED]
    print(f"knowledge review: threshold {threshold} nats, honest temperature {temp}, slip {slip}")
    print(f"games: {len(games)} ({len({g['code'] for g, _ in games})} deals)")
    print()
    print("| player | games held | wins held | mean score | review CPU s (mean) |")
    print("|---|---|---|---|---|")
    for kind in KINDS:
        mine = [g for g in games if g[0]["kind"] == kind]
        if not mine:
            continue
        wins = [g for g in mine if g[0]["won"]]
        mean = sum(r.score_with(temp, slip) for _, r in mine) / len(mine)
        cpu = sum(float(g["review_cpu_s"]) for g, _ in mine) / len(mine)  # type: ignore[arg-type]
        held, won = rate(mine, threshold, temp, slip), rate(wins, threshold, temp, slip)
        print(f"| {kind} | {held} | {won} | {mean:.1f} | {cpu:.1f} |")
    print()
    print(f"false positives (all honest games): {rate(honest, threshold, temp, slip)}")
    print(f"false positives (honest wins): {rate([g for g in honest if g[0]['won']], threshold, temp, slip)}")
    for kind in INFORMED:
        wins = [g for g in games if g[0]["kind"] == kind and g[0]["won"]]
        print(f"detection ({kind} wins): {rate(wins, threshold, temp, slip)}")
    print()
    print("| threshold | FP honest wins | detect oracle wins | detect disguised wins |")
    print("|---|---|---|---|")
    for t in (2, 4, 6, 8, 10, 12, 15):
        hw = [g for g in honest if g[0]["won"]]
        ow = [g for g in games if g[0]["kind"] == "oracle" and g[0]["won"]]
        dw = [g for g in games if g[0]["kind"] == "disguised" and g[0]["won"]]
        print(f"| {t} | {rate(hw, t, temp, slip)} | {rate(ow, t, temp, slip)} | {rate(dw, t, temp, slip)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--deals", type=int, default=16)
    c.add_argument("--seed", type=int, default=19)
    c.add_argument("--out", type=Path, default=Path("var/knowledge.jsonl"))
    c.add_argument("--kinds", default=",".join(KINDS))
    r = sub.add_parser("report")
    r.add_argument("path", type=Path)
    r.add_argument("--threshold", type=float, default=KNOWLEDGE_THRESHOLD)
    r.add_argument("--temperature", type=float, default=HONEST_TEMPERATURE)
    r.add_argument("--slip", type=float, default=SLIP)
    args = parser.parse_args()
    if args.command == "collect":
        collect(args.deals, args.seed, args.out, args.kinds.split(","))
    else:
        report(args.path, args.threshold, args.temperature, args.slip)


if __name__ == "__main__":
    main()
