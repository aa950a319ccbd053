"""The solver's view of a position: ranks only, heights packed into one integer, a budget to stop on.

A position's columns are described by their heights ``h_0 … h_6`` (0–5 cards each). The solvers pack
them into one index ``sum(h_c * 6**c)``: removing the free card of column ``c`` subtracts ``6**c``. The
bit-parallel search keeps *sets* of such indices as Python integers (bit ``i`` set = heights ``i``
reached); the masks built here select the indices whose column ``c`` has a given height, or whose heights
add up to a given total.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from .cards import Card
from .deal import COLUMNS, ROWS, TABLEAU
from .game import Game
from .rules import Rules, Variants, fits

RADIX = ROWS + 1
SPACE: int = RADIX**COLUMNS
STRIDE = tuple(RADIX**c for c in range(COLUMNS))
RANKS = 14  # 0 is a joker (or the empty discard: both take any card), 1–13 Ace…King
WILD = 0


def pack(heights: tuple[int, ...]) -> int:
    return sum(h * s for h, s in zip(heights, STRIDE, strict=True))


def unpack(index: int) -> tuple[int, ...]:
    out = []
    for _ in range(COLUMNS):
        index, h = divmod(index, RADIX)
        out.append(h)
    return tuple(out)


@cache
def slabs() -> tuple[tuple[int, ...], ...]:
    """``slabs()[c][v]``: the set of all indices whose base-6 digit ``c`` is ``v``."""
    out = []
    for c in range(COLUMNS):
        width = STRIDE[c]
        row = []
        for v in range(RADIX):
            mask = ((1 << width) - 1) << (v * width)
            span = width * RADIX
            while span < SPACE:  # repeat the block for every value of the higher columns
                mask |= mask << span
                span *= 2
            row.append(mask & ((1 << SPACE) - 1))
        out.append(tuple(row))
    return tuple(out)


@cache
def levels() -> tuple[int, ...]:
    """``levels()[s]``: the set of all indices whose base-6 digits add up to ``s`` (0 … 35)."""
    slab = slabs()
    by_sum = list(slab[0])  # sums over column 0 only
    for c in range(1, COLUMNS):
        nxt = [0] * (TABLEAU + 1)
        for s, mask in enumerate(by_sum):
            if mask:
                for v in range(RADIX):
                    nxt[s + v] |= mask & slab[c][v]
        by_sum = nxt
    return tuple(by_sum)


def rank_of(card: Card | None) -> int:
    return WILD if card is None else card.rank


@cache
def successors(rules: Rules, variants: Variants) -> tuple[tuple[int, ...], ...]:
    """``successors(...)[r]``: the ranks that may be removed onto a discard of rank ``r`` (0: joker/empty).

    Derived from ``rules.fits`` so that the solver can never disagree with the engine."""
    reps = [Card(0, "1")] + [Card(r, "C") for r in range(1, RANKS)]
    out = []
    for top in range(RANKS):
        discard = None if top == WILD else reps[top]
        out.append(tuple(q for q in range(RANKS) if fits(reps[q], discard, rules, variants)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Position:
    """What the solver needs of a game: column ranks (top → bottom), stock ranks, heights, drawn, discard."""

    columns: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    heights: tuple[int, ...]
    drawn: int
    top: int
    succ: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, game: Game) -> Position:
        d = game.deal
        return cls(
            columns=tuple(tuple(c.rank for c in col) for col in d.columns),
            stock=tuple(c.rank for c in d.stock),
            heights=game.heights,
            drawn=game.drawn,
            top=rank_of(game.discard),
            succ=successors(game.rules, game.variants),
        )


class Meter:
    """Counts states against the caller's budget; reads the clock only through the injected callable."""

    def __init__(
        self, max_states: int | None, max_seconds: float | None, clock: Callable[[], float] | None
    ) -> None:
        if max_seconds is not None and clock is None:
            raise ValueError("max_seconds needs a clock (the engine never reads the time itself)")
        self.max_states = max_states
        self.max_seconds = max_seconds
        self.clock = clock
        self.start = clock() if clock else 0.0
        self.states = 0

    def elapsed(self) -> float:
        return self.clock() - self.start if self.clock else 0.0

    def exhausted(self) -> bool:
        if self.max_states is not None and self.states > self.max_states:
            return True
        return self.max_seconds is not None and self.elapsed() > self.max_seconds
