"""Dealing a code: the documented shuffle of a fixed base order, laid out as tableau, discard and stock."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, jokers, parse_cards
from .codes import GameCode
from .rng import shuffled

COLUMNS = 7
ROWS = 5
TABLEAU = COLUMNS * ROWS

# The deck in the order the shuffle starts from. Any fixed order deals uniformly random games; this one is
# chosen so that seed 1 (GO1-E-AAAAAAB) deals the rules page's example deal (see docs/dealing.md).
BASE_ORDER: tuple[Card, ...] = parse_cards(
    "QC KD 2D 4D 9S 3S 7S 2H 5S JD 8C 7C 3C 4C 5D 5H QS TC 4S 6C 6H KH 4H KC TD AH "
    "5C AD 9D AS 3D 8S QH TS 6S 8H JS JC 7D 3H QD 9H 8D 2S JH 6D 7H 2C 9C TH KS AC"
)


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one game. ``columns`` list each column top → bottom (the last is the free card);
    ``stock[0]`` is the next card drawn; ``discard`` is None only with the empty-discard variant."""

    code: GameCode
    columns: tuple[tuple[Card, ...], ...]
    discard: Card | None
    stock: tuple[Card, ...]


def deal(code: GameCode) -> Deal:
    """Shuffle ``BASE_ORDER`` (plus any jokers) with the code's seed: positions 0–34 fill the columns
    (column by column, top to bottom), the next position is the discard (unless the discard starts empty),
    and the rest is the stock in drawing order."""
    order = shuffled(BASE_ORDER + jokers(code.variants.jokers), code.seed)
    columns = tuple(tuple(order[c * ROWS : (c + 1) * ROWS]) for c in range(COLUMNS))
    if code.variants.empty_discard:
        return Deal(code, columns, None, tuple(order[TABLEAU:]))
    return Deal(code, columns, order[TABLEAU], tuple(order[TABLEAU + 1 :]))
