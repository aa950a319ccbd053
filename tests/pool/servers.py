"""The pool tests' server: quick waves and bots (``FAST``), one proxy believed (each client names its network
by X-Forwarded-For), on a Redis of its own, so that no other server of the session takes its pending
reviews (every instance sweeps its Redis's "to review" record)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from golfrace.live.services import Clock, wall_clock
from golfrace.settings import Settings
from golfrace.settings.pool import PoolSettings
from golfrace.settings.races import RaceSettings
from golfrace_testkit.servers import RunningServer

from ..own_server import own_server

FAST = PoolSettings(
    wave_interval_s=0.2,
    stamp_interval_s=0.2,
    bot_wait_s=1.5,
    countdown_ms=600,
    bot_move_ms=40.0,
    seeker_stale_s=3.0,
    dodge_limit=1,
)


@asynccontextmanager
async def pool_server(
    settings: Settings,
    redis_dir: Path,
    races: RaceSettings,
    clock: Clock = wall_clock,
    pool: PoolSettings = FAST,
) -> AsyncIterator[RunningServer]:
    """A pool server with ``races``' fair-play settings, on the clock given (else real time)."""
    async with own_server(settings, redis_dir, clock, pool=pool, trusted_proxies=1, races=races) as running:
        yield running
