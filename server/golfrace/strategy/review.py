"""Knowledge review: did a finished game's choices need the hidden stock?

At every decision where the player chose among moves whose outcomes differ under the true stock, two
models of the player are compared on the move actually played:

- **honest**: the player knows what is visible only. The solver values each choice over stock orders
  sampled from the unseen cards (``evaluate``), and the player picks by a softmax over those values
  (``HONEST_TEMPERATURE`` points), with a small share ``SLIP`` of moves at random;
- **informed**: the player knows the stock and picks among the choices that keep the true best outcome,
  also with the slip.

The game's score is the sum over decisions of ``log(P_informed / P_honest)``: the log-likelihood ratio of
the two models, in nats. A player who keeps taking the one branch that wins with this stock, when the
visible cards favour another, piles up positive evidence; one who takes a branch the true stock punishes is
far likelier honest (each such move adds ``log(SLIP)``, without solving the sampled stocks). Decisions
where every choice reaches the same true outcome tell nothing and count zero. ``KNOWLEDGE_THRESHOLD``
(docs/fair-play.md, measured by ``bench/knowledge_review.py``) turns the score into a verdict.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine import Draw, Game, GameCode, Tap, Undo, parse_token
from ..engine.solver import solve
from .choose import softmax
from .evaluate import evaluate, sample_stocks
from .visible import Visible

HONEST_TEMPERATURE = 20.0
"""Points of mean score: how loosely the honest model follows the sampled values (a person reads the
table less well than the solver)."""
SLIP = 0.05
"""The share of moves either model plays at random: a mis-tap, a change of mind."""
REVIEW_SAMPLES = 8
"""Stock orders sampled per decision."""
KNOWLEDGE_THRESHOLD = 6.0
"""Nats of evidence (a likelihood ratio of e**6 ≈ 400 to 1) above which a game is held: the highest honest
game of the calibration (bench/knowledge_review.py, docs/fair-play.md) scored 5.7, none of 84 above it."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One reviewed decision: ``true`` the cards removable after each choice with the true stock, ``seen``
    each choice's mean sampled score (None when the choice played lost something under the true stock:
    no sampling is needed then), ``chosen`` the index of the choice played."""

    move: int  # 0-based index into the log
    chosen: int
    true: tuple[int, ...]
    seen: tuple[float, ...] | None

    @property
    def keeps(self) -> int:
        best = max(self.true)
        return sum(1 for r in self.true if r == best)

    def evidence(self, temperature: float = HONEST_TEMPERATURE, slip: float = SLIP) -> float:
        """``log(P_informed / P_honest)`` of the choice played, in nats."""
        n = len(self.true)
        if self.seen is None:
            return math.log(slip)
        honest = softmax(list(self.seen), temperature)
        p_honest = (1 - slip) * honest[self.chosen] + slip / n
        p_informed = (1 - slip) / self.keeps + slip / n
        return math.log(p_informed / p_honest)


@dataclass(frozen=True, slots=True)
class Review:
    decisions: tuple[Decision, ...]
    complete: bool
    """False when the budget ran out before the last move: ``score`` counts the decisions reviewed."""

    def score_with(self, temperature: float = HONEST_TEMPERATURE, slip: float = SLIP) -> float:
        return sum(d.evidence(temperature, slip) for d in self.decisions)

    @property
    def score(self) -> float:
        return self.score_with()

    @property
    def informative(self) -> int:
        return len(self.decisions)

    def held(self, threshold: float = KNOWLEDGE_THRESHOLD) -> bool:
        return self.score >= threshold


def review(
    code: GameCode | str,
    tokens: Sequence[str],
    rng: random.Random,
    *,
    samples: int = REVIEW_SAMPLES,
    clock: Callable[[], float] | None = None,
    max_seconds: float | None = None,
) -> Review:
    """Review the moves ``tokens`` played from the deal of ``code`` (the reviewer knows the whole deal). With
    ``max_seconds`` (and a ``clock``) it stops between decisions once the budget is spent."""
    if max_seconds is not None and clock is None:
        raise ValueError("max_seconds needs a clock (the strategy package never reads the time itself)")
    start = clock() if clock else 0.0
    game = Game.new(code)
    out: list[Decision] = []
    complete = True
    for i, tok in enumerate(tokens):
        action = parse_token(tok)
        if isinstance(action, Undo):
            game = game.apply(action)
            continue
        if clock is not None and max_seconds is not None and clock() - start > max_seconds:
            complete = False
            break
        legal = [a for a in game.legal_actions() if isinstance(a, Tap | Draw)]
        chosen: Tap | Draw = Tap(action.column) if isinstance(action, Tap) else Draw()
        if len(legal) > 1 and chosen in legal:
            decision = _decide(game, legal, chosen, i, rng, samples)
            if decision is not None:
                out.append(decision)
        game = game.apply(action)
    return Review(tuple(out), complete)


def _decide(
    game: Game, legal: list[Tap | Draw], chosen: Tap | Draw, index: int, rng: random.Random, samples: int
) -> Decision | None:
    true = tuple(solve(game.apply(a)).best_removed for a in legal)
    k = legal.index(chosen)
    if min(true) == max(true):
        return None  # every choice reaches the same true outcome: nothing to learn
    if true[k] < max(true):
        return Decision(index, k, true, None)
    visible = Visible.from_game(game)
    values = evaluate(visible, sample_stocks(visible, samples, rng), legal)
    return Decision(index, k, true, tuple(v.score for v in values))
