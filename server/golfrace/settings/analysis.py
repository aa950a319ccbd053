"""The limits of game analysis (``GOLFRACE_ANALYSIS_<FIELD>``)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import NonNegativeInt, PositiveFloat, PositiveInt


@dataclass(frozen=True, slots=True)
class AnalysisSettings:
    """What one game's analysis may cost the server (``analysis/service.py``)."""

    budget_s: PositiveFloat = 3.0
    """CPU seconds (the worker thread's own ``time.thread_time``) one game's whole analysis may use; the
    positions left when it runs out are shown as unknown. A game of 60 moves takes about 0.1–0.3 s: only
    the first position and those after a move off the solver's line are searched."""
    max_states: PositiveInt = 4_000_000
    """Solver positions one search may explore (a second bound, independent of the clock's)."""
    concurrent: PositiveInt = 1
    """Analyses this process computes at once (each in a worker thread): one keeps a core for play."""
    waiting: NonNegativeInt = 8
    """Analyses that may wait for a free slot; more get ``analysis_busy`` (503) at once, so a burst of
    requests for different games costs a queue this long, never a thread each."""
    cache_ttl_s: PositiveInt = 30 * 24 * 3600
    """Seconds an analysis stays cached (``ana:{<game>}:<version>``): as long as a race's record
    (``GOLFRACE_RACE_RECORD_TTL_S``) and a finished solo game (``GOLFRACE_FINISHED_GAME_TTL``) are kept."""
