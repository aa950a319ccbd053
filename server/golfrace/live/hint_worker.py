"""The solver side of a hint, run in a worker process of ``hint_queue.HintQueue`` (so it imports the engine
only): ``think`` picks the hinted action, ``move_of`` gives its wire form."""

from __future__ import annotations

import os
import time
from typing import Any

from golfrace.engine import Draw, Game, Status, Tap
from golfrace.engine.actions import Action
from golfrace.engine.solver import SolveResult, solve
from golfrace.settings import HintSettings


def lower_priority(nice: int) -> None:
    """A worker process's initializer: run ``nice`` steps below the server, so that the operating system
    gives the server's event loop (moves, sign-ins) the CPU first whenever both want it."""
    if nice > 0 and hasattr(os, "nice"):
        os.nice(nice)


def move_of(action: Action | None) -> dict[str, Any] | None:
    """The wire form of a suggested move: a column or the stock, never a card."""
    if isinstance(action, Tap):
        return {"a": "tap", "col": action.column}
    if isinstance(action, Draw):
        return {"a": "draw"}
    return None


def think(game: Game, settings: HintSettings) -> tuple[Action | None, bool | None, int | None]:
    """The hinted action, whether the position can still be won (None: the budget ran out), and the best
    score reachable from it (None: not decided within the budget); for a game over, the best its deal
    allowed from the start (its par: what a stuck player could have made).

    Among the winning lines, a removal is preferred to a draw when one is known to keep the win: a draw
    the solver chose first is replaced by the first removal whose position it proves winnable within what
    is left of the budget."""

    def within_budget(position: Game) -> SolveResult:
        return solve(
            position, max_states=settings.max_states, max_seconds=settings.max_seconds, clock=time.monotonic
        )

    if game.status is Status.WON:
        return None, True, game.score
    if game.status is not Status.PLAYING:
        deal = within_budget(Game.new(game.code))
        return None, False, deal.par if deal.decided else None
    started = time.monotonic()
    result = within_budget(game)
    first = result.line[0] if result.line else None
    best = result.par if result.decided else None
    if result.winnable and isinstance(first, Draw):
        for action in game.legal_actions():
            if not isinstance(action, Tap):
                continue
            left = settings.max_seconds - (time.monotonic() - started)
            if left <= 0:
                break
            after = solve(
                game.apply(action), max_states=settings.max_states, max_seconds=left, clock=time.monotonic
            )
            if after.winnable:
                return action, True, best
    return first, result.winnable, best
