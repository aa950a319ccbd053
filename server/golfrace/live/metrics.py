"""Prometheus metrics of one server process (``GET /metrics``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

CONNECTIONS = Gauge("golfrace_connections", "Open websocket connections", registry=REGISTRY)
MESSAGES_IN = Counter("golfrace_messages_in", "Client messages received, by type", ["t"], registry=REGISTRY)
MESSAGES_OUT = Counter("golfrace_messages_out", "Frames sent to clients", registry=REGISTRY)
DROPPED = Counter("golfrace_frames_dropped", "Broadcast frames dropped for slow clients", registry=REGISTRY)
MOVES = Counter("golfrace_moves", "Actions applied to games", ["a"], registry=REGISTRY)
REFUSALS = Counter("golfrace_refusals", "Actions refused by the rules, by code", ["code"], registry=REGISTRY)
ERRORS = Counter("golfrace_errors", "Error messages sent, by code", ["code"], registry=REGISTRY)
CLOSES = Counter(
    "golfrace_closes", "Connections closed by the server, by close code", ["code"], registry=REGISTRY
)
RACE_RESULTS = Counter(
    "golfrace_race_results",
    "Racers' ends in finished races, by status (won, stuck, resigned, timeout, abandoned)",
    ["status"],
    registry=REGISTRY,
)
STORAGE_FULL = Counter(
    "golfrace_storage_full",
    "Requests refused because Redis is at its maxmemory (noeviction), by where: ws or http",
    ["kind"],
    registry=REGISTRY,
)
CONFLICTS = Counter("golfrace_cas_conflicts", "Compare-and-set retries on a game", registry=REGISTRY)
REDIS_SECONDS = Histogram(
    "golfrace_redis_seconds",
    "Redis round trip of a move commit",
    buckets=(0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5),
    registry=REGISTRY,
)
REDIS_PING = Gauge(
    "golfrace_redis_ping_seconds", "Redis PING round trip at the last scrape", registry=REGISTRY
)


@cache
def labelled(metric: Any, value: str) -> Any:
    """``metric.labels(value)``, looked up once per label value (``labels`` takes a lock and builds tuples
    on every call; per move that showed in profiles)."""
    return metric.labels(value)
