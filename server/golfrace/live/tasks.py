"""Background tasks with an owner (``Tasks``): each one referenced while it runs, and all of them ended by
their owner's shutdown (cancelled, then awaited), so that no task outlives the app that started it."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["RECANCEL_S", "Tasks", "end"]

RECANCEL_S = 0.5
"""How long a cancelled task gets to end before it is cancelled again: a cancellation can be swallowed on the
way (a Redis client's timeout that fires at the same moment), and the task then runs on as if none came."""


async def end(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` and await its end (cancelled again every ``RECANCEL_S`` while it runs on); its own
    failure is its to log. The caller's own cancellation still reaches the caller."""
    while task is not None and not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=RECANCEL_S)


class Tasks:
    """The running background tasks of one owner (an extension's service, the hint queue, the moves of an
    app): ``spawn`` keeps each until it ends; ``close`` cancels those left and awaits them all."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self.closed = False

    def spawn(self, coro: Coroutine[Any, Any, None], name: str | None = None) -> asyncio.Task[None]:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    async def wait(self, timeout: float) -> None:
        """Give the running tasks up to ``timeout`` seconds to end on their own (what they do is worth
        finishing: what follows a move), then leave them to ``close``."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    async def close(self) -> None:
        """Cancel every task still running and await them all (each one's own failure is its to log)."""
        self.closed = True
        while self._tasks:  # a task ending may spawn another, one may swallow its cancel: until none is left
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks, timeout=RECANCEL_S)
