"""The nine-deal course: its code, each hole's code derived from it, strokes, par 45, the to-par and share
texts in the four languages."""

from __future__ import annotations

import hashlib

import pytest

from golfrace.engine import CodeError, Draw, Game, GameCode, Rules, Status, Tap, Undo
from golfrace.engine.codes import LONG_SEED_SPACE, SEED_SPACE
from golfrace.engine.course import (
    HOLE_PAR,
    HOLES,
    PAR,
    CourseCode,
    CourseError,
    Scorecard,
    course_from_entropy,
    daily_share_text,
    random_course,
    share_text,
    strokes,
    to_par_text,
)
from golfrace.engine.i18n import LOCALES
from golfrace.engine.rules import Variants


def test_par_is_the_seeds_45_over_nine_deals() -> None:
    assert (HOLES, HOLE_PAR, PAR) == (9, 5, 45)


@pytest.mark.parametrize(
    ("text", "canonical", "rules", "seed", "long", "variants"),
    [
        ("GC1-E-AAAAAAB", "GC1-E-AAAAAAB", Rules.EASY, 1, False, Variants()),
        ("  gc1-c-golfrce\n", "GC1-C-GOLFRCE", Rules.CLASSIC, 2024960084, False, Variants()),
        ("GC1-N-AAAAAAB", "GC1-E-AAAAAAB", Rules.EASY, 1, False, Variants()),
        ("GC1-E-AAAAAAA-SJ1D", "GC1-E-AAAAAAA-SJ1D", Rules.EASY, 0, False, Variants(True, 1, True)),
        ("GC1-E-" + "A" * 25 + "B", "GC1-E-" + "A" * 25 + "B", Rules.EASY, 1, True, Variants()),
        ("GC1-C-" + "Z" * 26, "GC1-C-" + "Z" * 26, Rules.CLASSIC, LONG_SEED_SPACE - 1, True, Variants()),
    ],
)
def test_parse_and_canonical_form(
    text: str, canonical: str, rules: Rules, seed: int, long: bool, variants: Variants
) -> None:
    course = CourseCode.parse(text)
    assert (course.rules, course.seed, course.long, course.variants) == (rules, seed, long, variants)
    assert str(course) == canonical
    assert CourseCode.parse(canonical) == course


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("GO1-E-AAAAAAB", "prefix"),  # a game code is not a course code
        ("GC2-E-AAAAAAB", "prefix"),
        ("GC1", "prefix"),
        ("GC1-X-AAAAAAB", "rules"),
        ("GC1-E-AAAAAB", "length"),
        ("GC1-E-AAAAAAB-X", "variant"),
        ("GC1-E-AAAAA1B", "character"),
        ("GC1-E-AAAAAAB-S-D", "length"),
    ],
)
def test_bad_course_codes_name_the_part(text: str, part: str) -> None:
    with pytest.raises(CodeError) as info:
        CourseCode.parse(text)
    assert info.value.part == part and info.value.code == "bad_code"
    assert "course code" in info.value.message


def test_a_game_code_is_not_read_as_a_course() -> None:
    with pytest.raises(CodeError):
        GameCode.parse("GC1-E-AAAAAAB")


def reference_hole(course: CourseCode, n: int) -> int:
    """docs/course.md's derivation, written out again from the text."""
    letters = 26 if course.long else 7
    block = b"golfrace-course-v1" + bytes([letters]) + course.seed.to_bytes(16, "big") + bytes([n])
    return int.from_bytes(hashlib.sha256(block).digest(), "big") % (26**letters)


# Pinned vectors: the nine holes of three courses (docs/course.md lists the first).
HOLE_VECTORS = [
    (
        "GC1-E-AAAAAAB",
        "GPKUZSR GXTTUGN DAGGSKE PMNBOOK EYIUHAY VCCPOQR VNMJSSM AFOERVD FGCCSVZ",
    ),
    (
        "GC1-C-GOLFRCE",
        "AFLEFIN SKQSRVT ZBWRBNR GNNERTM TCZBCMR UHMLOOE AYBMNTU LQCYAUL FBWAPSF",
    ),
    (
        "GC1-E-" + "A" * 25 + "B",
        "GXOZREEJNAFDIFHFRKPGVYCPES UWLUEIELVYGTQLJWHNHDMBTOUN WLWTOJKRMCAHNYYAFNPPJESDTD "
        "GDAJSEAYWAPARQGRUUSVVHZOTA DYSLNUCDGZGFNIUEBJNODQKWAM KOPOAUNGOJSECHXAGLKQBDGQUU "
        "HSTQYXGBWWDGDXUBUXZKLEWJRZ DJLGEOQRGWEJUFHPBHVSKVVRXZ NTXBKTSVYBSQKHQWCHAISPROBC",
    ),
]


@pytest.mark.parametrize(("course_text", "letters"), HOLE_VECTORS, ids=[v[0][:13] for v in HOLE_VECTORS])
def test_hole_codes_are_pinned_and_follow_the_documented_derivation(course_text: str, letters: str) -> None:
    course = CourseCode.parse(course_text)
    holes = course.holes
    assert [h.letters for h in holes] == letters.split()
    for n, hole in enumerate(holes, start=1):
        assert hole == course.hole(n)
        assert hole.seed == reference_hole(course, n)
        # a hole keeps the course's rules and variants, and a long course deals long (ranked) holes
        assert (hole.rules, hole.variants, hole.long) == (course.rules, course.variants, course.long)
    assert len(set(holes)) == HOLES


def test_variants_and_rules_pass_to_every_hole() -> None:
    course = CourseCode.parse("GC1-C-AAAAAAA-SJ1D")
    assert all(str(h).startswith("GO1-C-") and str(h).endswith("-SJ1D") for h in course.holes)
    # the rule letter does not enter the deal, as in a game code
    easy = CourseCode.parse("GC1-E-AAAAAAA-SJ1D")
    assert [h.seed for h in easy.holes] == [h.seed for h in course.holes]


def test_a_casual_and_a_long_course_of_one_number_share_no_hole() -> None:
    casual, long = CourseCode(Rules.EASY, 1), CourseCode(Rules.EASY, 1, long=True)
    assert not {h.letters for h in casual.holes} & {h.letters[-7:] for h in long.holes}


@pytest.mark.parametrize("n", [0, 10, -1])
def test_there_are_nine_holes(n: int) -> None:
    with pytest.raises(CourseError):
        CourseCode(Rules.EASY, 1).hole(n)


def test_course_seeds_are_bounded_like_game_codes() -> None:
    with pytest.raises(CodeError):
        CourseCode(Rules.EASY, SEED_SPACE)
    CourseCode(Rules.EASY, SEED_SPACE, long=True)


def test_entropy_and_random_courses() -> None:
    ranked = course_from_entropy(bytes(range(32)), Rules.CLASSIC)
    assert ranked.long and ranked.rules is Rules.CLASSIC
    assert ranked.seed == int.from_bytes(bytes(range(32)), "big") % LONG_SEED_SPACE
    with pytest.raises(ValueError, match="32 bytes"):
        course_from_entropy(b"short")
    assert random_course(long=True).long and not random_course().long
    assert random_course(long=True) != random_course(long=True)


def play_out(code: GameCode) -> Game:
    """Tap the leftmost playable column, else draw, until the deal is over."""
    game = Game.new(code)
    while game.status is Status.PLAYING:
        columns = game.playable_columns()
        game = game.apply(Tap(columns[0] + 1) if columns else Draw())
    return game


# The strokes a simple policy gets on each hole, pinned (real play through the engine).
COURSE_PLAY = [
    ("GC1-E-AAAAAAB", (3, 4, 2, 14, 5, 8, 5, 6, 11), 58, 13),
    ("GC1-C-GOLFRCE", (7, 7, 9, 1, 6, 5, 5, 17, 7), 64, 19),
    ("GC1-E-" + "A" * 25 + "B", (22, 7, 0, 0, 3, 6, 3, 2, 3), 46, 1),
]


@pytest.mark.parametrize(
    ("course_text", "holes", "total", "to_par"), COURSE_PLAY, ids=[c[0][:13] for c in COURSE_PLAY]
)
def test_a_course_played_hole_by_hole(
    course_text: str, holes: tuple[int, ...], total: int, to_par: int
) -> None:
    card = Scorecard(CourseCode.parse(course_text))
    running = 0
    while not card.finished:
        hole = card.next_hole
        assert hole is not None
        game = play_out(hole)
        assert strokes(game) == sum(game.heights)  # the cards left on the tableau
        card = card.record_game(game)
        running += holes[card.played - 1]
        assert card.total == running and card.to_par == running - HOLE_PAR * card.played
    assert card.holes == holes and card.total == total and card.to_par == to_par == total - PAR
    assert card.running[-1] == total and len(card.running) == HOLES
    assert card.next_hole is None
    with pytest.raises(CourseError, match="over"):
        card.record(0)


def test_a_won_hole_is_zero_strokes_and_a_playing_one_has_none() -> None:
    card = Scorecard(CourseCode.parse("GC1-E-" + "A" * 25 + "B"), (22, 7))
    hole3 = card.next_hole
    assert hole3 is not None
    won = play_out(hole3)
    assert won.status is Status.WON and strokes(won) == 0
    assert card.record_game(won).holes == (22, 7, 0)
    fresh = Game.new(hole3)
    with pytest.raises(CourseError):
        strokes(fresh)
    assert strokes(fresh, stopped=True) == 35  # resigned at the deal: every card counts
    assert strokes(fresh.apply(Draw()).apply(Undo()), stopped=True) == 35


def test_a_scorecard_takes_only_its_next_hole() -> None:
    course = CourseCode.parse("GC1-E-AAAAAAB")
    card = Scorecard(course)
    with pytest.raises(CourseError, match="not hole 1"):
        card.record_game(play_out(course.hole(2)))
    with pytest.raises(CourseError, match="not hole 1"):
        card.record_game(play_out(GameCode.parse("GO1-E-AAAAAAB")))


@pytest.mark.parametrize(
    "holes",
    [(36,), (-1,), (0,) * 10],
)
def test_a_scorecard_refuses_impossible_strokes(holes: tuple[int, ...]) -> None:
    with pytest.raises(CourseError):
        Scorecard(CourseCode(Rules.EASY, 1), holes)


@pytest.mark.parametrize(
    ("to_par", "locale", "text"),
    [
        (-3, "en", "\u22123 under par"),
        (2, "en", "+2 over par"),
        (0, "en", "level par"),
        (-3, "he", "\u2066\u22123\u2069 מתחת לפאר"),  # isolated: the minus stays left of 3 in RTL
        (5, "he", "\u2066+5\u2069 מעל הפאר"),
        (-3, "ro", "\u22123 sub par"),
        (-3, "ms", "\u22123 bawah par"),
        (0, "ms", "sama dengan par"),
    ],
)
def test_to_par_text(to_par: int, locale: str, text: str) -> None:
    assert to_par_text(to_par, locale) == text


@pytest.mark.parametrize("locale", LOCALES)
def test_share_text_in_every_language(locale: str) -> None:
    card = Scorecard(CourseCode.parse("GC1-E-AAAAAAB"), (3, 4, 2, 6, 5, 8, 5, 4, 5))
    assert card.total == 42
    text = share_text(card, locale)
    assert "GC1-E-AAAAAAB" in text and "42" in text and "45" in text
    assert "\u22123" in text and "3 4 2 6 5 8 5 4 5" in text
    if locale == "en":
        assert (
            text
            == "Golf Race course GC1-E-AAAAAAB · 42 strokes (\u22123 under par) · par 45 · 3 4 2 6 5 8 5 4 5"
        )
    with pytest.raises(CourseError, match="finished"):
        share_text(Scorecard(card.course, card.holes[:8]), locale)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_daily_share_text_names_the_day_never_the_code(locale: str) -> None:
    holes = (3, 4, 2, 6, 5, 8, 5, 4, 5)
    text = daily_share_text("2027-01-02", holes, locale)
    assert "2027-01-02" in text and "42" in text and "45" in text and "3 4 2 6 5 8 5 4 5" in text
    assert to_par_text(-3, locale) in text and "GC1" not in text
    if locale == "en":
        assert text == (
            "Golf Race daily course 2027-01-02 · 42 strokes (\u22123 under par) · par 45 · 3 4 2 6 5 8 5 4 5"
        )
    with pytest.raises(CourseError, match="finished"):
        daily_share_text("2027-01-02", holes[:8], locale)
