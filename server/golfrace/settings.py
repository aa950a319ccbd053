"""Every limit and knob of the server in one frozen object, with its unit and the reason for its default.

``Settings.from_env()`` reads ``GOLFRACE_<FIELD>`` variables (and ``REDIS_URL``); tests build their own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .engine.errors import GolfError


@dataclass(frozen=True, slots=True)
class Settings:
    # --- where -----------------------------------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str | None = None
    """Any Redis >= 6.2 or Valkey. None: `golfrace serve` starts an embedded redis-server in ``data_dir``."""
    data_dir: str = "var"
    """Embedded Redis: unix socket, append-only file and snapshot live here, so games survive a restart."""
    redis_connections: int = 64
    """Pooled Redis connections per process for the less frequent requests (loads, races, boards); they
    wait for a free one. Moves, new games, hello and game lists go through the store's batcher (a redis-py
    client of its own, ``store.BATCH_CONNECTIONS`` connections); pub/sub has its own connection."""
    redis_wait_replicas: int | None = None
    """Replicas that must hold a write before its answer is sent (``WAIT``): a master killed after an ack
    cannot lose that move. None: 1 on a Redis Cluster (``redis+cluster://``), 0 on a single Redis."""
    redis_wait_timeout_ms: int = 500
    """Milliseconds a batch waits for its replicas; fewer in time: ``unavailable`` (the client resends the
    same seq, whose stored answer is confirmed again)."""
    secret: str | None = None
    """Signs player tokens. None: a random secret is created once and kept in Redis (shared by instances)."""
    static_dir: str | None = None
    """Files served at ``/``; None: ``client_web/dist`` if it exists, else ``client_web``."""

    # --- frames and rates --------------------------------------------------------------------------------
    max_frame: int = 4 * 1024
    """Bytes. The largest client message we parse; bigger ones get error ``too_big`` (the connection stays).
    Every legal message is under 300 bytes, so 4 KiB leaves room for names and future fields."""
    hard_max_frame: int = 64 * 1024
    """Bytes. Frames above this are refused by the websocket layer itself: close code 1009."""
    rate: float = 20.0
    """Messages per second a connection may send on average (token bucket). A human taps < 5/s."""
    burst: int = 40
    """Messages a connection may send at once before ``rate`` applies (resync storms, bots)."""
    flood_close_after: int = 200
    """Messages dropped for ``rate_limited`` before the connection is closed with 4029."""
    ping_interval: float = 20.0
    """Seconds between websocket pings from the server (dead peers are found within interval + timeout)."""
    ping_timeout: float = 20.0
    """Seconds a peer has to answer a ping before the connection is dropped."""
    hello_timeout: float = 10.0
    """Seconds a new connection has to send ``hello`` before it is closed with 4002."""
    compression: bool = False
    """permessage-deflate. Off: our frames are ~100 bytes and compression costs ~60 KB per connection."""

    # --- queues and buffers --------------------------------------------------------------------------
    send_queue: int = 64
    """Frames waiting for one slow socket. When full, further diffs are dropped and the client gets a fresh
    snapshot when it catches up; a client still full after ``slow_grace`` seconds is closed with 4008."""
    slow_grace: float = 10.0
    """Seconds a connection's send queue may stay full before it is closed with 4008."""
    resync_buffer: int = 200
    """Diffs kept per game for ``resync``; a client further behind gets a snapshot instead."""
    seq_window: int = 64
    """Answers remembered per (player, session, game) so that a resent ``seq`` gets the same answer."""
    max_open_games: int = 16
    """Games one connection may follow at once (as player or watcher); more gets ``too_many_games``."""
    max_player_games: int = 50
    """Open games listed for a player in ``welcome`` (most recent first)."""
    game_cache: int = 20_000
    """Games kept in process memory as last seen (a guess checked by every commit; ~3 KB each)."""
    cas_retries: int = 20
    """Attempts at a compare-and-set move before ``busy`` (only contention on one game can use them)."""

    # --- time to live --------------------------------------------------------------------------------
    idle_game_ttl: int = 7 * 24 * 3600
    """Seconds an unfinished game without any action is kept (abandoned games expire)."""
    finished_game_ttl: int = 30 * 24 * 3600
    """Seconds a won or stuck game (state, move log) is kept after its last action, for replays."""
    player_ttl: int = 30 * 24 * 3600
    """Seconds a player's list of games is kept after the player's last activity."""

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        env = dict(os.environ) if env is None else env
        if not env.get("GOLFRACE_REDIS_URL") and env.get("REDIS_URL"):
            env = {**env, "GOLFRACE_REDIS_URL": env["REDIS_URL"]}
        values = env_values(cls, "GOLFRACE_", env)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    def public_limits(self) -> dict[str, Any]:
        """The limits a client needs to know, sent in ``welcome``."""
        return {
            "max_frame": self.max_frame,
            "rate": self.rate,
            "burst": self.burst,
            "ping_interval": self.ping_interval,
            "send_queue": self.send_queue,
            "resync_buffer": self.resync_buffer,
            "seq_window": self.seq_window,
            "max_open_games": self.max_open_games,
        }


class SettingError(GolfError):
    """An environment variable holds a value its setting cannot take."""

    code = "bad_setting"


def env_values(cls: Any, prefix: str, env: Mapping[str, str]) -> dict[str, Any]:
    """The fields of dataclass ``cls`` that ``env`` sets as ``<prefix><FIELD>`` (empty values are unset)."""
    values: dict[str, Any] = {}
    for f in fields(cls):
        name = f"{prefix}{f.name.upper()}"
        raw = env.get(name)
        if raw is None or raw == "":
            continue
        try:
            values[f.name] = _convert(raw, f.type)
        except ValueError:
            raise SettingError(f"{name}={raw!r} is not a valid {f.type}", setting=name) from None
    return values


def _convert(raw: str, kind: Any) -> Any:
    kind = str(kind)
    if kind.startswith("bool"):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if kind.startswith("int"):
        return int(raw)
    if kind.startswith("float"):
        return float(raw)
    return raw
