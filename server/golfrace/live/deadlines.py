"""Request deadlines with one timer per event loop (``Dispatch``). Each request runs until its deadline
at most, as under ``asyncio.timeout_at``: at the deadline its task is cancelled, and the ``CancelledError``
that ends the block becomes ``TimeoutError`` (unless someone else cancelled the task too).
``asyncio.timeout_at`` arms and cancels a timer handle per request (~4-8 µs of CPU each, about 5 % of a
move: issue 18.11's profile); here every deadline goes into one heap, and a single timer waits for the
earliest deadline of a request still running. Requests end long before their deadline, so the timer fires
about once per deadline period and drops the finished ones in bulk."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from types import TracebackType

RESOLUTION_S = 0.001
"""A deadline this close is due (event-loop timers may fire this much early: uvloop's are in ms)."""
_RUNNING, _EXPIRING, _OVER = 0, 1, 2


class Deadline:
    """``async with deadlines.at(when):`` the block, cancelled at ``when`` (event-loop time)."""

    __slots__ = ("_book", "_cancelling", "_state", "_task", "when")

    def __init__(self, book: Deadlines, when: float) -> None:
        self._book = book
        self.when = when
        self._task: asyncio.Task[object] | None = None
        self._cancelling = 0
        self._state = _RUNNING

    async def __aenter__(self) -> Deadline:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("a deadline applies to a task")
        self._task = task
        self._cancelling = task.cancelling()
        self._book.add(self)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        state, task = self._state, self._task
        self._state, self._task = _OVER, None  # the heap drops it when its turn comes
        expired = state == _EXPIRING and task is not None and task.uncancel() <= self._cancelling
        if expired and exc_type is asyncio.CancelledError:  # nobody else cancelled it: the deadline passed
            raise TimeoutError from exc

    def expired(self) -> bool:
        return self._state == _EXPIRING

    def expire(self) -> None:
        task = self._task
        if self._state == _RUNNING and task is not None:
            self._state = _EXPIRING
            task.cancel()


class Deadlines:
    """One event loop's deadlines: a heap by deadline, and one timer at the earliest one still running."""

    __slots__ = ("_armed_at", "_heap", "_order", "_timer", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._armed_at = 0.0

    def at(self, when: float) -> Deadline:
        return Deadline(self, when)

    def add(self, deadline: Deadline) -> None:
        when = deadline.when
        heapq.heappush(self._heap, (when, next(self._order), deadline))
        if self._timer is None or when < self._armed_at:
            self._arm(when)

    def pending(self) -> int:
        """Deadlines in the heap (finished ones included until the timer drops them)."""
        return len(self._heap)

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._armed_at = when
        self._timer = self.loop.call_at(when, self._fire)

    def _fire(self) -> None:
        self._timer = None
        heap = self._heap
        due = self.loop.time() + RESOLUTION_S
        while heap:
            when, _order, deadline = heap[0]
            if deadline._state != _RUNNING:  # over (or already expired): dropped
                heapq.heappop(heap)
            elif when <= due:
                heapq.heappop(heap)
                deadline.expire()
            else:  # the earliest request still running: the timer waits for it
                self._arm(when)
                return


_last: Deadlines | None = None


def deadline_at(when: float | None) -> Deadline | asyncio.Timeout:
    """The running loop's deadline at ``when`` (None: none, as ``asyncio.timeout_at(None)``). The book of
    the loop last asked for is kept at hand; another loop gets a book of its own (a replaced book still
    serves the deadlines it holds: its timer is armed on its own loop)."""
    global _last
    if when is None:
        return asyncio.timeout_at(None)
    loop = asyncio.get_running_loop()
    book = _last
    if book is None or book.loop is not loop:
        book = _last = Deadlines(loop)
    return Deadline(book, when)
