"""Waiting on a condition (never on a wall-clock window): ``until`` polls it with a generous timeout."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

T = 10.0


async def until(condition: Callable[[], bool], what: str, timeout: float = T) -> None:
    """Until ``condition()`` holds (a marker of something done), at most ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.01)


async def until_async(condition: Callable[[], Awaitable[bool]], what: str, timeout: float = T) -> None:
    """As ``until``, for a condition that has to ask (Redis)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        if loop.time() > deadline:
            raise TimeoutError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.01)
