"""A human pace for bots: how long a person takes over one move.

A move's time is a log-normal draw (people's response times are skewed: most moves quick, a long tail of
thinking), lengthened by Hick's law when there is more to choose from, with a longer look at the board
before the first move. The figures sit well above the review's human floor (``races.settings``): a bot
paced here is never held for its timing.
"""

from __future__ import annotations

import math
import random

FIRST_LOOK_MS = 1800
"""Median time to take in the 35 cards before the first move."""
MOVE_MEDIAN_MS = 700
"""Median time of one move with a single thing to do."""
SPREAD = 0.45
"""The log-normal's sigma: the 10th–90th percentile of a plain move is ~390–1250 ms."""
HICK_MS = 180
"""Added per doubling of the choices (Hick–Hyman law)."""
FLOOR_MS = 260
"""No move comes faster: a person finds the card, then taps it."""
CEILING_MS = 8000


def move_delay_ms(rng: random.Random, *, first: bool = False, choices: int = 1, tempo: float = 1.0) -> int:
    """Milliseconds to wait before playing a move: ``first`` for the first move after the board is shown,
    ``choices`` the number of legal moves, ``tempo`` > 1 for a slower player (< 1 faster)."""
    if tempo <= 0:
        raise ValueError("tempo must be positive")
    median = (FIRST_LOOK_MS if first else MOVE_MEDIAN_MS) + HICK_MS * math.log2(max(1, choices))
    ms = median * tempo * math.exp(rng.gauss(0.0, SPREAD))
    return int(min(CEILING_MS * tempo, max(FLOOR_MS, ms)))
