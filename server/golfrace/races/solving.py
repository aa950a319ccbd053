"""The solver questions races ask (winnable? par?), with a budget; None when the answer is unknown."""

from __future__ import annotations

import importlib
from typing import Any

from ..engine import Game, GameCode


def _solver() -> Any | None:
    try:
        return importlib.import_module("golfrace.engine.solver")
    except ImportError:
        return None


def winnable(code: GameCode, budget_s: float = 2.0) -> bool | None:
    solver = _solver()
    if solver is None:
        return None
    result = solver.solve(Game.new(code), seconds=budget_s)
    value = getattr(result, "winnable", None)
    return value if isinstance(value, bool) else None


def par(code: GameCode, budget_s: float = 2.0) -> int | None:
    solver = _solver()
    if solver is None:
        return None
    value = solver.par(Game.new(code), seconds=budget_s)
    return value if isinstance(value, int) else None
