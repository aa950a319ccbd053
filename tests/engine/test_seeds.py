"""Every worked example of the rules page (the seeds in ro, ms, he), replayed on the engine.

The expected texts are the seeds' own sentences, embedded here character for character so that the tests do
not depend on ../shared. The Easy-win/Classic-loss search itself is in test_solver.py.
"""

from __future__ import annotations

import pytest

from golfrace.engine import Draw, Game, Refusal, Status, Tap, parse_moves, token
from golfrace.engine.cards import Card
from golfrace.engine.describe import describe
from golfrace.engine.i18n import refusal_message, stuck_message

EXAMPLE = "GO1-E-AAAAAAB"
OPENING = "d 5 2"  # draw 8S, 9C from column 5 onto it, then 8C from column 2 onto the 9C
# A winning game of the example deal found by a depth-first search and checked by these tests: it opens with
# the seeds' opening, then 34 actions in all (24 removals, 10 draws) lead to the seeds' move-35 position;
# move 35 takes AH from column 3 onto KC, and 13 more actions (10 removals, 3 draws) win.
TO_MOVE_35 = "d 5 2 d 7 4 d 5 5 6 6 1 6 d d 3 1 7 d 1 4 4 2 5 2 3 d 4 d 7 3 d d 2"
MOVE_35 = "3"
TO_THE_WIN = "2 4 6 1 1 7 d 3 5 6 d d 7"

RO_START = (
    "Teanc de tragere: 16 cărți; teanc de decartare: as de treflă. Coloana 1: 6 de treflă, 5 de pică, "
    "damă de pică, 10 de pică, 6 de cupă (liberă: 6 de cupă); coloana 2: 2 de pică, rege de treflă, 4 "
    "de pică, 2 de treflă, 8 de treflă (liberă: 8 de treflă); coloana 3: 10 de treflă, as de cupă, 2 de "
    "caro, 5 de caro, valet de pică (liberă: valet de pică); coloana 4: 3 de caro, damă de cupă, as de "
    "pică, rege de caro, 4 de treflă (liberă: 4 de treflă); coloana 5: valet de cupă, 3 de treflă, 7 de "
    "caro, 8 de cupă, 9 de treflă (liberă: 9 de treflă); coloana 6: 10 de cupă, 4 de cupă, 7 de cupă, 7 "
    "de treflă, 8 de caro (liberă: 8 de caro); coloana 7: 3 de pică, 7 de pică, 3 de cupă, 9 de pică, 5 "
    "de treflă (liberă: 5 de treflă)."
)
RO_OPENING = (
    "Teanc de tragere: 15 cărți; teanc de decartare: 8 de treflă. Coloana 1: 6 de treflă, 5 de pică, "
    "damă de pică, 10 de pică, 6 de cupă (liberă: 6 de cupă); coloana 2: 2 de pică, rege de treflă, 4 "
    "de pică, 2 de treflă (liberă: 2 de treflă); coloana 3: 10 de treflă, as de cupă, 2 de caro, 5 de "
    "caro, valet de pică (liberă: valet de pică); coloana 4: 3 de caro, damă de cupă, as de pică, rege "
    "de caro, 4 de treflă (liberă: 4 de treflă); coloana 5: valet de cupă, 3 de treflă, 7 de caro, 8 de "
    "cupă (liberă: 8 de cupă); coloana 6: 10 de cupă, 4 de cupă, 7 de cupă, 7 de treflă, 8 de caro "
    "(liberă: 8 de caro); coloana 7: 3 de pică, 7 de pică, 3 de cupă, 9 de pică, 5 de treflă (liberă: 5 "
    "de treflă)."
)
RO_MOVE_35 = (
    "Teanc de tragere: 6 cărți; teanc de decartare: rege de treflă. Coloana 1: 6 de treflă, 5 de pică "
    "(liberă: 5 de pică); coloana 2: 2 de pică (liberă: 2 de pică); coloana 3: 10 de treflă, as de cupă "
    "(liberă: as de cupă); coloana 4: 3 de caro (liberă: 3 de caro); coloana 5: valet de cupă (liberă: "
    "valet de cupă); coloana 6: 10 de cupă, 4 de cupă (liberă: 4 de cupă); coloana 7: 3 de pică, 7 de "
    "pică (liberă: 7 de pică)."
)
HE_START = (
    "קופה: 16 קלפים; ערימת השלכה: אס תלתן. טור 1: 6 תלתן, 5 עלה, מלכה עלה, 10 עלה, 6 לב (פנוי: 6 לב); "
    "טור 2: 2 עלה, מלך תלתן, 4 עלה, 2 תלתן, 8 תלתן (פנוי: 8 תלתן); טור 3: 10 תלתן, אס לב, 2 יהלום, 5 "
    "יהלום, נסיך עלה (פנוי: נסיך עלה); טור 4: 3 יהלום, מלכה לב, אס עלה, מלך יהלום, 4 תלתן (פנוי: 4 "
    "תלתן); טור 5: נסיך לב, 3 תלתן, 7 יהלום, 8 לב, 9 תלתן (פנוי: 9 תלתן); טור 6: 10 לב, 4 לב, 7 לב, 7 "
    "תלתן, 8 יהלום (פנוי: 8 יהלום); טור 7: 3 עלה, 7 עלה, 3 לב, 9 עלה, 5 תלתן (פנוי: 5 תלתן)."
)
HE_OPENING = (
    "קופה: 15 קלפים; ערימת השלכה: 8 תלתן. טור 1: 6 תלתן, 5 עלה, מלכה עלה, 10 עלה, 6 לב (פנוי: 6 לב); "
    "טור 2: 2 עלה, מלך תלתן, 4 עלה, 2 תלתן (פנוי: 2 תלתן); טור 3: 10 תלתן, אס לב, 2 יהלום, 5 יהלום, "
    "נסיך עלה (פנוי: נסיך עלה); טור 4: 3 יהלום, מלכה לב, אס עלה, מלך יהלום, 4 תלתן (פנוי: 4 תלתן); טור "
    "5: נסיך לב, 3 תלתן, 7 יהלום, 8 לב (פנוי: 8 לב); טור 6: 10 לב, 4 לב, 7 לב, 7 תלתן, 8 יהלום (פנוי: 8 "
    "יהלום); טור 7: 3 עלה, 7 עלה, 3 לב, 9 עלה, 5 תלתן (פנוי: 5 תלתן)."
)
HE_MOVE_35 = (
    "קופה: 6 קלפים; ערימת השלכה: מלך תלתן. טור 1: 6 תלתן, 5 עלה (פנוי: 5 עלה); טור 2: 2 עלה (פנוי: 2 "
    "עלה); טור 3: 10 תלתן, אס לב (פנוי: אס לב); טור 4: 3 יהלום (פנוי: 3 יהלום); טור 5: נסיך לב (פנוי: "
    "נסיך לב); טור 6: 10 לב, 4 לב (פנוי: 4 לב); טור 7: 3 עלה, 7 עלה (פנוי: 7 עלה)."
)


def play(code: str, moves: str) -> Game:
    game = Game.new(code)
    for action in parse_moves(moves):
        game = game.apply(action)
    return game


def cards(game: Game) -> list[list[str]]:
    return [[c.code for c in col] for col in game.columns]


def test_start_position() -> None:
    game = Game.new(EXAMPLE)
    assert game.discard == Card.parse("AC")
    assert (game.stock_count, game.score, game.moves, game.status) == (16, 0, 0, Status.PLAYING)
    assert game.playable_columns() == []  # "no free card follows the AC": the player must draw
    assert game.legal_actions() == [Draw()]


def test_opening_gives_the_second_position() -> None:
    game = Game.new(EXAMPLE).apply(Draw())
    assert game.discard == Card.parse("8S")
    game = game.apply(Tap(5))
    assert game.discard == Card.parse("9C")  # one rank higher
    game = game.apply(Tap(2))
    assert game.discard == Card.parse("8C")  # one rank lower than the 9C
    assert (game.stock_count, game.score, game.moves, game.status) == (15, 20, 3, Status.PLAYING)
    assert cards(game) == [
        ["6C", "5S", "QS", "TS", "6H"],
        ["2S", "KC", "4S", "2C"],
        ["TC", "AH", "2D", "5D", "JS"],
        ["3D", "QH", "AS", "KD", "4C"],
        ["JH", "3C", "7D", "8H"],
        ["TH", "4H", "7H", "7C", "8D"],
        ["3S", "7S", "3H", "9S", "5C"],
    ]
    assert play(EXAMPLE, OPENING) == game


@pytest.mark.parametrize(
    ("moves", "locale", "expected"),
    [
        ("", "ro", RO_START),
        (OPENING, "ro", RO_OPENING),
        (TO_MOVE_35, "ro", RO_MOVE_35),
        ("", "he", HE_START),
        (OPENING, "he", HE_OPENING),
        (TO_MOVE_35, "he", HE_MOVE_35),
    ],
    ids=["ro-start", "ro-opening", "ro-move35", "he-start", "he-opening", "he-move35"],
)
def test_descriptions_equal_the_seeds(moves: str, locale: str, expected: str) -> None:
    assert describe(play(EXAMPLE, moves), locale) == expected


REFUSALS = {
    "ro": ("Trebuie să aibă o valoare cu o treaptă mai mare sau mai mică", "Această carte este blocată"),
    "ms": ("Mesti satu pangkat lebih tinggi atau lebih rendah", "Kad ini terhalang"),
    "he": ("חייב להיות גבוה או נמוך בדרגה אחת", "הקלף הזה חסום"),
    "en": ("Must be one rank higher or lower", "This card is blocked"),
}


@pytest.mark.parametrize("locale", sorted(REFUSALS))
def test_refusal_examples(locale: str) -> None:
    game = Game.new(EXAMPLE)
    # 6H, the free card of column 1, over the AC
    with pytest.raises(Refusal) as info:
        game.apply(Tap(1))
    assert info.value.code == "not_adjacent"
    assert info.value.params == {"column": 1, "card": "6H", "discard": "AC"}
    assert refusal_message(info.value.code, locale) == REFUSALS[locale][0]
    # the 10S on row 4 of column 1, still covered
    with pytest.raises(Refusal) as info:
        game.apply(Tap(1, 4))
    assert info.value.code == "blocked"
    assert refusal_message(info.value.code, locale) == REFUSALS[locale][1]


@pytest.mark.parametrize(
    ("locale", "text"),
    [
        ("ro", "Nu mai există mutări posibile"),
        ("ms", "Tiada lagi langkah yang boleh dibuat"),
        ("he", "אין עוד מהלכים אפשריים"),
        ("en", "No more moves possible"),
    ],
)
def test_stuck_message(locale: str, text: str) -> None:
    assert stuck_message(locale) == text


def test_the_winning_line_starts_with_the_seeds_opening() -> None:
    moves = TO_MOVE_35.split()
    assert moves[:3] == OPENING.split()
    assert len(moves) == 34 and moves.count("d") == 10
    assert play(EXAMPLE, " ".join(moves[:3])) == play(EXAMPLE, OPENING)


@pytest.mark.parametrize(("locale", "expected"), [("ro", RO_MOVE_35), ("he", HE_MOVE_35)])
def test_the_winning_line_passes_through_the_seeds_move_35_position(locale: str, expected: str) -> None:
    game = Game.new(EXAMPLE)
    for n, action in enumerate(parse_moves(TO_MOVE_35), start=1):
        game = game.apply(action)
        assert game.moves == n and game.undos == 0
    assert describe(game, locale) == expected
    assert game.moves == 34  # so the next move, AH onto KC, is move 35


def test_move_35_position_and_the_ace_on_the_king() -> None:
    game = play(EXAMPLE, TO_MOVE_35)
    assert (game.moves, game.removed, game.drawn, game.stock_count) == (34, 24, 10, 6)
    assert game.discard == Card.parse("KC")
    assert game.score == 240
    assert cards(game) == [["6C", "5S"], ["2S"], ["TC", "AH"], ["3D"], ["JH"], ["TH", "4H"], ["3S", "7S"]]
    after = game.apply(Tap(int(MOVE_35)))
    assert after.discard == Card.parse("AH") and after.moves == 35 and after.score == 250
    assert cards(after)[2] == ["TC"]


def test_move_35_is_refused_under_classic_rules() -> None:
    easy = play(EXAMPLE, TO_MOVE_35)
    state = easy.to_state() | {"code": "GO1-C-AAAAAAB"}
    classic = Game.from_state(state)
    assert classic.columns == easy.columns and classic.discard == easy.discard
    with pytest.raises(Refusal) as info:
        classic.apply(Tap(3))
    assert info.value.code == "not_adjacent"
    assert info.value.params["card"] == "AH" and info.value.params["discard"] == "KC"


def test_the_line_through_move_35_wins_with_350() -> None:
    game = play(EXAMPLE, " ".join([TO_MOVE_35, MOVE_35, TO_THE_WIN]))
    assert game.status is Status.WON
    assert (game.score, game.moves, game.removed, game.undos) == (350, 48, 35, 0)
    assert game.stock_count == 3  # won with cards left in the stock: they add nothing
    with pytest.raises(Refusal) as info:
        game.apply(Draw())
    assert info.value.code == "game_over"


def test_the_line_is_one_of_the_searched_ones() -> None:
    """A tiny search from the seeds' opening (columns never below their move-35 height, at most 10 draws)
    reaches the move-35 position with KC on the discard: it is reachable, not only by the hard-coded line."""
    target = (2, 1, 2, 1, 1, 2, 2)
    seen: set[tuple[object, ...]] = set()

    def search(game: Game, path: tuple[str, ...]) -> tuple[str, ...] | None:
        key = (game.heights, game.drawn, game.discard)
        if key in seen:
            return None
        seen.add(key)
        if game.heights == target and game.drawn == 10:
            return path if game.discard == Card.parse("KC") else None
        for c in game.playable_columns():
            if game.heights[c] > target[c] and (found := search(game.apply(Tap(c + 1)), (*path, str(c + 1)))):
                return found
        if game.drawn < 10:
            return search(game.apply(Draw()), (*path, token(Draw())))
        return None

    found = search(play(EXAMPLE, OPENING), tuple(OPENING.split()))  # after the seeds' opening
    assert found is not None and len(found) == 34
    assert describe(play(EXAMPLE, " ".join(found)), "ro") == RO_MOVE_35
