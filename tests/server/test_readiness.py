"""Readiness beside liveness (issue 20.18): ``/healthz`` answers 200 while the process reaches Redis;
``/readyz`` fails while Redis refuses commands (here a real Redis refusing writes: ``min-replicas-to-write``
without a replica answers ``NOREPLICAS``, as a cluster still syncing or down answers ``CLUSTERDOWN``), and
HAProxy (the deployed ``deploy/haproxy.cfg``, on loopback) stops sending players to such an instance."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer, start_test_server
from golfrace_testkit.balancer import Balancer, haproxy_binary
from golfrace_testkit.servers import running_server

T = 10.0


@pytest.fixture
def two_redis(tmp_path: Path) -> Iterator[list[RedisServer]]:
    servers = [start_test_server(tmp_path / n) for n in "ab"]
    try:
        yield servers
    finally:
        for server in servers:
            server.stop()


async def refuse_writes(url: str, refuse: bool) -> None:
    redis = aioredis.Redis.from_url(url)
    try:
        await redis.config_set("min-replicas-to-write", 1 if refuse else 0)
    finally:
        await redis.aclose()


async def test_readiness_fails_while_redis_refuses_commands_and_liveness_does_not(
    settings: Settings, two_redis: list[RedisServer]
) -> None:
    url = two_redis[0].url
    async with (
        running_server(settings.with_(port=0, redis_url=url)) as running,
        httpx.AsyncClient(base_url=running.http, timeout=T) as http,
    ):
        ready = await http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready", ready.text
        await refuse_writes(url, True)
        try:
            assert (await http.get("/healthz")).status_code == 200  # liveness: the process reaches Redis
            refused = await http.get("/readyz")
            assert refused.status_code == 503, refused.text
            body = refused.json()
            assert body["error"] == "unavailable" and body["status"] == "unavailable"
            assert "NOREPLICAS" in body["redis"] and body["refused"] == body["probes"] == 1
        finally:
            await refuse_writes(url, False)
        assert (await http.get("/readyz")).status_code == 200


@pytest.mark.skipif(haproxy_binary() is None, reason="needs haproxy")
async def test_haproxy_sends_players_only_to_instances_whose_redis_takes_commands(
    settings: Settings, two_redis: list[RedisServer], tmp_path: Path
) -> None:
    a_url, b_url = (r.url for r in two_redis)
    async with (
        running_server(settings.with_(port=0, redis_url=a_url)) as a,
        running_server(settings.with_(port=0, redis_url=b_url)) as b,
    ):
        balancer = await asyncio.to_thread(
            Balancer(tmp_path / "haproxy", [a.settings.port, b.settings.port]).start
        )
        try:
            await refuse_writes(a_url, True)
            async with httpx.AsyncClient(base_url=balancer.http, timeout=T) as http:
                loop = asyncio.get_running_loop()
                deadline = loop.time() + T
                answers: list[int] = []
                while answers[-10:] != [200] * 10:  # ten in a row from B: A is out of the balancer
                    assert loop.time() < deadline, f"HAProxy still sends requests to A: {answers[-20:]}"
                    answers.append((await http.get("/readyz")).status_code)
                    await asyncio.sleep(0.05)
        finally:
            await refuse_writes(a_url, False)
            await asyncio.to_thread(balancer.stop)
