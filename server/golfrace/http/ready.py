"""``GET /readyz``: readiness, beside ``/healthz``'s liveness (issue 20.18).

``/healthz`` says that the process runs and reaches Redis (a ``PING``, which a cluster answers even while it
refuses every command: ``CLUSTERDOWN``, a cluster still syncing, a Redis refusing writes). ``/readyz`` asks
Redis to do what a game needs: a keyed write (``SET ready:{<tag>} PX``, expiring at once). On a Redis Cluster
one probe goes to each eighth of the hash slots, so every master of a cluster of up to 8 is asked; the
instance is ready while at least one probe is taken (one shard's failover must not take every instance out
of the balancer: the others' players play on), and not ready when all are refused. HAProxy checks
``/readyz`` (``deploy/haproxy.cfg``), so it sends new players only to instances whose Redis takes commands.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.crc import key_slot
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from golfrace.store import connection as redis_conn
from golfrace.store.keys import ready_probe
from golfrace.wire.errors import ErrorCode

SLOTS = 16_384
PROBES = 8
PROBE_TTL_MS = 10_000


def _probe_keys() -> tuple[str, ...]:
    """One key per eighth of the cluster's hash slots (``ready:{<n>}``, the first n that falls in it)."""
    keys = []
    width = SLOTS // PROBES
    for part in range(PROBES):
        n = 0
        while not part * width <= key_slot(ready_probe(n).encode()) < (part + 1) * width:
            n += 1
        keys.append(ready_probe(n))
    return tuple(keys)


PROBE_KEYS = _probe_keys()


def _cause(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__)[:200]  # a timeout has no text of its own: name its type


async def readiness(redis: Any, cluster: bool, timeout_s: float) -> tuple[bool, dict[str, Any]]:
    """Whether Redis takes a keyed write now, and what the probes found."""
    keys = PROBE_KEYS if cluster else PROBE_KEYS[:1]

    async def probe(key: str) -> str | None:
        try:
            await asyncio.wait_for(redis.set(key, b"1", px=PROBE_TTL_MS), timeout_s)
        except Exception as exc:
            return _cause(exc)
        return None

    refused = [c for c in await asyncio.gather(*(probe(k) for k in keys)) if c is not None]
    body: dict[str, Any] = {"probes": len(keys), "refused": len(refused)}
    if refused:
        body["redis"] = refused[0]
    return len(refused) < len(keys), body


async def readyz(request: Request) -> Response:
    ctx = request.app.state.ctx
    settings = ctx.settings
    cluster = redis_conn.is_cluster(settings.redis_url)
    ready, body = await readiness(ctx.redis, cluster, settings.health_timeout_s)
    if not ready:
        message = f"redis refuses commands: {body.get('redis', '')}"
        return JSONResponse(
            {"error": ErrorCode.UNAVAILABLE.value, "message": message, "status": "unavailable", **body},
            status_code=503,
        )
    return JSONResponse({"status": "ready", **body})
