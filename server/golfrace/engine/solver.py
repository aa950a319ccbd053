"""The exact solver: can this position still be won, how, and how many cards can it clear at best.

``solve(game)`` answers for any position (the start of a deal or a game in progress) under every rule set
and variant. The answer is exact unless the caller's budget runs out (``max_states`` states, or
``max_seconds`` measured with the ``clock`` the caller passes in, since the engine never reads the time):
then ``winnable`` is None and ``best_removed`` is only what was reached so far.

Two searches share the work (see docs/solver.md): a bit-parallel search by stock phases
(``solver_bits``) wherever a draw is always allowed, and a depth-first search for the ``strict`` variant
(``solver_dfs``), whose forced draws break the dominance the first one relies on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import solver_bits, solver_dfs
from .actions import Action
from .codes import GameCode
from .deal import TABLEAU
from .game import POINTS_PER_CARD, Game, Status
from .solver_space import Meter, Position

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class SolveResult:
    """``winnable``: True, False, or None when the budget ran out. ``line``: the actions from the position
    solved to a win, else to the end of a game that removes ``best_removed`` cards (counted from the deal's
    start, so they include the cards already removed). ``states``: positions explored. ``seconds``: by the
    caller's clock, 0.0 without one."""

    winnable: bool | None
    line: tuple[Action, ...]
    best_removed: int
    states: int
    seconds: float

    @property
    def decided(self) -> bool:
        return self.winnable is not None

    @property
    def par(self) -> int:
        """The best score reachable: 350 for a win, else the score of a game stuck at ``best_removed``."""
        return best_score(self.best_removed)


def best_score(removed: int) -> int:
    if removed == TABLEAU:
        return TABLEAU * POINTS_PER_CARD
    return max(0, POINTS_PER_CARD * (removed - (TABLEAU - removed)))


def solve(
    game: Game,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    clock: Clock | None = None,
) -> SolveResult:
    """Solve ``game`` from its current position. Budgets: ``max_states`` positions explored,
    ``max_seconds`` by ``clock`` (required with ``max_seconds``). None means no limit."""
    meter = Meter(max_states, max_seconds, clock)
    status = game.status
    if status is not Status.PLAYING:
        return SolveResult(status is Status.WON, (), game.removed, 0, meter.elapsed())
    search = solver_dfs.search if game.variants.strict else solver_bits.search
    outcome = search(Position.of(game), meter)
    winnable = outcome.won if outcome.complete else None
    return SolveResult(winnable, outcome.line, outcome.best, meter.states, meter.elapsed())


def hint(
    game: Game,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    clock: Clock | None = None,
) -> Action | None:
    """The next move of a winning line from this position, else of a line to the most cards removed
    (None when the game is over). Within a budget, the best line found so far."""
    result = solve(game, max_states=max_states, max_seconds=max_seconds, clock=clock)
    return result.line[0] if result.line else None


def par(code_or_game: GameCode | str | Game) -> int:
    """The best score a deal (or a game from its current position) allows: 350 when it can be won."""
    game = code_or_game if isinstance(code_or_game, Game) else Game.new(code_or_game)
    return solve(game).par
