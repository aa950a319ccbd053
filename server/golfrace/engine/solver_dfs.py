"""Exact search for the ``strict`` variant, where a draw is refused while a removal is possible.

The dominance that the bit-parallel search relies on (drawing more is never better) does not hold when draws
are forced, so this is a depth-first search over (heights, cards drawn, discard rank) with a set of visited
states. Forced draws keep the space small: the whole of a strict deal is explored in tens of milliseconds.
"""

from __future__ import annotations

from .actions import Action, Draw, Tap
from .deal import COLUMNS, TABLEAU
from .solver_bits import Outcome
from .solver_space import STRIDE, Meter, Position, pack

CHECK_EVERY = 1024  # states between two looks at the budget


class _OutOfBudget(Exception):
    pass


def search(pos: Position, meter: Meter) -> Outcome:
    columns, stock, succ = pos.columns, pos.stock, pos.succ
    visited: set[tuple[int, int, int]] = set()
    path: list[Action] = []
    best = [TABLEAU - sum(pos.heights)]
    best_line: list[tuple[Action, ...]] = [()]

    def go(index: int, heights: list[int], drawn: int, top: int, left: int) -> bool:
        key = (index, drawn, top)
        if key in visited:
            return False
        visited.add(key)
        meter.states += 1
        if meter.states % CHECK_EVERY == 0 and meter.exhausted():
            raise _OutOfBudget
        if TABLEAU - left > best[0]:
            best[0] = TABLEAU - left
            best_line[0] = tuple(path)
            if left == 0:
                return True
        allowed = succ[top]
        moved = False
        for c in range(COLUMNS):
            h = heights[c]
            if h and columns[c][h - 1] in allowed:
                moved = True
                heights[c] = h - 1
                path.append(Tap(c + 1))
                if go(index - STRIDE[c], heights, drawn, columns[c][h - 1], left - 1):
                    return True
                path.pop()
                heights[c] = h
        if not moved and drawn < len(stock):
            path.append(Draw())
            if go(index, heights, drawn + 1, stock[drawn], left):
                return True
            path.pop()
        return False

    try:
        won = go(pack(pos.heights), list(pos.heights), pos.drawn, pos.top, sum(pos.heights))
    except _OutOfBudget:
        return Outcome(False, False, best[0], best_line[0])
    line = best_line[0]
    if not won:
        line = _finish(pos, line)
    return Outcome(True, won, best[0], line)


def _finish(pos: Position, line: tuple[Action, ...]) -> tuple[Action, ...]:
    """Play on from the end of the best line until the game ends: only draws remain (a removal would beat
    the best), so draw out the stock."""
    drawn = pos.drawn + sum(1 for a in line if isinstance(a, Draw))
    return line + (Draw(),) * (len(pos.stock) - drawn)
