"""The documented, version-independent shuffle behind game codes (see docs/dealing.md).

Two sources of 64-bit words: SplitMix64 (Steele, Lea and Flood, 2014) for the seven-letter codes, whose
seed fits its 64-bit state, and SHA-256 in counter mode (``HashWords``) for the long codes, whose 122-bit
seed would not. Bounded integers come from rejection sampling (no modulo bias); the shuffle is the
Fisher–Yates/Durstenfeld shuffle from the last index down. Nothing here depends on Python's ``random``
module, so a code deals the same cards forever.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
HASH_DOMAIN = b"golfrace-deal-v1"
"""The first bytes hashed into every block of a long code's word stream (docs/dealing.md, section 9)."""
HASH_SEED_BYTES = 16


class Words:
    """A source of 64-bit words and the bounded integers drawn from them."""

    def next_u64(self) -> int:
        raise NotImplementedError

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``.

        Words at or above the largest multiple of ``bound`` below 2**64 are redrawn (no modulo bias).
        """
        if not 0 < bound <= 1 << 64:
            raise ValueError(f"bound must be in 1..2**64, got {bound}")
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            word = self.next_u64()
            if word < limit:
                return word % bound


class SplitMix64(Words):
    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


class HashWords(Words):
    """SHA-256 in counter mode: block k is ``SHA-256(HASH_DOMAIN || seed as 16 bytes || k as 8 bytes)``,
    all big-endian, and each block gives four words (its bytes 0–7, 8–15, 16–23, 24–31, big-endian)."""

    def __init__(self, seed: int) -> None:
        if not 0 <= seed < 1 << (8 * HASH_SEED_BYTES):
            raise ValueError(f"a hashed seed must fit in {HASH_SEED_BYTES} bytes, got {seed}")
        self.prefix = HASH_DOMAIN + seed.to_bytes(HASH_SEED_BYTES, "big")
        self.block = 0
        self.pending: list[int] = []

    def next_u64(self) -> int:
        if not self.pending:
            digest = hashlib.sha256(self.prefix + self.block.to_bytes(8, "big")).digest()
            self.block += 1
            self.pending = [int.from_bytes(digest[i : i + 8], "big") for i in (24, 16, 8, 0)]
        return self.pending.pop()


def shuffled(items: Sequence[T], seed: int, words: Callable[[int], Words] = SplitMix64) -> list[T]:
    """Fisher–Yates: for i = n-1 down to 1, swap item i with item ``below(i + 1)``; one fresh word source
    (``words(seed)``) per shuffle."""
    out = list(items)
    rng = words(seed)
    for i in range(len(out) - 1, 0, -1):
        j = rng.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out
