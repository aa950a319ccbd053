"""Which card may go on which: the Easy/Classic rule and the optional variants."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from .cards import ACE, KING, Card


class Rules(StrEnum):
    """``easy`` links King and Ace (Q–K–A–2 is a chain); ``classic`` stops the sequence at both ends."""

    EASY = "easy"
    CLASSIC = "classic"


RULES = tuple(r.value for r in Rules)
"""The rule sets' wire form, in order (``easy``, ``classic``): the messages' choices and the web client's."""
DEFAULT_RULES = Rules.EASY
"""The rules of a random deal when a message names none."""
MAX_JOKERS = 2
VARIANT_FLAGS = ("strict", "empty_discard")
"""The variants that are on or off; ``jokers`` is a count (0 to ``MAX_JOKERS``)."""
STRICT_LETTER = "S"
JOKER_LETTER = "J"
EMPTY_DISCARD_LETTER = "D"
"""Each variant's letter in a game code's variant part (``-SJ1D``: strict, one joker, empty discard)."""
VARIANT_LETTERS = {"strict": STRICT_LETTER, "jokers": JOKER_LETTER, "empty_discard": EMPTY_DISCARD_LETTER}
"""The letters by variant, for the web client (its generated messages.js builds its code patterns)."""


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

    def wire(self) -> dict[str, bool | int]:
        """The variants' one wire form: ``{"strict": bool, "jokers": int, "empty_discard": bool}``."""
        return {"strict": self.strict, "jokers": self.jokers, "empty_discard": self.empty_discard}

    @classmethod
    def from_wire(cls, value: object) -> Variants:
        """The variants of a wire form (``wire``; a key left out is off), or ValueError saying why not."""
        if not isinstance(value, Mapping):
            raise ValueError("variants must be a map")
        out: dict[str, bool | int] = {}
        for key, val in value.items():
            if key in VARIANT_FLAGS:
                if not isinstance(val, bool):
                    raise ValueError(f"variants.{key} must be true or false")
                out[key] = val
            elif key == "jokers":
                if isinstance(val, bool) or not isinstance(val, int) or not 0 <= val <= MAX_JOKERS:
                    raise ValueError(f"variants.jokers must be 0 to {MAX_JOKERS}")
                out[key] = val
            else:
                raise ValueError(f"unknown variant {str(key)[:20]!r}")
        return cls(
            bool(out.get("strict", False)), int(out.get("jokers", 0)), bool(out.get("empty_discard", False))
        )


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
