"""The pool tests' Redis: the session's real redis-server from tests/conftest.py, database 6, flushed before
each test (the in-process server uses database 0, so its data is never touched)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

RACE_DB = 6


@pytest.fixture
async def rds(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    base = redis_url.rsplit("/", 1)[0] if redis_url.startswith("redis://") else redis_url.split("?")[0]
    url = f"{base}/{RACE_DB}" if redis_url.startswith("redis://") else f"{base}?db={RACE_DB}"
    client = aioredis.Redis.from_url(url, socket_timeout=5)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()
