"""The races extension (``EXTENSION``, installed by ``golfrace/server.py``): its handlers (``handlers.py``)
answer the race messages of ``wire/messages.py``; ``startup``/``shutdown`` build and stop the race services
with the app's settings and clock; its routes are the pages and JSON endpoints (``routes.py``,
``daily_stats.py``).

Where each race rule lives: ``race.py`` and ``racer.py`` (the pure race), ``race_data.py`` (its JSON),
``race_views.py`` (what each audience sees), ``storage.py`` (the race in Redis and its one-slot write),
``service.py`` (transitions and the end), ``seats.py`` (a seat's move: gate and move event),
``followers.py`` (fan-out to connections; ``progress_lines.py``: its move events), ``presence.py``
(watcher counts, lobby presence), ``lobby.py`` (absent racers leave), ``timers.py``, ``daily_race.py``,
``handlers.py``, ``routes.py``; around them
``live.py``, ``pages.py``, ``preview.py``, ``leaderboard.py``, ``daily.py``, ``replay.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac

from starlette.routing import BaseRoute

from golfrace.http.extension import Extension
from golfrace.live.services import Clock, Context
from golfrace.live.tasks import end

from ..engine import GameCode
from . import daily_stats, solving
from . import handlers as race_handlers
from .daily import DailyBook, day_of
from .followers import RaceWire
from .routes import routes
from .seats import SeatRules
from .service import RaceService


async def startup(ctx: Context) -> None:
    secret = ctx.settings.secret or await ctx.store.shared_secret()
    daily_secret = hmac.new(secret.encode(), b"golfrace daily challenge", hashlib.sha256).digest()
    settings, now = ctx.settings.races, ctx.clock  # injected: the app's settings tree and clock

    def winnable(code: GameCode) -> bool | None:
        return solving.winnable(code, settings.solver_budget_s)

    book = DailyBook(ctx.redis, daily_secret, winnable, settings.daily_max_tries, settings.daily_grace_s)
    service = RaceService(ctx.redis, ctx.store, settings, book, clock=now, accounts=ctx.settings.accounts)
    wire = RaceWire(ctx, service)
    wire.refresher = asyncio.create_task(wire.refresh_forever(), name="golfrace-race-refresh")
    service.tasks.spawn(service.ending.sweep())  # ends left to finish: now (a restart) and every sweep
    service.tasks.spawn(service.reviews.sweep_forever())  # reviews left pending: likewise (fair play 19.3)
    ctx.provide(wire)
    ctx.seats = SeatRules(service, ctx.hub)
    ctx.streaks = DailyStreaks(book, now)


def race_wire(ctx: Context) -> RaceWire:
    """The races extension's state on an app's context (its service and every local follower)."""
    return ctx.get(RaceWire)


class DailyStreaks:
    """The daily's streaks for the account profile (``Context.streaks``)."""

    def __init__(self, book: DailyBook, clock: Clock) -> None:
        self.book, self.clock = book, clock

    async def streak_of(self, player: str) -> tuple[int, int]:
        streak = await self.book.streak(player)
        return streak.current(day_of(self.clock())), streak.best


async def shutdown(ctx: Context) -> None:
    wire = ctx.find(RaceWire)
    if wire is None:
        return
    wire.shut = True
    await end(wire.refresher)
    await wire.service.close()


def all_routes() -> list[BaseRoute]:
    return [*routes(), *daily_stats.routes()]


EXTENSION = Extension("races", (race_handlers,), all_routes, startup, shutdown)
