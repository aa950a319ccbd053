"""``golfrace solve`` and ``golfrace hint``: the exact solver from the command line.

One process solves every code given (no start-up per code); ``--json`` prints one object per line, in order.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

from ..engine import Game, GameCode, Refusal, parse_moves, token
from ..engine.solver import SolveResult, solve
from . import UsageError

# The command line decides every deal: the largest state space of a deal is about 6**7 * 14 * 19 pairs, far
# below this, so the budget only guards against a bug. The server passes its own, smaller budgets.
CLI_MAX_STATES = 100_000_000
PROGRESS_MIN_CODES = 20  # fewer codes finish in about a second: no progress bar


def register(sub: Any) -> list[str]:
    p = sub.add_parser("solve", help="decide whether deals can be won; print a winning or best line")
    p.add_argument("codes", nargs="+", metavar="CODE")
    p.add_argument("--moves", default="", help="solve from the position after these moves (for each code)")
    p.add_argument("--json", action="store_true", help="one JSON object per code, one per line")
    _budget_args(p)
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("hint", help="the next move of a winning line (else of the best line)")
    p.add_argument("code")
    p.add_argument("--moves", default="")
    p.add_argument("--json", action="store_true")
    _budget_args(p)
    p.set_defaults(func=cmd_hint)
    return ["solve", "hint"]


def _budget_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-states", type=int, default=CLI_MAX_STATES, help=f"state budget (default {CLI_MAX_STATES:,})"
    )
    p.add_argument("--max-seconds", type=float, default=None, help="time budget per code (default: none)")


def position(code_text: str, moves: str, command: str) -> Game:
    """The game after ``moves``; a refused move is bad input, named by its place in the list."""
    game = Game.new(GameCode.parse(code_text))
    for index, action in enumerate(parse_moves(moves), start=1):
        try:
            game = game.apply(action)
        except Refusal as refusal:
            raise UsageError(
                f"golfrace {command}: move {index} ({token(action)}) is refused in {game.code}: "
                f"{refusal.code}"
            ) from None
    return game


def _solve(game: Game, args: argparse.Namespace, command: str) -> SolveResult:
    if args.max_states is not None and args.max_states <= 0:
        raise UsageError(f"golfrace {command}: --max-states must be positive, got {args.max_states}")
    if args.max_seconds is not None and args.max_seconds <= 0:
        raise UsageError(f"golfrace {command}: --max-seconds must be positive, got {args.max_seconds}")
    return solve(game, max_states=args.max_states, max_seconds=args.max_seconds, clock=time.perf_counter)


def result_json(game: Game, result: SolveResult) -> dict[str, Any]:
    return {
        "code": str(game.code),
        "rules": game.rules.value,
        "winnable": result.winnable,
        "line": [token(a) for a in result.line],
        "best_removed": result.best_removed,
        "states": result.states,
        "seconds": round(result.seconds, 6),
    }


def result_text(game: Game, result: SolveResult) -> str:
    head = f"{game.code} ({game.rules.value}): "
    line = " ".join(token(a) for a in result.line) or "(nothing to play)"
    cost = f"[{result.states:,} states, {result.seconds:.3f} s]"
    if result.winnable:
        return f"{head}winnable: {line} {cost}"
    if result.winnable is False:
        return f"{head}not winnable; at best {result.best_removed} removed (par {result.par}): {line} {cost}"
    return f"{head}unknown (budget ran out); {result.best_removed} removed so far: {line} {cost}"


def cmd_solve(args: argparse.Namespace) -> int:
    games = [position(code, args.moves, "solve") for code in args.codes]  # all input checked first
    for game in _with_progress(games):
        result = _solve(game, args, "solve")
        out = json.dumps(result_json(game, result)) if args.json else result_text(game, result)
        print(out, flush=True)
    return 0


def cmd_hint(args: argparse.Namespace) -> int:
    game = position(args.code, args.moves, "hint")
    result = _solve(game, args, "hint")
    move = token(result.line[0]) if result.line else None
    if args.json:
        print(json.dumps({"code": str(game.code), "hint": move, "winnable": result.winnable}))
    else:
        print(move or "-")
    return 0


def _with_progress(games: list[Game]) -> Iterator[Game]:
    """Yield the games; a transient progress bar on stderr when it is a terminal and the list is long."""
    if len(games) < PROGRESS_MIN_CODES or not sys.stderr.isatty():
        yield from games
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("solving", total=len(games))
        for game in games:
            yield game
            progress.advance(task)
