"""Cards and their two-character notation.

Rank ``A23456789TJQK`` + suit ``CDHS``; jokers are ``X1``/``X2``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import CardError

RANKS = "A23456789TJQK"
SUITS = "CDHS"
KING = 13
ACE = 1
JOKER_RANK = 0
JOKER_CODES = ("X1", "X2")


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A playing card. ``rank`` is 1 (Ace) … 13 (King), or 0 for a joker.

    ``suit`` is one of CDHS (``1``/``2`` for jokers).
    """

    rank: int
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @property
    def code(self) -> str:
        if self.is_joker:
            return "X" + self.suit
        return RANKS[self.rank - 1] + self.suit

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``AC``, ``th``, ``KD``, ``X1``… Case and surrounding spaces are ignored."""
        if not isinstance(text, str):
            raise CardError(f"a card must be a string, not {type(text).__name__}", card=repr(text))
        t = text.strip().upper()
        if len(t) != 2:
            raise CardError(f"a card is two characters (rank and suit), got {text!r}", card=text)
        if t in JOKER_CODES:
            return cls(JOKER_RANK, t[1])
        rank, suit = t[0], t[1]
        if rank not in RANKS:
            raise CardError(f"unknown rank {rank!r} in card {text!r}; ranks are {RANKS}", card=text)
        if suit not in SUITS:
            raise CardError(f"unknown suit {suit!r} in card {text!r}; suits are {SUITS}", card=text)
        return cls(RANKS.index(rank) + 1, suit)


def standard_deck() -> tuple[Card, ...]:
    """The 52 cards in suit-major order (AC 2C … KC AD … KS)."""
    return tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))


def jokers(count: int) -> tuple[Card, ...]:
    return tuple(Card(JOKER_RANK, str(i + 1)) for i in range(count))


def parse_cards(texts: str | list[str]) -> tuple[Card, ...]:
    items = texts.split() if isinstance(texts, str) else texts
    return tuple(Card.parse(t) for t in items)
