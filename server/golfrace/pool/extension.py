"""The quick-race extension (``EXTENSION``, installed by ``golfrace/server.py`` after the races, whose
service it uses): its handlers and routes (``wire.py``), and the pool's service started and stopped with
the app."""

from __future__ import annotations

from golfrace.http.extension import Extension
from golfrace.live.services import Context

from ..races.extension import race_wire
from . import wire
from .service import PoolService


async def startup(ctx: Context) -> None:
    pool = PoolService(ctx, race_wire(ctx).service, ctx.settings.pool)
    ctx.provide(pool)
    await pool.start()


async def shutdown(ctx: Context) -> None:
    pool = ctx.find(PoolService)
    if pool is not None:
        await pool.close()


EXTENSION = Extension("pool", (wire,), routes=wire.routes, startup=startup, shutdown=shutdown)
