"""Game codes: ``GO1-<R>-<7 or 26 letters>[-<variants>]``.

``R`` is ``E`` (easy) or ``C`` (classic); ``N`` is an old spelling of easy. The letters are a base-26 number
(``A`` = 0, most significant first). Seven letters (a 33-bit seed) make a casual code, dealt by SplitMix64;
26 letters (a 122-bit seed) make a long code, dealt from SHA-256 (docs/dealing.md): ranked races and the
daily challenge use long codes, whose deal cannot be found by trying every seed (docs/fair-play.md). The
optional fourth part lists variants in this order: ``S`` (strict), ``J1``/``J2`` (jokers), ``D`` (empty
discard). Plain ``GO1-E``/``GO1-C`` codes never carry it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import CodeError
from .rules import (
    EMPTY_DISCARD_LETTER,
    JOKER_LETTER,
    MAX_JOKERS,
    NO_VARIANTS,
    STRICT_LETTER,
    Rules,
    Variants,
)

PREFIX = "GO1"
SEED_LETTERS = 7
SEED_SPACE = 26**SEED_LETTERS
LONG_SEED_LETTERS = 26
LONG_SEED_SPACE = 26**LONG_SEED_LETTERS
"""About 6.2e36, 2**122.2: the seed space of a long code."""
RULE_LETTERS = {"E": Rules.EASY, "N": Rules.EASY, "C": Rules.CLASSIC}
CANONICAL_LETTER = {Rules.EASY: "E", Rules.CLASSIC: "C"}
_VARIANT_RE = re.compile(rf"({STRICT_LETTER}?)(?:{JOKER_LETTER}([0-9]))?({EMPTY_DISCARD_LETTER}?)")


@dataclass(frozen=True, slots=True)
class GameCode:
    rules: Rules
    seed: int
    variants: Variants = NO_VARIANTS
    long: bool = False
    """A 26-letter code (dealt from SHA-256); the same number as a seven-letter code deals other cards."""

    def __post_init__(self) -> None:
        space = LONG_SEED_SPACE if self.long else SEED_SPACE
        if not 0 <= self.seed < space:
            raise CodeError(f"seed {self.seed} is outside 0..{space - 1}", part="length")

    @property
    def letters(self) -> str:
        n, out = self.seed, []
        for _ in range(LONG_SEED_LETTERS if self.long else SEED_LETTERS):
            n, digit = divmod(n, 26)
            out.append(chr(ord("A") + digit))
        return "".join(reversed(out))

    def __str__(self) -> str:
        text = f"{PREFIX}-{CANONICAL_LETTER[self.rules]}-{self.letters}"
        if self.variants.any:
            v = self.variants
            text += (
                "-"
                + (STRICT_LETTER if v.strict else "")
                + (f"{JOKER_LETTER}{v.jokers}" if v.jokers else "")
                + (EMPTY_DISCARD_LETTER if v.empty_discard else "")
            )
        return text

    def with_rules(self, rules: Rules) -> GameCode:
        return GameCode(rules, self.seed, self.variants, self.long)

    @classmethod
    def parse(cls, text: str) -> GameCode:
        """Read a code; case and surrounding spaces are ignored. Errors name the part that is wrong."""
        if not isinstance(text, str):
            raise CodeError("a game code must be text", part="prefix")
        raw = text.strip().upper()
        parts = raw.split("-")
        if parts[0] != PREFIX:
            raise CodeError(
                f"a game code starts with {PREFIX}- (version 1), got {text.strip()[:12]!r}", part="prefix"
            )
        if len(parts) not in (3, 4):
            raise CodeError(
                f"a game code reads {PREFIX}-E-ABCDEFG: prefix, rule letter and {SEED_LETTERS} letters "
                f"(or {LONG_SEED_LETTERS} for a long code)",
                part="length",
            )
        rule_letter, letters = parts[1], parts[2]
        if rule_letter not in RULE_LETTERS:
            raise CodeError(
                f"the rule letter must be E (easy) or C (classic), got {rule_letter!r}", part="rules"
            )
        if len(letters) not in (SEED_LETTERS, LONG_SEED_LETTERS):
            raise CodeError(
                f"a game code has {SEED_LETTERS} letters after the rule (or {LONG_SEED_LETTERS} for a long "
                f"code), got {len(letters)}",
                part="length",
            )
        seed = 0
        for ch in letters:
            if not "A" <= ch <= "Z":
                raise CodeError(f"only letters A–Z may follow the rule, got {ch!r}", part="character")
            seed = seed * 26 + ord(ch) - ord("A")
        variants = _parse_variants(parts[3]) if len(parts) == 4 else NO_VARIANTS
        return cls(RULE_LETTERS[rule_letter], seed, variants, len(letters) == LONG_SEED_LETTERS)


def _parse_variants(text: str) -> Variants:
    m = _VARIANT_RE.fullmatch(text)
    if not text or m is None:
        raise CodeError(
            f"the variant part lists S, J1 or J2, and D in that order, got {text!r}", part="variant"
        )
    jokers = int(m.group(2) or 0)
    if m.group(2) is not None and not 1 <= jokers <= MAX_JOKERS:
        raise CodeError(f"a code may have J1 or J2, got J{jokers}", part="variant")
    return Variants(strict=bool(m.group(1)), jokers=jokers, empty_discard=bool(m.group(3)))


def code_from_entropy(word: int, rules: Rules = Rules.EASY, variants: Variants = NO_VARIANTS) -> GameCode:
    """A seven-letter code for a random integer (the caller owns the randomness, so the engine stays pure)."""
    return GameCode(rules, word % SEED_SPACE, variants)


def long_code_from_entropy(
    entropy: bytes, rules: Rules = Rules.EASY, variants: Variants = NO_VARIANTS
) -> GameCode:
    """A long code for at least 32 random bytes (an HMAC-SHA256, say): the bytes read as a big-endian
    number modulo 26**26. With 256 bits in, each seed is equally likely to within 2**-134."""
    if len(entropy) < 32:
        raise ValueError(f"a long code needs at least 32 bytes of entropy, got {len(entropy)}")
    return GameCode(rules, int.from_bytes(entropy, "big") % LONG_SEED_SPACE, variants, long=True)


def random_code(rules: Rules = Rules.EASY, variants: Variants = NO_VARIANTS) -> GameCode:
    """A fresh random seven-letter (casual) code from the operating system's entropy (not from
    ``random``'s global state)."""
    import secrets

    return GameCode(rules, secrets.randbelow(SEED_SPACE), variants)


def random_ranked_code(rules: Rules = Rules.EASY, variants: Variants = NO_VARIANTS) -> GameCode:
    """A fresh random long code (122 bits from ``secrets``): for ranked races, whose deal must not be found
    from the cards on show."""
    import secrets

    return GameCode(rules, secrets.randbelow(LONG_SEED_SPACE), variants, long=True)
