"""Valuing each legal choice of a position with the exact solver, over stock orders a player could expect.

``sample_stocks`` draws orders of the unseen cards (uniformly: every order consistent with what was seen is
as likely as any other). ``evaluate`` solves the position after each choice under each sampled order and
averages: the mean best score reachable (350 for a win) and how often a win remains. The same orders serve
every choice (common random numbers), so two choices are compared on the same stocks.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import Card, Draw, Tap, solver_bits, solver_dfs
from ..engine.deal import ROWS, TABLEAU
from ..engine.solver import best_score
from ..engine.solver_space import Meter, Position, rank_of, successors
from .visible import ActionChoice, Visible


@dataclass(frozen=True, slots=True)
class Value:
    """One choice under the sampled stocks: ``score`` the mean best score reachable, ``wins`` the share of
    stocks where a win remains, ``samples`` how many stocks were solved (fewer when a budget ran out)."""

    action: ActionChoice
    score: float
    wins: float
    samples: int


def sample_stocks(visible: Visible, count: int, rng: random.Random) -> list[tuple[Card, ...]]:
    """``count`` stock orders consistent with ``visible``: the unseen cards shuffled, or, when more cards are
    unseen than the stock holds (a player who did not count cards), ``stock_count`` of them at random. The
    calls made on ``rng`` depend only on the counts, never on a hidden card."""
    pool = list(visible.unseen)
    out = []
    for _ in range(count):
        if len(pool) == visible.stock_count:
            order = pool[:]
            rng.shuffle(order)
        else:
            order = rng.sample(pool, visible.stock_count)
        out.append(tuple(order))
    return out


def best_removed(
    visible: Visible, action: ActionChoice, stock: Sequence[Card], max_states: int | None = None
) -> int:
    """The most tableau cards (of 35) removable after ``action`` if the stock is ``stock`` (exact, unless
    ``max_states`` ran out: then a lower bound)."""
    heights = list(visible.heights)
    ranks = tuple(rank_of(c) for c in stock)
    if isinstance(action, Tap):
        c = action.column - 1
        top = rank_of(visible.columns[c][-1])
        heights[c] -= 1
        drawn = 0
    else:
        top, drawn = ranks[0], 1
    if sum(heights) == 0:
        return TABLEAU
    columns = tuple(_padded(col) for col in visible.columns)
    pos = Position(columns, ranks, tuple(heights), drawn, top, successors(visible.rules, visible.variants))
    search = solver_dfs.search if visible.variants.strict else solver_bits.search
    return search(pos, Meter(max_states, None, None)).best


def _padded(col: tuple[Card, ...]) -> tuple[int, ...]:
    """Column ranks padded to ``ROWS``: the solver indexes a column by its full height, and the padding
    stands for cards already gone, which no search reaches again."""
    ranks = tuple(c.rank for c in col)
    return ranks + (ranks[-1] if ranks else 1,) * (ROWS - len(ranks))


def evaluate(
    visible: Visible,
    stocks: Sequence[Sequence[Card]],
    actions: Sequence[ActionChoice] | None = None,
    max_states: int | None = None,
) -> list[Value]:
    """The value of each of ``actions`` (default: every legal move) over ``stocks``."""
    choices = visible.legal() if actions is None else list(actions)
    out = []
    for action in choices:
        if isinstance(action, Draw) and visible.stock_count == 0:
            raise ValueError("no card left to draw")
        results = [best_removed(visible, action, s, max_states) for s in stocks]
        n = len(results)
        score = sum(best_score(r) for r in results) / n if n else 0.0
        wins = sum(1 for r in results if r == TABLEAU) / n if n else 0.0
        out.append(Value(action, score, wins, n))
    return out
