"""Request deadlines (``live/deadlines.py``): what ``asyncio.timeout_at`` does per request, with one timer for
all of a loop's requests."""

from __future__ import annotations

import asyncio

import pytest

from golfrace.live.deadlines import Deadlines, deadline_at

pytestmark = pytest.mark.timeout(30)


async def test_a_block_past_its_deadline_ends_in_timeout_error_and_the_task_is_not_left_cancelled() -> None:
    loop = asyncio.get_running_loop()
    with pytest.raises(TimeoutError):
        async with deadline_at(loop.time() + 0.05):
            await asyncio.sleep(10)
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    await asyncio.sleep(0)  # still runnable: no cancellation left behind


async def test_a_block_that_ends_in_time_is_not_cancelled_later() -> None:
    loop = asyncio.get_running_loop()
    async with deadline_at(loop.time() + 0.05) as deadline:
        await asyncio.sleep(0)
    await asyncio.sleep(0.15)  # its deadline passed meanwhile: nothing happens to this task
    assert not deadline.expired()


async def test_deadlines_expire_in_their_order_whatever_the_order_they_came_in() -> None:
    loop = asyncio.get_running_loop()
    book = Deadlines(loop)
    ended: dict[str, float] = {}

    async def request(name: str, after: float) -> None:
        try:
            async with book.at(loop.time() + after):
                await asyncio.sleep(10)
        except TimeoutError:
            ended[name] = loop.time()

    start = loop.time()
    late = asyncio.create_task(request("late", 0.4))
    await asyncio.sleep(0.01)
    early = asyncio.create_task(request("early", 0.1))  # earlier than the one the timer waits for
    await asyncio.gather(late, early)
    assert ended["early"] < ended["late"]
    assert ended["early"] - start + 0.002 >= 0.1 and ended["early"] - start < 0.35
    assert ended["late"] - start >= 0.4 - 0.002
    assert book.pending() == 0


async def test_finished_requests_are_dropped_in_bulk_by_the_one_timer() -> None:
    loop = asyncio.get_running_loop()
    book = Deadlines(loop)
    for _ in range(100):
        async with book.at(loop.time() + 0.05):
            await asyncio.sleep(0)
    assert book.pending() == 100  # nothing per request: the timer drops them
    await asyncio.sleep(0.1)
    assert book.pending() == 0


async def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    loop = asyncio.get_running_loop()
    entered = asyncio.Event()

    async def request() -> None:
        async with deadline_at(loop.time() + 0.05):
            entered.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(request())
    await entered.wait()
    task.cancel()  # before the deadline: the caller's cancellation, not a timeout
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_no_deadline_is_no_limit() -> None:
    async with deadline_at(None):
        await asyncio.sleep(0.01)
