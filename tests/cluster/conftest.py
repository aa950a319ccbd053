"""A real deployment on loopback for the cluster tests: a 3-master + 3-replica Redis Cluster (Debian's
redis-server >= 7), three ``golfrace serve`` processes on it and HAProxy in front (``deploy/haproxy.cfg``).
Started once for the package; a test that kills a part starts it again before it ends.

Without redis-server >= 7 or haproxy the tests are skipped, except in CI (``CI=true``), where that fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from golfrace.live.limits import GENEROUS
from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.balancer import Balancer, haproxy_binary
from golfrace_testkit.cluster import LocalCluster, cluster_binaries
from golfrace_testkit.servers import RunningServer, start_process, stop_process

from ..conftest import TEST_SECRET

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (make pytest: --dist loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The cluster tests share one deployment (package scope): under pytest-xdist they run on one worker,
    which starts it once, rather than one deployment per worker."""
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.xdist_group("cluster"))


INSTANCES = 3
T = 10.0  # seconds: the longest a single wait may take
INSTANCE_ENV = {
    "GOLFRACE_RACE_WATCHER_REFRESH_S": "0.3",
    # quick races (test_cluster_pool.py): quick waves, bots soon, bots that finish within seconds
    "GOLFRACE_POOL_WAVE_INTERVAL_S": "0.5",
    "GOLFRACE_POOL_BOT_WAIT_S": "2",
    "GOLFRACE_POOL_BOT_MOVE_MS": "60",
    "GOLFRACE_POOL_COUNTDOWN_MS": "800",
    "GOLFRACE_RACE_WATCHER_STALE_S": "1.5",
    # the daily test signs players up through HAProxy (public boards take accounts only): all from loopback,
    # with cheap password hashes
    "GOLFRACE_ACCOUNT_SIGNUPS_PER_IP": "1000",
    "GOLFRACE_ACCOUNT_PASSWORD_MEMORY_KIB": "8192",
    "GOLFRACE_ACCOUNT_PASSWORD_TIME_COST": "1",
    "GOLFRACE_ACCOUNT_PASSWORD_PARALLELISM": "1",
    "GOLFRACE_RACE_COUNTDOWN_MS": "500",  # processes keep real time: a short countdown, waited for
}


def missing() -> str | None:
    if cluster_binaries() is None:
        return "redis-server and redis-cli >= 7.0"
    if haproxy_binary() is None:
        return "haproxy"
    return None


@dataclass
class Deployment:
    cluster: LocalCluster
    settings: Settings
    servers: list[RunningServer]
    balancer: Balancer
    tmp: Path
    clients: list[Client] = field(default_factory=list)

    def connections(self) -> list[int]:
        """Open websockets per instance, as each one's /healthz says (-1: not answering)."""
        out = []
        for server in self.servers:
            try:
                with urllib.request.urlopen(server.http + "/healthz", timeout=2) as resp:
                    out.append(int(json.loads(resp.read())["connections"]))
            except OSError:
                out.append(-1)
        return out

    async def connect(self, **kwargs: Any) -> tuple[Client, int]:
        """A greeted client through HAProxy, and the index of the instance that serves it."""
        before = await asyncio.to_thread(self.connections)
        client = Client(self.balancer.ws, **kwargs)
        self.clients.append(client)
        await client.start(T)
        for _ in range(100):
            after = await asyncio.to_thread(self.connections)
            grew = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if b > a]
            if len(grew) == 1:
                return client, grew[0]
            await asyncio.sleep(0.05)
        raise AssertionError(f"no single instance took the connection: {before} → {after}")

    async def connect_on(self, spread: list[int | None], **kwargs: Any) -> list[Client]:
        """Clients through HAProxy, one per entry, each on a different instance than the others (HAProxy's
        leastconn spreads them; an extra connection is made and kept when one lands on a taken instance, for
        up to ``T`` seconds: an instance that still holds an earlier test's closing connections, or that
        HAProxy's health check found slow on a loaded machine, gets the next ones only a little later)."""
        out: list[Client] = []
        used: set[int] = set()
        loop = asyncio.get_running_loop()
        for _ in spread:
            deadline = loop.time() + T
            while True:
                client, where = await self.connect(**kwargs)
                if where not in used:
                    used.add(where)
                    out.append(client)
                    break
                if loop.time() > deadline:
                    raise AssertionError(f"HAProxy kept sending connections to instances {sorted(used)}")
                await asyncio.sleep(0.1)
        return out

    def start_server(self, index: int) -> None:
        old = self.servers[index]
        log = self.tmp / f"server{index}.log"
        self.servers[index] = start_process(old.settings, env=INSTANCE_ENV, log=log)

    async def close_clients(self) -> None:
        for client in self.clients:
            await client.close()
        self.clients.clear()


@pytest.fixture(scope="package")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    lack = missing()
    if lack is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the cluster tests need {lack} (CI installs it: .ci/run)")
        pytest.skip(f"the cluster tests need {lack}")
    local = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    try:
        yield local
    finally:
        local.stop()


@pytest.fixture(scope="package")
async def deployment(
    cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Deployment]:
    tmp = tmp_path_factory.mktemp("deployment")
    settings = Settings(
        host="127.0.0.1",
        port=0,
        redis_url=cluster.url,
        secret=TEST_SECRET,
        ping_interval=5.0,
        rate=1000.0,
        burst=1000,
        flood_close_after=100_000,
        trusted_proxies=1,  # as deployed behind HAProxy (option forwardfor)
    ).with_(**GENEROUS)  # every test client comes from 127.0.0.1
    servers: list[RunningServer] = list(
        await asyncio.gather(
            *(
                asyncio.to_thread(
                    start_process, settings.with_(port=0), env=INSTANCE_ENV, log=tmp / f"server{n}.log"
                )
                for n in range(INSTANCES)
            )
        )
    )
    balancer: Balancer | None = None
    try:
        balancer = await asyncio.to_thread(
            Balancer(tmp / "haproxy", [s.settings.port for s in servers]).start
        )
        deployment = Deployment(cluster, settings, servers, balancer, tmp)
        yield deployment
        await deployment.close_clients()
        # no command or script of any test reached keys of two slots (Redis answers CROSSSLOT)
        crossed = [log.name for log in tmp.glob("server*.log") if "CROSSSLOT" in log.read_text()]
        assert not crossed, f"CROSSSLOT in {crossed}"
    finally:
        if balancer is not None:
            balancer.stop()
        await asyncio.gather(*(asyncio.to_thread(stop_process, s) for s in servers))


@pytest.fixture
async def deploy(deployment: Deployment) -> AsyncIterator[Deployment]:
    """The module's deployment; the clients a test made are closed after it."""
    yield deployment
    await deployment.close_clients()
