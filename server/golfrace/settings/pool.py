"""Named limits of the quick-race pool and its ratings, with their units; ``GOLFRACE_POOL_<FIELD>``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from golfrace.settings.env import env_values


@dataclass(frozen=True, slots=True)
class PoolSettings:
    wave_interval_s: float = 2.0
    """Seconds between two pairing waves of a rule set: long enough to gather seekers, short enough that a
    newcomer waits a few seconds at most."""
    race_min: int = 2
    """Fewest humans a wave puts in a race (a seeker alone waits for more, then for bots)."""
    race_max: int = 4
    """Most racers in a quick race: four boards fit a phone's race view."""
    gap_base: int = 100
    """Rating points two seekers may be apart in their first wave."""
    gap_per_wave: int = 50
    """Rating points the allowed gap widens with each wave a seeker has waited."""
    gap_max: int = 600
    """The widest gap, however long the wait: beyond it a race is no contest, and bots come first."""
    bot_wait_s: float = 6.0
    """Seconds a seeker waits for humans before the pool fills a race with bots of their strength."""
    bot_racers: int = 1
    """Bots seated beside a lone seeker (a race of 2 by default)."""
    time_limit_s: int = 900
    """A quick race's time limit (seconds): nobody waits for a stranger who walked away (a game takes 2–6
    minutes)."""
    bot_move_ms: float = 1_400.0
    """A bot's median time for one move (ms): a person's pace (fair play's review holds anything under
    ``review_median_gap_ms``)."""
    countdown_ms: int = 5_000
    """The countdown of a quick race (ms): time to see whom you race, and for the page to open the race."""
    seeker_stale_s: float = 6.0
    """A seeker whose instance has not stamped them for this long (seconds) is gone (the instance died):
    waves drop them."""
    stamp_interval_s: float = 1.0
    """How often (seconds) each instance re-stamps its seekers and tells them the pool's size."""
    band_width: int = 200
    """Rating points of one pool shard (a Redis key of its own; one Cluster slot each): a pool of 100k
    seekers is spread over ~20 keys per queue instead of one."""
    dodge_limit: int = 3
    """Countdown leaves of quick ranked races within ``dodge_window_s`` that cost nothing (a wrong click, a
    call to answer); each one beyond is rated as a loss (last place)."""
    dodge_window_s: int = 86_400
    """Seconds over which countdown leaves are counted."""
    rating_floor_gap: int = 300
    """Rating points an account may fall below its own peak: deliberate losses do not buy weak opponents."""
    rating_floor: int = 600
    """The lowest rating anyone has."""
    provisional_sigma: float = 4.0
    """A rating is provisional (shown with a "?", off the rating boards, and moving no established rating)
    while openskill's sigma is above this: it starts at 25/3 ≈ 8.3, and 15–30 quick races bring it below
    (fewer against bots, whose strength is known, than against other new players)."""
    history_max: int = 500
    """Rating history points kept per account and rule set."""
    rating_ttl_s: int = 730 * 86_400
    """Seconds an account's rating and history are kept after its last quick race (two years; each race
    moves the expiry on)."""
    review_ttl_s: int = 30 * 86_400
    """Seconds a held rating change (a result held for review) and a fair-play flag are kept."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> PoolSettings:
        return cls(**env_values(cls, "GOLFRACE_POOL_", dict(os.environ) if env is None else env))
