"""The analysis of one game, pure: each position of its move log decided by the solver, the moves marked.

Terms (docs/analysis.md):

- a **mistake** is a move after which the position can no longer be won, though it could before;
- an **inaccuracy** is a move, in a position that could already not be won, that lowers the most cards
  that can still be removed;
- an undo is never marked (it only goes back to a position already decided).

Positions are decided once each (an undo returns to one; the key is what the solver reads: heights, drawn,
discard). A move that follows the line the solver gave for the position before needs no search: the rest of
that line holds after it. The whole analysis shares one budget of seconds by the caller's ``clock`` (the
server passes the worker thread's CPU time); positions left when it runs out are unknown (null), and a move
next to an unknown position is never marked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import Action, Game, GameCode, Status, Undo, parse_token, token
from ..engine.solver import best_score, solve

Clock = Callable[[], float]
Key = tuple[tuple[int, ...], int, str | None]

MISTAKE = "mistake"
INACCURACY = "inaccuracy"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One position decided: ``winnable`` (None: unknown), the most cards any line from it removes (counted
    from the deal's start) and the line that does it (a winning line when ``winnable``)."""

    winnable: bool | None
    best: int
    line: tuple[Action, ...]


def key_of(game: Game) -> Key:
    return (game.heights, game.drawn, None if game.discard is None else game.discard.code)


def board(game: Game) -> dict[str, Any]:
    """What the analysis shows of one position: the public board (never the stock's order)."""
    return {
        "columns": [[c.code for c in col] for col in game.columns],
        "discard": None if game.discard is None else game.discard.code,
        "stock_count": game.stock_count,
        "removed": game.removed,
        "score": game.score,
        "status": game.status.value,
    }


class _Decider:
    def __init__(self, budget_s: float, clock: Clock, max_states: int | None) -> None:
        self.clock = clock
        self.deadline = clock() + budget_s
        self.max_states = max_states
        self.known: dict[Key, Verdict] = {}
        self.states = 0
        self.searches = 0

    def decide(self, game: Game) -> Verdict:
        key = key_of(game)
        found = self.known.get(key)
        if found is not None:
            return found
        left = self.deadline - self.clock()
        if left <= 0:
            return Verdict(None, game.removed, ())
        result = solve(game, max_states=self.max_states, max_seconds=left, clock=self.clock)
        self.states += result.states
        self.searches += game.status is Status.PLAYING
        verdict = Verdict(result.winnable, result.best_removed, result.line)
        if verdict.winnable is not None:
            self.known[key] = verdict
        return verdict

    def follow(self, before: Game, verdict: Verdict, after: Game) -> None:
        """Record ``after``'s verdict when the move to it was the first of ``before``'s line."""
        if verdict.winnable is None or not verdict.line or key_of(after) in self.known:
            return
        if key_of(before.apply(verdict.line[0])) == key_of(after):
            self.known[key_of(after)] = Verdict(verdict.winnable, verdict.best, verdict.line[1:])


def _mark(action: Action, before: Verdict, after: Verdict) -> str | None:
    if isinstance(action, Undo) or before.winnable is None or after.winnable is None:
        return None
    if before.winnable and not after.winnable:
        return MISTAKE
    if not before.winnable and after.best < before.best:
        return INACCURACY
    return None


def _line(game: Game, line: Sequence[Action]) -> list[dict[str, Any]]:
    out = []
    for action in line:
        game = game.apply(action)
        out.append({"token": token(action), "board": board(game)})
    return out


def _moves(actions: Sequence[Action], verdicts: Sequence[Verdict]) -> list[dict[str, Any]]:
    """Each move with the verdicts before and after it, and its mark."""
    moves: list[dict[str, Any]] = []
    for i, action in enumerate(actions):
        before, after = verdicts[i], verdicts[i + 1]
        moves.append(
            {
                "n": i + 1,
                "token": token(action),
                "before": {"winnable": before.winnable, "best": before.best},
                "after": {"winnable": after.winnable, "best": after.best},
                "mark": _mark(action, before, after),
            }
        )
    return moves


def _better_line(games: Sequence[Game], verdicts: Sequence[Verdict], shown: int) -> dict[str, Any]:
    """The line the solver found from the position before move ``shown`` (the first marked one)."""
    at = verdicts[shown - 1]
    return {
        "kind": "win" if at.winnable else "best",
        "move": shown,
        "best": at.best,
        "steps": _line(games[shown - 1], at.line),
    }


def analyse(
    code: GameCode,
    tokens: Sequence[str],
    score: int,
    *,
    budget_s: float,
    clock: Clock,
    max_states: int | None = None,
) -> dict[str, Any]:
    """The analysis of the game ``tokens`` play from ``code``'s deal (``score``: the player's result)."""
    decider = _Decider(budget_s, clock, max_states)
    started = clock()
    games = [Game.new(code)]
    actions = [parse_token(t) for t in tokens]
    for action in actions:
        games.append(games[-1].apply(action))
    verdicts = [decider.decide(games[0])]
    for i in range(len(actions)):
        decider.follow(games[i], verdicts[i], games[i + 1])
        verdicts.append(decider.decide(games[i + 1]))
    moves = _moves(actions, verdicts)
    mistakes = [m["n"] for m in moves if m["mark"] == MISTAKE]
    inaccuracies = [m["n"] for m in moves if m["mark"] == INACCURACY]
    first = verdicts[0]
    shown = mistakes[0] if mistakes else (inaccuracies[0] if inaccuracies else None)
    line = None if shown is None else _better_line(games, verdicts, shown)
    final = games[-1]
    return {
        "code": str(code),
        "rules": code.rules.value,
        "complete": all(v.winnable is not None for v in verdicts),
        "winnable": first.winnable,
        "best_removed": first.best,
        "par": best_score(first.best) if first.winnable is not None else None,
        "removed": final.removed,
        "score": score,
        "won": final.status is Status.WON,
        "first_mistake": mistakes[0] if mistakes else None,
        "mistakes": mistakes,
        "inaccuracies": inaccuracies,
        "moves": moves,
        "boards": [board(g) for g in games],
        "line": line,
        "searches": decider.searches,
        "states": decider.states,
        "seconds": round(clock() - started, 4),
    }
