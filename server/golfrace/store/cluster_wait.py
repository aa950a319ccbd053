"""Before ``golfrace serve`` listens on a Redis Cluster: is it a cluster we can use, and is it ready (issue
20.13)?

- **Too old**: the hub listens with sharded pub/sub (``SSUBSCRIBE``, Redis ≥ 7.0). A node of an older Redis is
  named in one line (``RedisTooOld``) instead of a subscription that times out with a bare traceback.
- **Still syncing**: every batch of writes ends with ``WAIT <redis_wait_replicas>`` (``batcher.py``), so right
  after ``redis-cli --cluster create``, before the replicas have synced, every write (and every ``hello``)
  was answered ``unavailable``. ``wait_ready`` waits until the cluster says ``cluster_state:ok`` and every
  master has that many replicas online, saying what it waits for in one line each time that changes
  (``waiting for replicas: 1 of 3 online``).

It asks each node over a connection of its own (``INFO``, ``CLUSTER INFO``, ``CLUSTER NODES``), not through
redis-py's ``RedisCluster``, whose start needs every slot served already."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from golfrace.engine.errors import GolfError
from golfrace.store.connection import ClusterUrl
from golfrace.wire.errors import cause

MIN_VERSION = (7, 0)
POLL_S = 0.5
NODE_TIMEOUT_S = 2.0


class RedisTooOld(Exception):
    """A node of the cluster runs a Redis without sharded pub/sub."""


@dataclass(frozen=True, slots=True)
class ClusterStatus:
    state: str
    """``cluster_state`` of the node asked (``ok`` or ``fail``)."""
    masters: int
    replicas: int
    """Replicas the cluster knows of."""
    online: int
    """Replicas a master says are synced and online."""
    fewest: int
    """The fewest online replicas of any master."""

    def ready(self, need: int) -> bool:
        return self.state == "ok" and self.masters > 0 and self.fewest >= need

    def waiting_for(self, need: int) -> str:
        if self.state != "ok":
            return f"waiting for the cluster: cluster_state {self.state}"
        return f"waiting for replicas: {self.online} of {self.replicas} online"


def _version(info: dict[str, Any]) -> tuple[int, ...]:
    text = str(info.get("redis_version", "0"))
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


def _node(parsed: ClusterUrl, host: str, port: int) -> Any:
    return aioredis.Redis(
        host=host,
        port=port,
        username=parsed.username,
        password=parsed.password,
        ssl=parsed.tls,
        socket_connect_timeout=NODE_TIMEOUT_S,
        socket_timeout=NODE_TIMEOUT_S,
        decode_responses=True,
    )


async def check_version(node: aioredis.Redis, where: str) -> None:
    info = await node.info("server")
    version = _version(info)
    if version < MIN_VERSION:
        raise RedisTooOld(
            f"Redis Cluster ≥ 7.0 needed: SSUBSCRIBE unknown (Redis {info.get('redis_version')} at {where})"
        )


async def status(url: str) -> ClusterStatus:
    """The cluster as its first reachable node (of the URL's) sees it; ``RedisTooOld`` for an old node."""
    parsed = ClusterUrl.parse(url)
    last: Exception | None = None
    for host, port in parsed.nodes:
        seed = _node(parsed, host, port)
        try:
            await check_version(seed, f"{host}:{port}")
            info = await seed.execute_command("CLUSTER", "INFO")
            text = info.decode() if isinstance(info, bytes) else str(info)
            state = dict(line.split(":", 1) for line in text.splitlines() if ":" in line).get(
                "cluster_state", "?"
            )
            nodes = await seed.execute_command("CLUSTER", "NODES")
        except RedisTooOld:
            raise
        except Exception as exc:
            last = exc
            continue
        finally:
            with contextlib.suppress(Exception):
                await seed.aclose()
        return await _replicas(parsed, state.strip(), nodes)
    raise ConnectionError(f"no node of the cluster answers: {cause(last) if last else 'no nodes'}")


def listed(nodes: Any) -> tuple[list[tuple[str, int]], int]:
    """What a node's ``CLUSTER NODES`` lists: the live masters that serve slots (host, port), and how many
    replicas (flagged ``slave``, live or not)."""
    text = nodes.decode(errors="replace") if isinstance(nodes, bytes) else str(nodes)
    masters: list[tuple[str, int]] = []
    replicas = 0
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 8:
            continue
        flags = parts[2].split(",")
        address = parts[1].split("@", 1)[0]
        where, _, number = address.rpartition(":")
        if "slave" in flags:
            replicas += 1
        elif "master" in flags and "fail" not in flags and len(parts) > 8 and where and number.isdigit():
            masters.append((where, int(number)))
    return masters, replicas


async def _replicas(parsed: ClusterUrl, state: str, nodes: Any) -> ClusterStatus:
    masters, replicas = listed(nodes)
    online: list[int] = []
    for master_host, master_port in masters:
        node = _node(parsed, master_host, master_port)
        try:
            await check_version(node, f"{master_host}:{master_port}")
            info = await node.info("replication")
            online.append(sum(1 for k, v in info.items() if k.startswith("slave") and _online(v)))
        except RedisTooOld:
            raise
        except Exception:
            online.append(0)
        finally:
            with contextlib.suppress(Exception):
                await node.aclose()
    return ClusterStatus(state, len(masters), replicas, sum(online), min(online, default=0))


def _online(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("state") == "online"
    return "state=online" in str(value)


async def wait_ready(
    url: str, need: int, say: Callable[[str], None], poll_s: float = POLL_S
) -> ClusterStatus:
    """Until the cluster is ok and every master has ``need`` replicas online; one line each time what it
    waits for changes. Raises ``RedisTooOld``, and a bad URL's ``RedisUrlError``, at once."""
    said = ""
    while True:
        try:
            found = await status(url)
        except (RedisTooOld, GolfError):  # too old, or a URL that can never work: said at once
            raise
        except Exception as exc:
            line = f"waiting for the cluster: {cause(exc)}"
        else:
            if found.ready(need):
                return found
            line = found.waiting_for(need)
        if line != said:
            say(line)
            said = line
        await asyncio.sleep(poll_s)
