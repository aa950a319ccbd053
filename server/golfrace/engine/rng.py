"""The documented, version-independent shuffle behind game codes (see docs/dealing.md).

SplitMix64 (Steele, Lea and Flood, 2014) generates 64-bit words; bounded integers come from rejection
sampling (no modulo bias); the shuffle is the Fisher–Yates/Durstenfeld shuffle from the last index down.
Nothing here depends on Python's ``random`` module, so a code deals the same cards forever.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


class SplitMix64:
    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

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


def shuffled(items: Sequence[T], seed: int) -> list[T]:
    """Fisher–Yates: for i = n-1 down to 1, swap item i with item ``below(i + 1)``."""
    out = list(items)
    rng = SplitMix64(seed)
    for i in range(len(out) - 1, 0, -1):
        j = rng.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out
