"""Every limit and knob of the server in one frozen tree, with its unit and the reason for its default.

``Settings`` holds the server's own fields and the subtrees ``races`` (``RaceSettings``) and ``hints``
(``HintSettings``). ``Settings.from_env()`` reads ``GOLFRACE_<FIELD>`` (and ``REDIS_URL``),
``GOLFRACE_RACE_<FIELD>`` and ``GOLFRACE_HINT_<FIELD>`` variables, parsed and bound-checked by pydantic
(``config.env_values``); tests build their own tree and hand it to ``create_app``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt

from .accounts.settings import AccountSettings
from .config import SettingError as SettingError  # re-exported: the error of a bad variable
from .config import env_values, reference
from .races.settings import RaceSettings
from .redis_server import MAXMEMORY, MAXMEMORY_POLICY


@dataclass(frozen=True, slots=True)
class HintSettings:
    """The solver budget of one hint (``hints.py``); ``GOLFRACE_HINT_<FIELD>``."""

    max_states: PositiveInt = 2_000_000
    """Solver positions one hint may explore. The solver decides almost every deal far below this."""
    max_seconds: PositiveFloat = 2.0
    """Wall seconds one hint may think (measured with ``time.monotonic``); then the best line found so far
    is used and ``winnable`` is null."""
    in_flight: NonNegativeInt = 1
    """Hints one connection may have being computed at once; more get ``hint_busy``."""


@dataclass(frozen=True, slots=True)
class Settings:
    # --- where -----------------------------------------------------------------------------------------
    host: str = "127.0.0.1"
    """The address ``golfrace serve`` listens on (``0.0.0.0`` in the container)."""
    port: NonNegativeInt = 8000
    """The TCP port ``golfrace serve`` listens on (0: any free port, for tests)."""
    redis_url: str | None = None
    """Any Redis >= 6.2 or Valkey. None: `golfrace serve` starts an embedded redis-server in ``data_dir``."""
    data_dir: str = "var"
    """Embedded Redis: unix socket, append-only file and snapshot live here, so games survive a restart."""
    redis_connections: PositiveInt = 64
    """Pooled Redis connections per process for the less frequent requests (loads, races, boards); they
    wait for a free one (``redis_pool_wait_s``). Moves, new games, hello and game lists go through the
    store's batcher (a redis-py client of its own, ``batch_connections``); pub/sub has its own connection."""
    redis_pool_wait_s: PositiveFloat = 5.0
    """Seconds a request waits for a free pooled Redis connection before it fails with ``unavailable``."""
    batch_connections: PositiveInt = 2
    """Batches of the store's batcher in flight at once (each on its own connection); later callers wait in
    the next batch, which grows meanwhile."""
    batch_timeout_s: PositiveFloat = 5.0
    """Seconds one batch may take (the write and every reply) before its callers get a Redis timeout (one
    timeout scope per batch instead of redis-py's socket timeout)."""
    health_timeout_s: PositiveFloat = 2.0
    """Seconds ``/healthz`` (and ``/metrics``' ping gauge) waits for Redis' PING before answering 503."""
    request_timeout_s: PositiveFloat = 2.0
    """Seconds a client request (``hello``, ``new``, ``open``, ``act``…) may wait for storage before it is
    answered ``unavailable`` (for an ``act``: unknown, resend the same seq). A frozen Redis thus costs the
    client this long, not redis-py's reconnect timeouts, and the connection's other frames go on meanwhile."""
    max_pending_requests: PositiveInt = 64
    """Requests of one connection waiting or running at once (all its games together); more get ``busy``.
    The rate limit keeps honest clients far below it; it bounds what a frozen Redis can pile up."""
    gzip_min_bytes: NonNegativeInt = 1024
    """HTTP answers smaller than this (bytes) are sent uncompressed: not worth the CPU."""
    subscribe_timeout_s: PositiveFloat = 5.0
    """Seconds a pub/sub subscription may take to be confirmed by Redis before it fails."""
    redis_wait_replicas: NonNegativeInt | None = None
    """Replicas that must hold a write before its answer is sent (``WAIT``): a master killed after an ack
    cannot lose that move. None: 1 on a Redis Cluster (``redis+cluster://``), 0 on a single Redis."""
    redis_wait_timeout_ms: PositiveInt = 500
    """Milliseconds a batch waits for its replicas; fewer in time: ``unavailable`` (the client resends the
    same seq, whose stored answer is confirmed again)."""
    secret: str | None = None
    """Signs player tokens. None: a random secret is created once and kept in Redis (shared by instances)."""
    static_dir: str | None = None
    """Files served at ``/``; None: ``client_web/dist`` if it exists, else ``client_web``."""

    # --- frames and rates --------------------------------------------------------------------------------
    max_frame: PositiveInt = 4 * 1024
    """Bytes. The largest client message we parse; bigger ones get error ``too_big`` (the connection stays).
    Every legal message is under 300 bytes, so 4 KiB leaves room for names and future fields."""
    hard_max_frame: PositiveInt = 64 * 1024
    """Bytes. Frames above this are refused by the websocket layer itself: close code 1009."""
    rate: PositiveFloat = 20.0
    """Messages per second a connection may send on average (token bucket). A human taps < 5/s."""
    burst: PositiveInt = 40
    """Messages a connection may send at once before ``rate`` applies (resync storms, bots)."""
    flood_close_after: PositiveInt = 200
    """Messages dropped for ``rate_limited`` before the connection is closed with 4029."""
    ping_interval: PositiveFloat = 20.0
    """Seconds between websocket pings from the server (dead peers are found within interval + timeout)."""
    ping_timeout: PositiveFloat = 20.0
    """Seconds a peer has to answer a ping before the connection is dropped."""
    hello_timeout: PositiveFloat = 10.0
    """Seconds a new connection has to send ``hello`` before it is closed with 4002."""
    compression: bool = False
    """permessage-deflate. Off: our frames are ~100 bytes and compression costs ~60 KB per connection."""

    # --- queues and buffers --------------------------------------------------------------------------
    send_queue: PositiveInt = 64
    """Frames waiting for one slow socket. When full, further diffs are dropped and the client gets a fresh
    snapshot when it catches up; a client still full after ``slow_grace`` seconds is closed with 4008."""
    slow_grace: NonNegativeFloat = 10.0
    """Seconds a connection's send queue may stay full before it is closed with 4008."""
    resync_buffer: PositiveInt = 200
    """Diffs kept per game for ``resync``; a client further behind gets a snapshot instead."""
    seq_window: PositiveInt = 64
    """Answers remembered per (player, session, game) so that a resent ``seq`` gets the same answer."""
    max_open_games: PositiveInt = 16
    """Games one connection may follow at once (as player or watcher); more gets ``too_many_games``."""
    max_player_games: PositiveInt = 50
    """Open games listed for a player in ``welcome`` (most recent first)."""
    game_cache: NonNegativeInt = 20_000
    """Games kept in process memory as last seen (a guess checked by every commit; ~3 KB each)."""
    cas_retries: PositiveInt = 20
    """Attempts at a compare-and-set move before ``busy`` (only contention on one game can use them)."""

    # --- one connection's follow/fill and writer (follow.py, session.py) ----------------------------
    pending_limit: PositiveInt = 256
    """Diffs held for one game while its gap is filled (or ``open`` reads it); later ones are left to the
    fill's next pass. Bounds the memory a stalled fill can hold per game."""
    fill_retry_s: PositiveFloat = 0.25
    """Seconds before a failed fill (Redis away) is tried again, doubling each time up to
    ``fill_retry_max_s``: a client behind a gap catches up soon after Redis is back, without asking."""
    fill_retry_max_s: PositiveFloat = 5.0
    """Seconds: the longest wait between two tries of a failed fill (a long outage costs one read per game
    and connection every 5 s)."""
    close_timeout_s: PositiveFloat = 1.0
    """Seconds to get a close frame out; a stalled peer is then left to the websocket ping timeout."""
    direct_frames: bool = True
    """A broadcast is framed once and the same bytes written to every local follower whose socket takes
    them now (``seams/uvicorn_ws.py``). Off: every frame goes through the ASGI ``send`` and is framed per
    connection (a benchmark's baseline; the fallback protocols never use it)."""

    # --- time to live --------------------------------------------------------------------------------
    idle_game_ttl: PositiveInt = 7 * 24 * 3600
    """Seconds an unfinished game without any action is kept (abandoned games expire)."""
    finished_game_ttl: PositiveInt = 30 * 24 * 3600
    """Seconds a won or stuck game (state, move log) is kept after its last action, for replays."""
    player_ttl: PositiveInt = 30 * 24 * 3600
    """Seconds a player's list of games is kept after the player's last activity."""

    # --- fair play: what identities and objects cost (golfrace/limits.py, docs/fair-play.md) ----------------
    # Token buckets per client network (an IPv4 address, an IPv6 /64), shared by every instance through
    # Redis: ``burst`` requests at once, then ``per_hour``. A household or a school behind one address shares
    # them, so the bursts leave room for a class; a script making thousands an hour gets ``rate_limited``.
    limit_identity_burst: PositiveInt = 30
    """New identities (``hello`` without a token) a network may make at once."""
    limit_identity_per_hour: PositiveFloat = 120.0
    """New identities a network may make per hour after its burst."""
    limit_game_burst: PositiveInt = 60
    """Solo games (``new``) a network may start at once."""
    limit_game_per_hour: PositiveFloat = 1_200.0
    """Solo games a network may start per hour (one every 3 s; a quick give-up-and-redeal is ~10 s)."""
    limit_lobby_burst: PositiveInt = 20
    """Race lobbies (``race_new``, ``race_rematch``) a network may open at once."""
    limit_lobby_per_hour: PositiveFloat = 240.0
    """Race lobbies a network may open per hour."""
    limit_race_burst: PositiveInt = 20
    """Races (``race_start``) a network may start at once."""
    limit_race_per_hour: PositiveFloat = 240.0
    """Races a network may start per hour."""
    limit_daily_burst: PositiveInt = 10
    """Daily-challenge attempts (``daily_play``) a network may start at once."""
    limit_daily_per_hour: PositiveFloat = 60.0
    """Daily-challenge attempts a network may start per hour."""
    trusted_proxies: NonNegativeInt = 0
    """Reverse proxies in front of the server that append the address they were connected from to
    ``X-Forwarded-For``. 0: the peer address is the client (the header is ignored: anyone can write it)."""
    allowed_origins: str = ""
    """``Origin`` values (``scheme://host[:port]``, comma-separated; ``*`` for any) a browser may open ``/ws``
    from; others are closed with 4003. Empty: only the host the request was sent to. Connections without an
    ``Origin`` header (not browsers) are allowed."""
    redis_maxmemory: str = MAXMEMORY
    """The embedded Redis's ``maxmemory``: above it, keys with a TTL are evicted (``redis_maxmemory_policy``)
    and writes that need more memory fail, instead of the machine running out (transient keys have a TTL)."""
    redis_maxmemory_policy: str = MAXMEMORY_POLICY
    """The embedded Redis's eviction policy: one of the ``volatile-*`` policies, which evict only keys with a
    TTL, so the permanent keys (the server secret) are never lost."""

    # --- subtrees ------------------------------------------------------------------------------------
    races: RaceSettings = field(default_factory=RaceSettings)
    """Races, leaderboards, the daily challenge and replays (``GOLFRACE_RACE_<FIELD>``)."""
    hints: HintSettings = field(default_factory=HintSettings)
    """Hints (``GOLFRACE_HINT_<FIELD>``)."""
    accounts: AccountSettings = field(default_factory=AccountSettings)
    """Accounts, sessions, passwords and passkeys (``GOLFRACE_ACCOUNT_<FIELD>``)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """The tree from ``env`` (default: the process environment); ``overrides`` that are not None win
        (the command line's options). A bad value raises ``SettingError`` naming its variable."""
        env = dict(os.environ) if env is None else dict(env)
        if not env.get("GOLFRACE_REDIS_URL") and env.get("REDIS_URL"):
            env = {**env, "GOLFRACE_REDIS_URL": env["REDIS_URL"]}
        values = env_values(cls, "GOLFRACE_", env)
        values.update({k: v for k, v in overrides.items() if v is not None})
        values.setdefault("races", RaceSettings.from_env(env))
        values.setdefault("hints", HintSettings(**env_values(HintSettings, "GOLFRACE_HINT_", env)))
        values.setdefault("accounts", AccountSettings.from_env(env))
        return cls(**values)

    def reference(self) -> str:
        """The Markdown table of every setting of the tree, as in docs/settings.md."""
        trees = [
            ("GOLFRACE_", self),
            ("GOLFRACE_RACE_", self.races),
            ("GOLFRACE_HINT_", self.hints),
            ("GOLFRACE_ACCOUNT_", self.accounts),
        ]
        return reference(trees)

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
