"""``live/tasks.py``: a task's owner ends it for sure, a cancellation swallowed on the way included (as a
Redis client's timeout firing at the same moment does), and nothing of it is left running."""

from __future__ import annotations

import asyncio

from golfrace.live.tasks import Tasks, end


async def stubborn(swallowed: list[int], started: asyncio.Event | None = None) -> None:
    """Runs on after its first cancellation (swallowed), ends at the second."""
    if started is not None:
        started.set()
    while True:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            if swallowed:
                raise
            swallowed.append(1)


async def test_end_cancels_again_until_the_task_has_ended() -> None:
    swallowed: list[int] = []
    started = asyncio.Event()
    task = asyncio.create_task(stubborn(swallowed, started))
    await started.wait()
    await end(task)
    assert task.cancelled() and swallowed == [1]
    await end(None)  # nothing to end: nothing done


async def test_close_ends_every_task_and_keeps_none() -> None:
    tasks, swallowed = Tasks(), []
    started = asyncio.Event()

    async def waits() -> None:
        started.set()
        await asyncio.Event().wait()

    plain, odd = tasks.spawn(waits()), tasks.spawn(stubborn(swallowed))
    await started.wait()
    assert len(tasks) == 2
    await tasks.close()
    assert plain.cancelled() and odd.cancelled() and len(tasks) == 0 and tasks.closed


async def test_a_task_that_ends_on_its_own_is_let_go() -> None:
    tasks = Tasks()

    async def quick() -> None:
        return None

    task = tasks.spawn(quick())
    await task  # its done callback (given at spawn) runs before this await returns
    assert len(tasks) == 0
