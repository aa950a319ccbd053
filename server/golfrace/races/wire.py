"""Races on the wire: a server extension (see ``app.EXTENSIONS``). Its handlers (``handlers.py``, named here
so that the app's dispatch table finds them) answer the race messages of ``messages.py``;
``startup``/``shutdown`` build and stop the race services with the app's settings and clock; ``routes``
adds the pages and JSON endpoints (``routes.py``).

Where each race rule lives: ``race.py`` and ``racer.py`` (the pure race), ``race_data.py`` (its JSON),
``race_views.py`` (what each audience sees), ``storage.py`` (the race in Redis and its one-slot write),
``service.py`` (transitions and the end), ``seats.py`` (a seat's move: gate and move event),
``followers.py`` (fan-out to connections), ``presence.py`` (watcher counts, lobby presence), ``lobby.py``
(absent racers leave), ``timers.py``, ``daily_race.py``, ``handlers.py``, ``routes.py``; around them
``live.py``, ``pages.py``, ``preview.py``, ``leaderboard.py``, ``daily.py``, ``replay.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac

from ..context import Context
from ..engine import GameCode
from ..moves import SEATS
from . import solving
from .daily import DailyBook
from .followers import RaceWire
from .handlers import (
    on_board_unwatch,
    on_board_watch,
    on_daily,
    on_daily_play,
    on_race_act,
    on_race_join,
    on_race_leave,
    on_race_new,
    on_race_rematch,
    on_race_resign,
    on_race_start,
    on_unwatch,
    on_watch,
)
from .routes import routes
from .seats import SeatRules
from .service import RaceService

__all__ = [
    "on_board_unwatch",
    "on_board_watch",
    "on_daily",
    "on_daily_play",
    "on_race_act",
    "on_race_join",
    "on_race_leave",
    "on_race_new",
    "on_race_rematch",
    "on_race_resign",
    "on_race_start",
    "on_unwatch",
    "on_watch",
    "routes",
    "shutdown",
    "startup",
]


async def startup(ctx: Context) -> None:
    secret = ctx.settings.secret or await ctx.store.shared_secret()
    daily_secret = hmac.new(secret.encode(), b"golfrace daily challenge", hashlib.sha256).digest()
    settings, now = ctx.settings.races, ctx.clock  # injected: the app's settings tree and clock

    def winnable(code: GameCode) -> bool | None:
        return solving.winnable(code, settings.solver_budget_s)

    book = DailyBook(ctx.redis, daily_secret, winnable, settings.daily_max_tries, settings.daily_grace_s)
    ctx.store.clock = now  # one clock for the seats' logs, the gate and the races
    service = RaceService(ctx.redis, ctx.store, settings, book, clock=now, accounts=ctx.settings.accounts)
    wire = RaceWire(ctx, service)
    wire.sweeper = asyncio.create_task(wire.sweep())
    ctx.extras["races"] = wire
    ctx.extras[SEATS] = SeatRules(service, ctx.hub)


async def shutdown(ctx: Context) -> None:
    wire: RaceWire | None = ctx.extras.get("races")
    if wire is None:
        return
    if wire.sweeper is not None:
        wire.sweeper.cancel()
        with contextlib.suppress(BaseException):
            await wire.sweeper
    await wire.service.close()
