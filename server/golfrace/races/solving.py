"""The solver questions races ask (winnable? par?) within a time budget; None when the answer is unknown.

Uses ``golfrace.engine.solver``; should it be missing, winnability falls back to a plain memoised search
bounded by ``FALLBACK_STATES`` (an unknown verdict only moves the daily challenge to its next candidate)
and par is unknown (null).
"""

from __future__ import annotations

import importlib
import time
from typing import Any

from ..engine import Game, GameCode, Status

FALLBACK_STATES = 20_000


def _solver() -> Any | None:
    try:
        return importlib.import_module("golfrace.engine.solver")
    except ImportError:
        return None


def _solve(code: GameCode, budget_s: float) -> Any | None:
    solver = _solver()
    if solver is None:
        return None
    return solver.solve(Game.new(code), max_seconds=budget_s, clock=time.perf_counter)


def winnable(code: GameCode, budget_s: float = 2.0) -> bool | None:
    result = _solve(code, budget_s)
    if result is None:
        return _search(Game.new(code), FALLBACK_STATES)
    value = result.winnable
    return value if isinstance(value, bool) else None


def par(code: GameCode, budget_s: float = 2.0) -> int | None:
    result = _solve(code, budget_s)
    if result is None or result.winnable is None:
        return None
    return int(result.par)


def _search(game: Game, budget: int) -> bool | None:
    seen: set[tuple[tuple[int, ...], int, str | None]] = set()
    stack = [game]
    while stack:
        g = stack.pop()
        if g.status is Status.WON:
            return True
        key = (g.heights, g.drawn, g.discard.code if g.discard else None)
        if key in seen:
            continue
        if len(seen) >= budget:
            return None
        seen.add(key)
        stack.extend(g.apply(a) for a in reversed(g.legal_actions()))
    return False
