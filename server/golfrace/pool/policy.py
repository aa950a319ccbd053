"""How a bot of the quick races plays, and at what pace: the strategy's (``golfrace.strategy``: the solver on
stock orders sampled from what the player has seen, never the stock itself), with the quick races' names and
ratings of its levels. Pure (no I/O); the server's bot seats (``bots.py``) run ``choose_bot_move`` in a worker
thread, since a level that samples solves a few positions a move.
"""

from __future__ import annotations

import math
import random
import statistics

from golfrace import strategy
from golfrace.engine import Action, Game

from .ratings import SCALE

STRENGTHS = tuple(sorted(strategy.STRENGTHS))
"""Bot levels, weakest first (``strategy.STRENGTHS``)."""
MEASURED: dict[int, tuple[float, float]] = {
    1: (-5.7, 6.6),
    2: (23.4, 6.2),
    3: (25.5, 6.3),
    4: (38.0, 6.6),
    5: (45.5, 6.7),
}
"""Each level's openskill rating (mu, sigma) measured by bot-vs-bot races (``bench/bot_ladder.py``: 18 races
of the five levels on one deal each; docs/bots.md has the run, its figures and how to repeat it)."""


def merged(measured: dict[int, tuple[float, float]]) -> dict[int, int]:
    """Each level's rating (display points, the human scale: openskill's prior mu 25 is 1500 on both) from
    the measurement. Neighbouring levels whose mu are less than one standard deviation of their difference
    apart (``hypot(sigma_a, sigma_b)``) were not told apart by the races: they share one rating, the mean of
    their mu, and the pool seats the cheaper of them (``strength_for``: the weaker level on a tie)."""
    groups: list[list[int]] = []
    for level in sorted(measured):
        if groups:
            (mu_a, sd_a), (mu_b, sd_b) = measured[groups[-1][-1]], measured[level]
            if abs(mu_b - mu_a) < math.hypot(sd_a, sd_b):
                groups[-1].append(level)
                continue
        groups.append([level])
    out = {}
    for group in groups:
        mu = statistics.fmean(measured[level][0] for level in group)
        out.update(dict.fromkeys(group, round(mu * SCALE)))
    return out


LADDER = merged(MEASURED)
"""Each level's rating (display points) for pairing and for rating a human against it: the measured ladder,
levels that could not be told apart merged (docs/bots.md)."""
NAMES = ("Ada", "Bea", "Cleo", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivo", "Jo", "Kit", "Lou")


def strength_for(rating: int) -> int:
    """The bot level nearest a seeker's rating (of levels sharing one, the weaker: the cheaper to run)."""
    return min(STRENGTHS, key=lambda s: (abs(LADDER[s] - rating), s))


def bot_name(level: int, rng: random.Random) -> str:
    return f"{rng.choice(NAMES)} (bot {level})"


def choose_bot_move(game: Game, level: int, rng: random.Random) -> Action:
    """The bot's move from what its player has seen (``Visible.from_game`` reads the stock only up to the
    cards drawn); ``strategy.choose`` never depends on the undealt order."""
    return strategy.choose(strategy.Visible.from_game(game), strategy.strength(level), rng)


def pace_ms(level: int, rng: random.Random, median_ms: float, choices: int = 1, first: bool = False) -> int:
    """A person's time for one move (``strategy.move_delay_ms``: its shape, floor and ceiling included),
    scaled so that its median is about ``median_ms`` (``PoolSettings.bot_move_ms``)."""
    ms = strategy.move_delay_ms(rng, first=first, choices=choices)
    return int(ms * median_ms / strategy.pace.MOVE_MEDIAN_MS)
