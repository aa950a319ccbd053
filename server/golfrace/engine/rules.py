"""Which card may go on which: the Easy/Classic rule and the optional variants."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .cards import ACE, KING, Card


class Rules(StrEnum):
    """``easy`` links King and Ace (Q–K–A–2 is a chain); ``classic`` stops the sequence at both ends."""

    EASY = "easy"
    CLASSIC = "classic"


MAX_JOKERS = 2


@dataclass(frozen=True, slots=True)
class Variants:
    """Options beyond the two rule sets; all off by default and never part of a plain ``GO1-E/C`` code.

    - ``strict``: nothing may go on a King (not even a joker), and drawing is refused while a removal is
      possible.
    - ``jokers``: 0, 1 or 2 jokers join the deck; a joker fits on anything (except a King under strict) and
      anything fits on a joker.
    - ``empty_discard``: the discard starts empty (the stock holds 17 cards) and the first free card the
      player taps, whatever it is, starts it.
    """

    strict: bool = False
    jokers: int = 0
    empty_discard: bool = False

    @property
    def any(self) -> bool:
        return self.strict or self.jokers > 0 or self.empty_discard


NO_VARIANTS = Variants()


def fits(card: Card, discard: Card | None, rules: Rules, variants: Variants = NO_VARIANTS) -> bool:
    """Whether ``card`` may be removed onto ``discard`` (None: an empty discard, which takes anything)."""
    if discard is None:
        return True
    # Strict first: a joker stands for some card, and under strict no card at all goes on a King.
    if variants.strict and discard.rank == KING:
        return False
    if card.is_joker or discard.is_joker:
        return True
    gap = abs(card.rank - discard.rank)
    if gap == 1:
        return True
    return rules is Rules.EASY and gap == KING - ACE
