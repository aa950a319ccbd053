"""Races on the wire: a server extension (see ``app.EXTENSIONS``). Importing it registers the message
types (below) and their handlers (``handlers.py``); ``startup``/``shutdown`` build and stop the race services
with their settings and clock; ``routes`` adds the pages and JSON endpoints (``routes.py``).

Where each race rule lives: ``race.py`` and ``racer.py`` (the pure race), ``race_data.py`` (its JSON),
``race_views.py`` (what each audience sees), ``storage.py`` (the race in Redis and its one-slot write),
``service.py`` (transitions and the end), ``seats.py`` (a seat's move: gate and move event),
``followers.py`` (fan-out to connections), ``presence.py`` (watcher counts, lobby presence),
``timers.py``, ``daily_race.py``, ``handlers.py``, ``routes.py``; around them ``live.py``, ``pages.py``,
``preview.py``, ``stats.py``, ``leaderboard.py``, ``daily.py``, ``replay.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac

from ..context import Context
from ..engine import GameCode
from ..handlers import SEATS
from ..protocol import ACTION_FIELDS, DEAL_FIELDS, ID_LEN, Field, Spec, register
from . import handlers as _handlers  # noqa: F401  (registers the race handlers)
from . import solving, stats
from .daily import DailyBook
from .followers import RaceWire
from .routes import routes
from .seats import SeatRules
from .service import RaceService
from .settings import DEFAULT_SETTINGS

__all__ = ["routes", "shutdown", "startup"]

RACE = Field("race", str, required=True, max_len=ID_LEN)
NAME = Field("name", str, max_len=DEFAULT_SETTINGS.name_max * 2)
BOARD = Field("board", str, required=True, max_len=64)
register(
    Spec(
        "race_new",
        (
            *DEAL_FIELDS,
            Field("undo", bool),
            Field("limit", int, lo=0, hi=DEFAULT_SETTINGS.max_time_limit_s),
            Field("seats", int, lo=1, hi=DEFAULT_SETTINGS.max_racers),
            NAME,
            Field("rid", str, max_len=ID_LEN),
        ),
    )
)
register(Spec("race_join", (RACE, NAME)))
register(Spec("race_leave", (RACE,)))
register(Spec("race_start", (RACE,)))
register(Spec("race_act", (RACE, *ACTION_FIELDS)))
register(Spec("race_resign", (RACE,)))
register(Spec("race_rematch", (RACE,)))
register(Spec("watch", (RACE,)))
register(Spec("unwatch", (RACE,)))
register(Spec("board_watch", (BOARD,)))
register(Spec("board_unwatch", (BOARD,)))
register(Spec("daily", ()))
register(Spec("daily_play", (NAME,)))


async def startup(ctx: Context) -> None:
    secret = ctx.settings.secret or await ctx.store.shared_secret()
    daily_secret = hmac.new(secret.encode(), b"golfrace daily challenge", hashlib.sha256).digest()
    settings, now = ctx.settings.races, ctx.clock  # injected: the app's settings tree and clock

    def winnable(code: GameCode) -> bool | None:
        return solving.winnable(code, settings.solver_budget_s)

    book = DailyBook(ctx.redis, daily_secret, winnable, settings.daily_max_tries)
    ctx.store.clock = now  # one clock for the seats' logs, the gate and the races
    service = RaceService(ctx.redis, ctx.store, settings, book, clock=now, accounts=ctx.settings.accounts)
    wire = RaceWire(ctx, service)
    wire.sweeper = asyncio.create_task(wire.sweep())
    ctx.extras["races"] = wire
    ctx.extras[SEATS] = SeatRules(service)
    ctx.extras["game_over"] = stats.solo_hook(service.history, service.clock)


async def shutdown(ctx: Context) -> None:
    wire: RaceWire | None = ctx.extras.get("races")
    if wire is None:
        return
    if wire.sweeper is not None:
        wire.sweeper.cancel()
        with contextlib.suppress(BaseException):
            await wire.sweeper
    await wire.service.close()
