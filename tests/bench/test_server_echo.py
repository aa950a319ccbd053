"""The bench's baselines (bench/server.py's echo servers: the bare echo, and the echo with one Redis command
per frame through redis-py or the game server's batcher) start, and answer each frame with the same frame
after their Redis command. A smoke test of the floor the bench's ratios are measured against: the batcher's
module path once moved under it (golfrace.store) and the echo phase failed to start, unnoticed."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from golfrace.store.embedded import free_port, terminate

from .bench_modules import bench_module

server = bench_module("server")


@pytest.mark.parametrize("kind", sorted(server.ECHO_KINDS))
async def test_each_echo_baseline_answers_a_frame_with_itself_after_its_redis_command(
    kind: str, redis_url: str
) -> None:
    client = aioredis.Redis.from_url(redis_url)
    before = int(await client.get("bench:echo") or 0)
    port = free_port()
    proc = server.start_echo(port, kind, redis_url)
    try:
        protocols = [Subprotocol("golfrace.msgpack")]
        async with connect(f"ws://127.0.0.1:{port}/ws", subprotocols=protocols) as ws:
            for _ in range(3):
                await ws.send(server.ECHO_FRAME)
                assert await ws.recv() == server.ECHO_FRAME
        after = int(await client.get("bench:echo") or 0)
        assert after - before == (0 if kind == "echo" else 3)
    finally:
        terminate(proc)
        await client.aclose()
