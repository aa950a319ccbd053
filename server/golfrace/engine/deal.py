"""Dealing a code: the documented shuffle of a fixed base order, laid out as tableau, discard and stock."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, jokers, parse_cards
from .codes import GameCode
from .rng import HashWords, SplitMix64, shuffled

COLUMNS = 7
ROWS = 5
TABLEAU = COLUMNS * ROWS

# The deck in the order the shuffle starts from. Any fixed order deals uniformly random games; this one is
# chosen so that seed 1 (GO1-E-AAAAAAB) deals the rules page's example deal (see docs/dealing.md).
BASE_ORDER: tuple[Card, ...] = parse_cards(
    "4D KD 2D 9D 9S 3S 7S JC 5S AD 8C 7C 3C 4C 5D KH QS TC 4S 6C 6H TD 4H KC KS AH "
    "5C QD 2H AS 3D 8S QH TS 6S 8H JS 9H 7D 3H 5H JD 8D 2S JH QC 7H 2C 9C TH 6D AC"
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
    """Shuffle ``BASE_ORDER`` (plus any jokers) with the code's seed (words from SplitMix64, or from SHA-256
    for a long code): positions 0–34 fill the columns (column by column, top to bottom), the next position is
    the discard (unless the discard starts empty), and the rest is the stock in drawing order."""
    words = HashWords if code.long else SplitMix64
    order = shuffled(BASE_ORDER + jokers(code.variants.jokers), code.seed, words)
    columns = tuple(tuple(order[c * ROWS : (c + 1) * ROWS]) for c in range(COLUMNS))
    if code.variants.empty_discard:
        return Deal(code, columns, None, tuple(order[TABLEAU:]))
    return Deal(code, columns, order[TABLEAU], tuple(order[TABLEAU + 1 :]))
