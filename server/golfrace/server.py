"""The composition root: the whole product's app, the core with every extension.

The only module that names the extensions (``races``, ``accounts``, ``analysis``, ``course``, ``friends``,
``ghost``): the core (``live``, ``http``) reaches them through the context's typed ports, and each
extension is unaware of the others.
"""

from __future__ import annotations

from golfrace.accounts.routes import EXTENSION as ACCOUNTS
from golfrace.analysis.routes import EXTENSION as ANALYSIS
from golfrace.course.routes import EXTENSION as COURSE
from golfrace.friends.extension import EXTENSION as FRIENDS
from golfrace.ghost.routes import EXTENSION as GHOST
from golfrace.http.app import GolfApp, create_app
from golfrace.http.extension import Extension
from golfrace.live import hints
from golfrace.live.services import Clock, wall_clock
from golfrace.pool.extension import EXTENSION as POOL
from golfrace.races.extension import EXTENSION as RACES
from golfrace.settings import Settings

HINTS = Extension("hints", (hints,), startup=hints.startup, shutdown=hints.shutdown)
"""The solver's hints in solo games (the core's, but optional: an app without them refuses ``hint``)."""
EXTENSIONS: tuple[Extension, ...] = (RACES, HINTS, ACCOUNTS, ANALYSIS, COURSE, POOL, FRIENDS, GHOST)
"""In start-up order: the races first (the accounts' profile reads the daily's streaks, the analysis the
races' records, the course the races' boards), the friends after the races and the accounts (it reaches
both), the ghosts last (they read the races' records and boards and the friends' lists)."""


def product_app(settings: Settings, clock: Clock = wall_clock) -> GolfApp:
    """The app ``golfrace serve`` runs: every extension of the product."""
    return create_app(settings, EXTENSIONS, clock)
