"""The variants (docs/variants.md): strict, jokers, empty discard. Off by default; plain codes unchanged."""

from __future__ import annotations

import pytest

from golfrace.engine import Draw, Game, GameCode, Refusal, Rules, Status, Tap, Undo, Variants, parse_moves
from golfrace.engine.cards import Card
from golfrace.engine.describe import describe
from golfrace.engine.rules import fits

STRICT = Variants(strict=True)
JOKERS = Variants(jokers=1)


def play(code: str, moves: str) -> Game:
    game = Game.new(code)
    for action in parse_moves(moves):
        game = game.apply(action)
    return game


def test_variants_are_off_by_default() -> None:
    assert Variants() == Variants(strict=False, jokers=0, empty_discard=False)
    assert not Variants().any
    assert Game.new("GO1-E-AAAAAAB").variants == Variants()


@pytest.mark.parametrize(
    ("card", "discard", "rules", "variants", "expected"),
    [
        ("QH", "KC", Rules.EASY, STRICT, False),  # strict: nothing on a King, not even a Queen
        ("QH", "KC", Rules.CLASSIC, STRICT, False),
        ("AH", "KC", Rules.EASY, STRICT, False),
        ("KH", "QC", Rules.CLASSIC, STRICT, True),  # a King still goes on a Queen
        ("KH", "AC", Rules.EASY, STRICT, True),  # and, in easy, on an Ace
        ("KH", "AC", Rules.CLASSIC, STRICT, False),
        ("9H", "8C", Rules.EASY, STRICT, True),
        ("X1", "8C", Rules.CLASSIC, JOKERS, True),  # a joker goes on anything
        ("X1", "KC", Rules.CLASSIC, JOKERS, True),
        ("8C", "X2", Rules.CLASSIC, JOKERS, True),  # and anything on a joker
        ("KC", "X1", Rules.CLASSIC, JOKERS, True),
        ("X1", "KC", Rules.EASY, Variants(strict=True, jokers=1), False),  # strict wins on a King
        ("KC", "X1", Rules.EASY, Variants(strict=True, jokers=1), True),
    ],
)
def test_fits_with_variants(
    card: str, discard: str, rules: Rules, variants: Variants, expected: bool
) -> None:
    assert fits(Card.parse(card), Card.parse(discard), rules, variants) is expected


def test_empty_discard_takes_anything() -> None:
    for card in ("AC", "KD", "7H", "X1"):
        assert fits(Card.parse(card), None, Rules.CLASSIC)


def test_strict_draw_only_when_no_removal_is_possible() -> None:
    game = play("GO1-E-AAAAAAB-S", "")
    assert game.legal_actions() == [Draw()]  # nothing fits the AC: drawing is allowed
    game = game.apply(Draw())
    assert game.legal_actions() == [Tap(5)]  # 9C fits the 8S: no draw offered
    with pytest.raises(Refusal) as info:
        game.apply(Draw())
    assert info.value.code == "must_remove"
    # the same position without strict lets you draw
    assert play("GO1-E-AAAAAAB", "d d").discard == Card.parse("6D")


def test_strict_nothing_on_a_king_in_play() -> None:
    game = play("GO1-E-AAAAAAB-S", "d 5 2")  # strict deals the same cards: the opening plays the same
    assert game.score == 20
    plain = play("GO1-E-AAAAAAB", "d 5 2")
    assert plain.columns == game.columns and plain.discard == game.discard
    # after 34 plain moves the discard is KC and AH is free in column 3: strict refuses it even in easy
    line = "d 5 2 d 7 4 d 5 5 6 6 1 6 d d 3 1 7 d 1 4 4 2 5 2 3 d 4 d 7 3 d d 2"
    easy = play("GO1-E-AAAAAAB", line)
    strict = Game.from_state(easy.to_state() | {"code": "GO1-E-AAAAAAB-S"})
    assert strict.discard == Card.parse("KC")
    with pytest.raises(Refusal) as info:
        strict.apply(Tap(3))
    assert info.value.code == "not_adjacent"
    assert strict.playable_columns() == []
    assert strict.legal_actions() == [Draw()]  # nothing to remove, so strict allows the draw


def test_jokers_join_the_deck() -> None:
    for n in (1, 2):
        game = Game.new(f"GO1-E-ABCDEFG-J{n}")
        assert game.stock_count == 16 + n
        cards = [c for col in game.columns for c in col] + list(game.deal.stock) + [game.discard]
        assert sum(1 for c in cards if c is not None and c.is_joker) == n
        assert len(set(cards)) == 52 + n


def test_playing_a_joker() -> None:
    game = Game.new("GO1-E-BCDEFGH-J1")
    assert game.free_card(5) == Card.parse("X1") and game.discard == Card.parse("2H")
    game = game.apply(Tap(6))  # the joker goes on the 2H
    assert game.discard == Card.parse("X1") and game.score == 10
    assert game.playable_columns() == [0, 1, 2, 3, 4, 5, 6]  # and every free card goes on the joker
    game = game.apply(Tap(1))
    assert game.discard == Card.parse("6D")
    assert (
        describe(Game.new("GO1-E-BCDEFGH-J1"), "en").count("joker") == 2
    )  # in column 6 and as its free card


def test_empty_discard() -> None:
    game = Game.new("GO1-E-AAAAAAB-D")
    assert game.discard is None and game.stock_count == 17
    assert game.columns == Game.new("GO1-E-AAAAAAB").columns
    assert game.playable_columns() == list(range(7))  # the player picks the first card
    first = game.apply(Tap(1))
    assert first.discard == Card.parse("6H") and first.score == 10
    assert first.apply(Undo()).discard is None
    drawn = game.apply(Draw())  # or starts the discard from the stock
    assert drawn.discard == Card.parse("AC") and drawn.stock_count == 16
    assert describe(game, "en").startswith("Stock: 17 cards; discard: empty. Column 1:")
    assert describe(game, "ro").startswith("Teanc de tragere: 17 cărți; teanc de decartare: gol. Coloana 1:")


def test_strict_with_empty_discard_must_pick_a_card_first() -> None:
    game = Game.new("GO1-E-AAAAAAB-SD")
    with pytest.raises(Refusal) as info:
        game.apply(Draw())
    assert info.value.code == "must_remove"


def test_variant_game_plays_to_an_end() -> None:
    game = Game.new("GO1-C-BCDEFGH-SJ1D")
    while game.status is Status.PLAYING:
        game = game.apply(game.legal_actions()[0])
    assert game.status in (Status.WON, Status.STUCK)
    assert 0 <= game.score <= 350


def test_variant_code_round_trip_through_state() -> None:
    game = play("GO1-C-BCDEFGH-SJ1D", "6")
    assert str(game.code) == "GO1-C-BCDEFGH-SJ1D"
    assert Game.from_state(game.to_state()) == game
    assert GameCode.parse(game.to_state()["code"]).variants == Variants(
        strict=True, jokers=1, empty_discard=True
    )
