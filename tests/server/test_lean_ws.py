"""The minimal queue and event that replace asyncio's in the websocket protocol (lean_ws.py)."""

from __future__ import annotations

import asyncio

import pytest

from golfrace.lean_ws import Gate, Inbox

pytestmark = pytest.mark.timeout(10)


async def test_inbox_is_fifo_waits_and_survives_a_cancelled_get() -> None:
    inbox = Inbox()
    assert inbox.empty()
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    getter = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not getter.done()
    for item in (1, 2, 3):
        inbox.put_nowait(item)
    assert await asyncio.wait_for(getter, 1) == 1
    assert inbox.qsize() == 2 and not inbox.empty()
    assert [await asyncio.wait_for(inbox.get(), 1) for _ in range(2)] == [2, 3]
    assert inbox.empty()


async def test_gate_blocks_until_set() -> None:
    gate = Gate()
    waiters = [asyncio.create_task(gate.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters) and not gate.is_set()
    gate.set()
    assert await asyncio.wait_for(asyncio.gather(*waiters), 1) == [True, True, True]
    gate.clear()
    late = asyncio.create_task(gate.wait())
    await asyncio.sleep(0)
    assert not late.done()
    gate.set()
    assert await asyncio.wait_for(late, 1)
