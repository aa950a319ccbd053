"""Catalogs and the board description: every locale complete, the wording for the edge cases."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from golfrace.engine import Game, parse_moves
from golfrace.engine.cards import Card, standard_deck
from golfrace.engine.describe import describe, describe_board
from golfrace.engine.errors import REFUSAL_CODES
from golfrace.engine.i18n import LOCALES, UnknownLocale, card_name, catalog, plural_category, refusal_message


def test_locales() -> None:
    assert LOCALES == ("en", "ro", "ms", "he")
    assert [catalog(loc)["dir"] for loc in LOCALES] == ["ltr", "ltr", "ltr", "rtl"]


def keys(value: object, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        return {k for key, v in value.items() for k in keys(v, f"{prefix}.{key}" if prefix else key)}
    return {prefix}


def test_every_catalog_has_the_same_keys_and_every_refusal() -> None:
    english = keys(catalog("en"))
    for locale in LOCALES:
        assert keys(catalog(locale)) == english, locale
        assert set(catalog(locale)["refusal"]) == set(REFUSAL_CODES)
        for code in REFUSAL_CODES:
            assert refusal_message(code, locale).strip()


def test_catalog_files_are_plain_json_for_the_web_client() -> None:
    for locale in LOCALES:
        text = resources.files("golfrace.engine").joinpath("catalogs", f"{locale}.json").read_text("utf-8")
        assert json.loads(text)["locale"] == locale


def test_unknown_locale() -> None:
    with pytest.raises(UnknownLocale) as info:
        catalog("fr")
    assert info.value.code == "bad_locale"


@pytest.mark.parametrize(
    ("card", "en", "ro", "ms", "he"),
    [
        ("AC", "ace of clubs", "as de treflă", "As kelawar", "אס תלתן"),
        ("TS", "10 of spades", "10 de pică", "10 sped", "10 עלה"),
        ("JH", "jack of hearts", "valet de cupă", "Pekak hati", "נסיך לב"),
        ("QD", "queen of diamonds", "damă de caro", "Permaisuri wajik", "מלכה יהלום"),
        ("KC", "king of clubs", "rege de treflă", "Raja kelawar", "מלך תלתן"),
        ("X1", "joker", "joker", "joker", "ג׳וקר"),
    ],
)
def test_card_names(card: str, en: str, ro: str, ms: str, he: str) -> None:
    c = Card.parse(card)
    assert [card_name(c, loc) for loc in LOCALES] == [en, ro, ms, he]


def test_every_card_has_a_distinct_name_in_every_locale() -> None:
    for locale in LOCALES:
        assert len({card_name(c, locale) for c in standard_deck()}) == 52


@pytest.mark.parametrize(
    ("n", "ro", "other"),
    [
        (0, "zero", "zero"),
        (1, "one", "one"),
        (2, "few", "few"),
        (19, "few", "few"),
        (20, "other", "few"),
        (101, "few", "few"),
        (120, "other", "few"),
    ],
)
def test_plural_categories(n: int, ro: str, other: str) -> None:
    assert plural_category(n, "ro") == ro
    assert plural_category(n, "he") == other


ONE_CARD = ((Card.parse("AC"),),) + ((),) * 6
# (start, wording of an empty column): columns 2-7 are empty
EDGE_CASES = {
    "en": (
        "Stock: 1 card; discard: empty. Column 1: ace of clubs (free: ace of clubs); ",
        "column {n}: empty",
    ),
    "ro": (
        "Teanc de tragere: 1 carte; teanc de decartare: gol. "
        "Coloana 1: as de treflă (liberă: as de treflă); ",
        "coloana {n}: goală",
    ),
    "ms": (
        "Timbunan cabutan: 1 kad; timbunan buangan: kosong. Lajur 1: As kelawar (bebas: As kelawar); ",
        "lajur {n}: kosong",
    ),
    "he": ("קופה: קלף אחד; ערימת השלכה: ריקה. טור 1: אס תלתן (פנוי: אס תלתן); ", "טור {n}: ריק"),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_empty_columns_one_card_stock_empty_discard(locale: str) -> None:
    start, empty = EDGE_CASES[locale]
    expected = start + "; ".join(empty.format(n=n) for n in range(2, 8)) + "."
    assert describe_board(ONE_CARD, None, 1, locale) == expected


@pytest.mark.parametrize(
    ("locale", "start"),
    [
        ("en", "Stock: empty; discard: king of spades. Column 1:"),
        ("ro", "Teanc de tragere: gol; teanc de decartare: rege de pică. Coloana 1:"),
        ("ms", "Timbunan cabutan: kosong; timbunan buangan: Raja sped. Lajur 1:"),
        ("he", "קופה: ריקה; ערימת השלכה: מלך עלה. טור 1:"),
    ],
)
def test_empty_stock(locale: str, start: str) -> None:
    cols = tuple((Card.parse("QS"),) for _ in range(7))
    assert describe_board(cols, Card.parse("KS"), 0, locale).startswith(start)


def test_english_and_malay_follow_the_seeds_structure() -> None:
    game = Game.new("GO1-E-AAAAAAB")
    for action in parse_moves("d 5 2"):
        game = game.apply(action)
    assert describe(game, "en") == (
        "Stock: 15 cards; discard: 8 of clubs. Column 1: 6 of clubs, 5 of spades, queen of spades, 10 of "
        "spades, 6 of hearts (free: 6 of hearts); column 2: 2 of spades, king of clubs, 4 of spades, 2 of "
        "clubs (free: 2 of clubs); column 3: 10 of clubs, ace of hearts, 2 of diamonds, 5 of diamonds, "
        "jack of spades (free: jack of spades); column 4: 3 of diamonds, queen of hearts, ace of spades, "
        "king of diamonds, 4 of clubs (free: 4 of clubs); column 5: jack of hearts, 3 of clubs, 7 of "
        "diamonds, 8 of hearts (free: 8 of hearts); column 6: 10 of hearts, 4 of hearts, 7 of hearts, 7 "
        "of clubs, 8 of diamonds (free: 8 of diamonds); column 7: 3 of spades, 7 of spades, 3 of hearts, "
        "9 of spades, 5 of clubs (free: 5 of clubs)."
    )
    assert describe(game, "ms").startswith(
        "Timbunan cabutan: 15 kad; timbunan buangan: 8 kelawar. Lajur 1: 6 kelawar, 5 sped, Permaisuri sped, "
        "10 sped, 6 hati (bebas: 6 hati); lajur 2:"
    )
