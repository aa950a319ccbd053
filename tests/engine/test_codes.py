"""Game codes GO1-<R>-<7 or 26 letters>[-<variants>]: parsing, canonical form, errors naming the wrong
part; long codes for ranked play."""

from __future__ import annotations

import pytest

from golfrace.engine import CodeError, GameCode, Rules, Variants, random_code, random_ranked_code
from golfrace.engine.codes import (
    LONG_SEED_SPACE,
    SEED_SPACE,
    code_from_entropy,
    long_code_from_entropy,
)


@pytest.mark.parametrize(
    ("text", "canonical", "rules", "seed"),
    [
        ("GO1-E-AAAAAAB", "GO1-E-AAAAAAB", Rules.EASY, 1),
        ("go1-e-aaaaaab", "GO1-E-AAAAAAB", Rules.EASY, 1),
        ("  GO1-C-AAAAAAB\n", "GO1-C-AAAAAAB", Rules.CLASSIC, 1),
        ("GO1-N-AAAAAAB", "GO1-E-AAAAAAB", Rules.EASY, 1),  # an old code with N reads as easy
        ("go1-n-aaaaaab", "GO1-E-AAAAAAB", Rules.EASY, 1),
        ("GO1-E-AAAAAAA", "GO1-E-AAAAAAA", Rules.EASY, 0),
        ("GO1-E-AAAAABA", "GO1-E-AAAAABA", Rules.EASY, 26),  # base 26, most significant letter first
        ("GO1-C-ZZZZZZZ", "GO1-C-ZZZZZZZ", Rules.CLASSIC, 26**7 - 1),
        ("GO1-E-GOLFRCE", "GO1-E-GOLFRCE", Rules.EASY, 2024960084),
    ],
)
def test_parse_and_canonical_form(text: str, canonical: str, rules: Rules, seed: int) -> None:
    code = GameCode.parse(text)
    assert (code.rules, code.seed, code.variants) == (rules, seed, Variants())
    assert str(code) == canonical
    assert GameCode.parse(str(code)) == code


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("", "prefix"),
        ("GO2-E-AAAAAAB", "prefix"),
        ("G01-E-AAAAAAB", "prefix"),  # zero instead of the letter O
        ("GOLF-E-AAAAAAB", "prefix"),
        ("AAAAAAB", "prefix"),
        ("GO1-X-AAAAAAB", "rules"),
        ("GO1-EASY-AAAAAAB", "rules"),
        ("GO1--AAAAAAB", "rules"),
        ("GO1-E-AAAAAA", "length"),
        ("GO1-E-AAAAAABA", "length"),
        ("GO1-E-" + "A" * 25, "length"),
        ("GO1-E-" + "A" * 27, "length"),
        ("GO1-E-" + "A" * 25 + "1", "character"),
        ("GO1-E-" + "A" * 26 + "-DS", "variant"),
        ("GO1-E", "length"),
        ("GO1-E-AAA-AAA-B-C", "length"),
        ("GO1-E-AAAAA1B", "character"),
        ("GO1-E-AAAAÉAB", "character"),
        ("GO1-E-AAA AAB", "character"),
        ("GO1-E-AAAAAAB-", "variant"),
        ("GO1-E-AAAAAAB-X", "variant"),
        ("GO1-E-AAAAAAB-J3", "variant"),
        ("GO1-E-AAAAAAB-J0", "variant"),
        ("GO1-E-AAAAAAB-DS", "variant"),  # variants come in the order S, J, D
        ("GO1-E-AAAAAAB-SS", "variant"),
    ],
)
def test_errors_name_the_wrong_part(text: str, part: str) -> None:
    with pytest.raises(CodeError) as info:
        GameCode.parse(text)
    assert info.value.part == part
    assert info.value.code == "bad_code"
    assert info.value.params["part"] == part
    assert str(info.value)  # a message a person can act on


def test_non_text_is_a_code_error() -> None:
    with pytest.raises(CodeError):
        GameCode.parse(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "canonical", "variants"),
    [
        ("GO1-E-ABCDEFG-SJ2D", "GO1-E-ABCDEFG-SJ2D", Variants(strict=True, jokers=2, empty_discard=True)),
        ("go1-n-abcdefg-s", "GO1-E-ABCDEFG-S", Variants(strict=True)),
        ("GO1-C-ABCDEFG-J1", "GO1-C-ABCDEFG-J1", Variants(jokers=1)),
        ("GO1-E-ABCDEFG-D", "GO1-E-ABCDEFG-D", Variants(empty_discard=True)),
        ("GO1-E-ABCDEFG-SD", "GO1-E-ABCDEFG-SD", Variants(strict=True, empty_discard=True)),
    ],
)
def test_variant_codes(text: str, canonical: str, variants: Variants) -> None:
    code = GameCode.parse(text)
    assert code.variants == variants
    assert code.variants.any
    assert str(code) == canonical
    assert GameCode.parse(canonical) == code


def test_plain_codes_never_carry_a_variant_part() -> None:
    assert str(GameCode(Rules.CLASSIC, 1)) == "GO1-C-AAAAAAB"
    assert not GameCode.parse("GO1-C-AAAAAAB").variants.any


def test_with_rules_keeps_seed_and_variants() -> None:
    code = GameCode.parse("GO1-E-ABCDEFG-J1")
    assert str(code.with_rules(Rules.CLASSIC)) == "GO1-C-ABCDEFG-J1"


@pytest.mark.parametrize("seed", [-1, SEED_SPACE])
def test_seed_out_of_range(seed: int) -> None:
    with pytest.raises(CodeError):
        GameCode(Rules.EASY, seed)


def test_random_code_is_valid_and_varies() -> None:
    codes = {str(random_code()) for _ in range(20)}
    assert len(codes) > 1
    for text in codes:
        assert GameCode.parse(text).rules is Rules.EASY
        assert len(text) == len("GO1-E-AAAAAAB")
    assert random_code(Rules.CLASSIC).rules is Rules.CLASSIC
    assert random_code(variants=Variants(jokers=1)).variants.jokers == 1


def test_code_from_entropy_wraps_into_the_seed_space() -> None:
    assert code_from_entropy(SEED_SPACE + 5).seed == 5
    assert str(code_from_entropy(1, Rules.CLASSIC)) == "GO1-C-AAAAAAB"


LONG_ONE = "GO1-E-" + "A" * 25 + "B"


@pytest.mark.parametrize(
    ("text", "canonical", "seed", "variants"),
    [
        (LONG_ONE, LONG_ONE, 1, Variants()),
        (LONG_ONE.lower(), LONG_ONE, 1, Variants()),
        ("GO1-N-" + "A" * 25 + "B", LONG_ONE, 1, Variants()),
        ("GO1-C-" + "Z" * 26, "GO1-C-" + "Z" * 26, LONG_SEED_SPACE - 1, Variants()),
        (
            "GO1-E-GOLFRACEGOLFRACEGOLFRACEGO-SJ1D",
            "GO1-E-GOLFRACEGOLFRACEGOLFRACEGO-SJ1D",
            1552065576459493111429486291755980522,
            Variants(strict=True, jokers=1, empty_discard=True),
        ),
    ],
)
def test_long_codes(text: str, canonical: str, seed: int, variants: Variants) -> None:
    code = GameCode.parse(text)
    assert (code.seed, code.variants, code.long) == (seed, variants, True)
    assert str(code) == canonical
    assert GameCode.parse(str(code)) == code
    assert code.with_rules(Rules.CLASSIC).long


def test_a_long_code_is_not_its_short_twin() -> None:
    short, long = GameCode.parse("GO1-E-AAAAAAB"), GameCode.parse(LONG_ONE)
    assert short.seed == long.seed and short != long
    assert not short.long


def test_long_seed_space_is_at_least_122_bits() -> None:
    assert LONG_SEED_SPACE >= 2**122
    with pytest.raises(CodeError):
        GameCode(Rules.EASY, LONG_SEED_SPACE, long=True)
    with pytest.raises(CodeError):
        GameCode(Rules.EASY, SEED_SPACE)  # a short code's seed stays below 26**7


def test_random_ranked_code_is_long_and_varies() -> None:
    codes = {str(random_ranked_code()) for _ in range(20)}
    assert len(codes) == 20
    for text in codes:
        code = GameCode.parse(text)
        assert code.long and code.rules is Rules.EASY
        assert len(text) == len(LONG_ONE)
    assert random_ranked_code(Rules.CLASSIC, Variants(jokers=2)).variants.jokers == 2


def test_long_code_from_entropy() -> None:
    assert long_code_from_entropy(bytes(31) + b"\x01").seed == 1
    assert long_code_from_entropy(b"\xff" * 32).seed == (2**256 - 1) % LONG_SEED_SPACE
    with pytest.raises(ValueError):
        long_code_from_entropy(b"\x01" * 16)
