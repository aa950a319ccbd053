"""A server of a test's own on a Redis of its own: for a server whose results wait for the knowledge review
(every instance sweeps the durable "to review" record of its Redis, so a result left pending on the
session's shared Redis would be reviewed, a worker process and seconds of CPU, by every later server), or
whose settings no other test may share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from golfrace.live.services import Clock, wall_clock
from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer, start_test_server
from golfrace_testkit.servers import RunningServer, running_server


@contextmanager
def private_redis(where: Path) -> Iterator[RedisServer]:
    """A throwaway redis-server of a test's (or a module's) own, its files in ``where``."""
    server = start_test_server(where)
    try:
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def own_server(
    settings: Settings, redis_dir: Path, clock: Clock = wall_clock, **changes: Any
) -> AsyncIterator[RunningServer]:
    """An in-process server on a free port and on a private Redis (its files in ``redis_dir``), on ``clock``
    (else real time), with ``changes`` to ``settings`` (``Settings.with_``)."""
    with private_redis(redis_dir) as own:
        mine = settings.with_(port=0, redis_url=own.url, **changes)
        async with running_server(mine, clock=clock) as running:
            yield running
