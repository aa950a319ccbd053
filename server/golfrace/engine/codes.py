"""Game codes: ``GO1-<R>-<7 letters>[-<variants>]``.

``R`` is ``E`` (easy) or ``C`` (classic); ``N`` is an old spelling of easy. The seven letters are a base-26
number (``A`` = 0, most significant first). The optional fourth part lists variants in this order: ``S``
(strict), ``J1``/``J2`` (jokers), ``D`` (empty discard). Plain ``GO1-E``/``GO1-C`` codes never carry it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import CodeError
from .rules import MAX_JOKERS, NO_VARIANTS, Rules, Variants

PREFIX = "GO1"
SEED_LETTERS = 7
SEED_SPACE = 26**SEED_LETTERS
RULE_LETTERS = {"E": Rules.EASY, "N": Rules.EASY, "C": Rules.CLASSIC}
CANONICAL_LETTER = {Rules.EASY: "E", Rules.CLASSIC: "C"}
_VARIANT_RE = re.compile(r"(S?)(?:J([0-9]))?(D?)")


@dataclass(frozen=True, slots=True)
class GameCode:
    rules: Rules
    seed: int
    variants: Variants = NO_VARIANTS

    def __post_init__(self) -> None:
        if not 0 <= self.seed < SEED_SPACE:
            raise CodeError(f"seed {self.seed} is outside 0..{SEED_SPACE - 1}", part="length")

    @property
    def letters(self) -> str:
        n, out = self.seed, []
        for _ in range(SEED_LETTERS):
            n, digit = divmod(n, 26)
            out.append(chr(ord("A") + digit))
        return "".join(reversed(out))

    def __str__(self) -> str:
        text = f"{PREFIX}-{CANONICAL_LETTER[self.rules]}-{self.letters}"
        if self.variants.any:
            v = self.variants
            text += (
                "-"
                + ("S" if v.strict else "")
                + (f"J{v.jokers}" if v.jokers else "")
                + ("D" if v.empty_discard else "")
            )
        return text

    def with_rules(self, rules: Rules) -> GameCode:
        return GameCode(rules, self.seed, self.variants)

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
                f"a game code reads {PREFIX}-E-ABCDEFG: prefix, rule letter and {SEED_LETTERS} letters",
                part="length",
            )
        rule_letter, letters = parts[1], parts[2]
        if rule_letter not in RULE_LETTERS:
            raise CodeError(
                f"the rule letter must be E (easy) or C (classic), got {rule_letter!r}", part="rules"
            )
        if len(letters) != SEED_LETTERS:
            raise CodeError(
                f"a game code has {SEED_LETTERS} letters after the rule, got {len(letters)}", part="length"
            )
        seed = 0
        for ch in letters:
            if not "A" <= ch <= "Z":
                raise CodeError(f"only letters A–Z may follow the rule, got {ch!r}", part="character")
            seed = seed * 26 + ord(ch) - ord("A")
        variants = _parse_variants(parts[3]) if len(parts) == 4 else NO_VARIANTS
        return cls(RULE_LETTERS[rule_letter], seed, variants)


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
    """A code for a random integer (the caller owns the randomness, so the engine stays pure)."""
    return GameCode(rules, word % SEED_SPACE, variants)


def random_code(rules: Rules = Rules.EASY, variants: Variants = NO_VARIANTS) -> GameCode:
    """A fresh random code from the operating system's entropy (not from ``random``'s global state)."""
    import secrets

    return GameCode(rules, secrets.randbelow(SEED_SPACE), variants)
