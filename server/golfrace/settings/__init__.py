"""Every limit and knob of the server in one frozen tree, with its unit and the reason for its default.

``Settings`` holds the server's own fields and the subtrees ``races`` (``RaceSettings``), ``hints``
(``HintSettings``), ``accounts`` and ``analysis`` (``AnalysisSettings``).
``Settings.from_env()`` reads ``GOLFRACE_<FIELD>`` (and ``REDIS_URL``),
``GOLFRACE_RACE_<FIELD>`` and ``GOLFRACE_HINT_<FIELD>`` variables, parsed and bound-checked by pydantic
(``config.env_values``); tests build their own tree and hand it to ``create_app``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt

from golfrace.settings.accounts import AccountSettings
from golfrace.settings.analysis import AnalysisSettings
from golfrace.settings.env import SettingError as SettingError
from golfrace.settings.env import env_values, reference
from golfrace.settings.friends import FriendSettings
from golfrace.settings.pool import PoolSettings
from golfrace.settings.races import RaceSettings

MAXMEMORY = "256mb"
"""The default ``maxmemory`` of the embedded Redis (``Settings.redis_maxmemory``)."""
MAXMEMORY_POLICY = "noeviction"
"""The embedded Redis's eviction policy (``Settings.redis_maxmemory_policy``): nothing is ever evicted."""


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
    per_player: PositiveInt = 1
    """Hints one player may have waiting or being computed at once, over all its connections (``hint_busy``,
    reason ``player``)."""
    workers: PositiveInt = 1
    """Worker processes computing hints (``hint_queue.py``): the CPU share of hints, beside the server's
    event loop. One keeps a second core for the server on a two-core machine."""
    queue: NonNegativeInt = 8
    """Hints that may wait for a worker; one more is refused at once (``hint_busy``, reason ``queue_full``,
    with ``retry_ms``). Bounds the wait: at most ``(queue / workers + 1) × max_seconds``."""
    nice: NonNegativeInt = 10
    """How many steps below the server the worker processes run (``os.nice``): the operating system gives
    the server's moves and sign-ins the CPU first."""


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
    solo_end_wait_s: PositiveFloat = 0.25
    """Seconds the last move of a Play game waits for what follows it (the player's list of open games and
    history) before its ``ack`` goes out anyway: those keys may live on another shard than the game, one in
    a failover, and a stored move is acknowledged at once; what follows is written by retry (``moves.py``)."""
    request_timeout_s: PositiveFloat = 2.0
    """Seconds a client request (``hello``, ``new``, ``open``, ``act``…) may wait for storage before it is
    answered ``unavailable`` (for an ``act``: unknown, resend the same seq). A frozen Redis thus costs the
    client this long, not redis-py's reconnect timeouts, and the connection's other frames go on meanwhile."""
    max_pending_requests: PositiveInt = 64
    """Requests of one connection waiting or running at once (all its games together); more get ``busy``.
    The rate limit keeps honest clients far below it; it bounds what a frozen Redis can pile up."""
    gzip_min_bytes: NonNegativeInt = 1024
    """HTTP answers smaller than this (bytes) are sent uncompressed: not worth the CPU."""
    redis_wait_replicas: NonNegativeInt | None = None
    """Replicas that must hold a write before its answer is sent (``WAIT``): a master killed after an ack
    cannot lose that move. None: 1 on a Redis Cluster (``redis+cluster://``), 0 on a single Redis."""
    redis_wait_timeout_ms: PositiveInt = 500
    """Milliseconds a batch waits for its replicas; fewer in time: ``unavailable`` (the client resends the
    same seq, whose stored answer is confirmed again)."""
    secret: str | None = None
    """Signs player tokens and seeds the daily's codes: at least 32 random bytes (e.g. 64 hex digits), else
    ``golfrace serve`` refuses it (``settings/secret.py``). None: a random secret is created once and kept in
    Redis (shared by instances); ``make run`` keeps one in ``./var/secret``."""
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
    seq_spaces_per_game: PositiveInt = 8
    """Seq spaces (``sid``: a tab, a page) of one player whose answers one game keeps (``seq_window`` each);
    a ninth that acts on the game drops the oldest one's answers, and that one's later moves on the game are
    answered ``stale_seq`` (never applied twice). Bounds a game's ``:seq`` hash against new ``sid``s."""
    max_game_actions: PositiveInt = 1000
    """Actions (moves and undos) one game takes: its move log (``game:{ID}:log``, ~20 bytes an entry) holds
    one each, so it stays under ~25 KB. A game plays at most 51 moves forward (35 cards and 16 draws); the
    rest is undo and redo, which casual play allows without end. The next is refused ``too_many_moves``."""
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

    # --- fair play: what identities and objects cost (live/limits.py, docs/fair-play.md) --------------------
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
    limit_sid_burst: PositiveInt = 120
    """New seq spaces (a ``hello`` without a ``sid`` the server made for its player: a new tab or page) a
    network may open at once; a reconnect that shows its ``sid`` is free."""
    limit_sid_per_hour: PositiveFloat = 2400.0
    """New seq spaces a network may open per hour."""
    limit_hint_burst: PositiveInt = 60
    """Hints a network may ask at once (each is up to ``hints.max_seconds`` of solver work)."""
    limit_hint_per_hour: PositiveFloat = 1200.0
    """Hints a network may ask per hour: one every 3 s, for a classroom behind one address."""
    max_connections_per_network: PositiveInt = 200
    """Websocket connections one client network (an IPv4 address, an IPv6 /64) may hold open on one server
    instance; a new one beyond it is closed at once with 4030. A school or an office behind one address
    shares it; one script's thousands of idle sockets do not fit."""
    max_connections_per_player: PositiveInt = 12
    """Connections one player (a token or an account) may hold open on one server instance (tabs, a phone
    and a laptop); the ``hello`` of one more closes that connection with 4030."""
    limit_pool_burst: PositiveInt = 20
    """Quick-race searches (``pool_join``) a network may start at once: a family or a class behind one
    address, not a flood of seekers from one script."""
    limit_pool_per_hour: PositiveFloat = 600.0
    """Quick-race searches a network may start per hour (one every 6 s)."""
    trusted_proxies: NonNegativeInt = 0
    """Reverse proxies in front of the server that append the address they were connected from to
    ``X-Forwarded-For``. 0: the peer address is the client (the header is ignored: anyone can write it)."""
    metrics_allow: str = "127.0.0.0/8,::1"
    """Client addresses (IPv4/IPv6 networks or single addresses, comma-separated) that may read ``/metrics``
    (the client address as ``trusted_proxies`` makes it); others get 403 ``forbidden``. Loopback by default:
    the counters tell who plays how much and when, and scraping them costs the server work. Empty: nobody.
    ``docker-compose.yml`` lists its Prometheus's fixed address."""
    allowed_origins: str = ""
    """``Origin`` values (``scheme://host[:port]``, comma-separated; ``*`` for any) a browser may open ``/ws``
    from; others are closed with 4003. Empty: only the host the request was sent to. Connections without an
    ``Origin`` header (not browsers) are allowed."""
    redis_maxmemory: str = MAXMEMORY
    """The embedded Redis's ``maxmemory``: above it, writes that need more memory fail and the server refuses
    new work with ``storage_full`` (``redis_maxmemory_policy``), instead of the machine running out."""
    redis_maxmemory_policy: str = MAXMEMORY_POLICY
    """The embedded Redis's eviction policy: ``noeviction`` only. Every ``volatile-*`` policy evicts keys with
    a TTL, and sessions, daily claims, results and boards have one: nothing of another player is forgotten."""

    # --- subtrees ------------------------------------------------------------------------------------
    races: RaceSettings = field(default_factory=RaceSettings)
    """Races, leaderboards, the daily challenge and replays (``GOLFRACE_RACE_<FIELD>``)."""
    hints: HintSettings = field(default_factory=HintSettings)
    """Hints (``GOLFRACE_HINT_<FIELD>``)."""
    accounts: AccountSettings = field(default_factory=AccountSettings)
    """Accounts, sessions, passwords and passkeys (``GOLFRACE_ACCOUNT_<FIELD>``)."""
    friends: FriendSettings = field(default_factory=FriendSettings)
    """Following, blocking, challenges and presence (``GOLFRACE_FRIEND_<FIELD>``)."""
    analysis: AnalysisSettings = field(default_factory=AnalysisSettings)
    """The analysis of finished games (``GOLFRACE_ANALYSIS_<FIELD>``)."""
    pool: PoolSettings = field(default_factory=PoolSettings)
    """Quick races: the pool, its waves, bot seats and ratings (``GOLFRACE_POOL_<FIELD>``)."""

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
        values.setdefault("friends", FriendSettings.from_env(env))
        analysis = env_values(AnalysisSettings, "GOLFRACE_ANALYSIS_", env)
        values.setdefault("analysis", AnalysisSettings(**analysis))
        values.setdefault("pool", PoolSettings.from_env(env))
        return cls(**values)

    def reference(self) -> str:
        """The Markdown table of every setting of the tree, as in docs/settings.md."""
        trees = [
            ("GOLFRACE_", self),
            ("GOLFRACE_RACE_", self.races),
            ("GOLFRACE_HINT_", self.hints),
            ("GOLFRACE_ACCOUNT_", self.accounts),
            ("GOLFRACE_FRIEND_", self.friends),
            ("GOLFRACE_ANALYSIS_", self.analysis),
            ("GOLFRACE_POOL_", self.pool),
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
