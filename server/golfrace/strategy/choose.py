"""Choosing a move without seeing the stock: the solver on sampled stock orders, then a softmax.

A ``Strength`` says what the player knows (``counts_cards``: it remembers every card seen, so it samples
the stock from exactly the cards not seen yet; otherwise from every card not in view now) and how well it
chooses (``samples``: stock orders solved per choice, none for a rule of thumb; ``temperature``: in points of
mean score, how loosely it follows the values, 0 always takes the best; ``draw_margin``: how many points a
draw must look better than the best removal to be chosen). Nothing here reads a hidden card: ``choose``
sees only a ``Visible``.

The margin is there because sampled values flatter a draw: each sampled stock is solved as if its order
were known from then on, so a draw that happens to suit two or four sampled orders looks better than it is,
while a removal now is rarely wrong. Measured on the ladder (docs/bots.md), a few samples without the margin
played worse than the rule of thumb "remove when you can".
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from ..engine import Draw, Tap
from .evaluate import Value, evaluate, sample_stocks
from .visible import ActionChoice, Visible


@dataclass(frozen=True, slots=True)
class Strength:
    level: int
    samples: int
    temperature: float
    counts_cards: bool = True
    draw_margin: float = 0.0

    def __post_init__(self) -> None:
        if self.samples < 0 or self.temperature < 0 or self.draw_margin < 0:
            raise ValueError("samples, temperature and draw_margin are never negative")


STRENGTHS: dict[int, Strength] = {
    1: Strength(1, 0, 1.0, counts_cards=False),  # any legal move at random
    2: Strength(2, 0, 0.0, counts_cards=False),  # the rule of thumb: any removal, a draw only when none fits
    3: Strength(3, 2, 5.0, draw_margin=math.inf),  # the samples pick the column, never a draw over a removal
    4: Strength(4, 4, 0.0, draw_margin=20.0),
    5: Strength(5, 8, 0.0, draw_margin=10.0),
}
"""The bot levels, weakest first; their measured ratings are in docs/bots.md."""


def strength(level: int) -> Strength:
    """The ``Strength`` of a bot level (1–5); ValueError for any other."""
    try:
        return STRENGTHS[level]
    except KeyError:
        raise ValueError(f"bot strength must be 1–{max(STRENGTHS)}, got {level!r}") from None


def choose(visible: Visible, strength: Strength, rng: random.Random) -> ActionChoice:
    """A legal move for ``visible``. The result and every call on ``rng`` depend only on ``visible``,
    ``strength`` and the rng's state: never on the order of the stock. ValueError when the game is over."""
    legal = visible.legal()
    if not legal:
        raise ValueError("the game is over: no move to choose")
    if len(legal) == 1:
        return legal[0]
    taps: list[ActionChoice] = [a for a in legal if isinstance(a, Tap)]
    if strength.samples == 0:
        if strength.temperature > 0:
            return rng.choice(legal)
        return rng.choice(taps) if taps else legal[0]
    if strength.draw_margin == math.inf and taps:
        legal = taps
        if len(legal) == 1:
            return legal[0]
    known = visible if strength.counts_cards else visible.forgetful()
    values = evaluate(known, sample_stocks(known, strength.samples, rng), legal)
    if taps and math.isfinite(strength.draw_margin) and strength.draw_margin > 0:
        margin = strength.draw_margin
        values = [replace(v, score=v.score - margin) if isinstance(v.action, Draw) else v for v in values]
    return pick(values, strength.temperature, rng)


def pick(values: list[Value], temperature: float, rng: random.Random) -> ActionChoice:
    """The best value (ties: a removal before a draw, then the lowest column), or with a ``temperature``
    a softmax draw over the mean scores."""
    if temperature <= 0:
        best = max(v.score for v in values)
        top = [v.action for v in values if v.score >= best - 1e-9]
        return min(top, key=lambda a: (isinstance(a, Draw), a.column if isinstance(a, Tap) else 0))
    weights = softmax([v.score for v in values], temperature)
    return rng.choices([v.action for v in values], weights=weights, k=1)[0]


def softmax(scores: list[float], temperature: float) -> list[float]:
    top = max(scores)
    exps = [math.exp((s - top) / temperature) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]
