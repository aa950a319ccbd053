"""Card notation: two characters, rank A23456789TJQK + suit CDHS; errors say what is wrong."""

from __future__ import annotations

import pytest

from golfrace.engine import Card, CardError
from golfrace.engine.cards import jokers, parse_cards, standard_deck


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("AC", 1, "C"), ("TH", 10, "H"), ("KD", 13, "D"), ("qs", 12, "S"), (" 9c ", 9, "C"), ("X1", 0, "1")],
)
def test_parse(text: str, rank: int, suit: str) -> None:
    assert Card.parse(text) == Card(rank, suit)


@pytest.mark.parametrize("code", [c.code for c in standard_deck()] + ["X1", "X2"])
def test_round_trip(code: str) -> None:
    assert Card.parse(code).code == code
    assert str(Card.parse(code)) == code


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "two characters"),
        ("10H", "two characters"),
        ("A", "two characters"),
        ("1C", "unknown rank '1'"),
        ("ZS", "unknown rank 'Z'"),
        ("AX", "unknown suit 'X'"),
        ("A♣", "unknown suit '♣'"),
        ("X3", "unknown rank 'X'"),
    ],
)
def test_parse_errors_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(CardError, match=fragment) as info:
        Card.parse(text)
    assert info.value.code == "bad_card"


def test_parse_rejects_non_text() -> None:
    with pytest.raises(CardError, match="must be a string"):
        Card.parse(12)  # type: ignore[arg-type]


def test_standard_deck_is_52_distinct_cards_without_jokers() -> None:
    deck = standard_deck()
    assert len(deck) == 52 == len(set(deck))
    assert not any(c.is_joker for c in deck)
    assert deck[0].code == "AC" and deck[12].code == "KC" and deck[-1].code == "KS"


def test_jokers_and_parse_cards() -> None:
    assert [j.code for j in jokers(2)] == ["X1", "X2"]
    assert all(j.is_joker for j in jokers(2))
    assert [c.code for c in parse_cards("ac th x2")] == ["AC", "TH", "X2"]
    assert parse_cards(["KD"]) == (Card(13, "D"),)
