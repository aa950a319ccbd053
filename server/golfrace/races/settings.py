"""Named limits of races, leaderboards, the daily challenge and replays, with their units."""

from __future__ import annotations

from dataclasses import dataclass

DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class RaceSettings:
    countdown_ms: int = 3_000
    """Time between the host's start and the first allowed move; every client counts down to ``starts_at``."""
    max_racers: int = 8
    """Seats in a race (the host chooses 1..this)."""
    max_time_limit_s: int = 3_600
    """The longest time limit a host may set (seconds); 0 means no limit."""
    name_max: int = 24
    """Longest racer name (characters) after trimming."""
    race_ttl_s: int = 2 * 86_400
    """A race (lobby, running or finished) expires this long after its last change."""
    record_ttl_s: int = 30 * 86_400
    """A finished game's record and move log are kept this long (seconds) for replays."""
    board_page_max: int = 100
    """The most leaderboard entries one request may ask for."""
    board_live_top: int = 10
    """Entries sent to a websocket watcher of a leaderboard on each update."""
    daily_max_tries: int = 64
    """Candidate codes tried per day before giving up on a winnable daily code (solver-checked)."""
    solver_budget_s: float = 2.0
    """Seconds the solver may spend on one par or winnability question."""
    cas_retries: int = 50
    """Optimistic-lock retries for one race update before giving up with an error."""


DEFAULT_SETTINGS = RaceSettings()
