"""A real Redis Cluster on loopback, started from ``redis-server`` and ``redis-cli`` (Redis >= 7): masters
with their replicas on free ports, for tests and benchmarks. Every wait has a deadline.

``LocalCluster(tmp, masters=3, replicas=1).start()`` → ``.url`` (``redis+cluster://127.0.0.1:p1,…``);
``kill(port)`` (SIGKILL, as a crash), ``restart(port)`` (same port, same ``nodes.conf``: it rejoins).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from golfrace.store.cluster_wait import listed
from golfrace.store.embedded import RedisServerError, free_port, terminate

MIN_VERSION = (7, 0)
"""Sharded pub/sub (``SSUBSCRIBE``/``SPUBLISH``) came with Redis 7.0."""
NODE_TIMEOUT_MS = 1000
"""``cluster-node-timeout`` of a local cluster: a master unreachable this long is failed over (production
keeps Redis's 15 s or the compose file's 5 s; a test wants it short)."""
START_TIMEOUT = 30.0


def cluster_binaries() -> tuple[str, str] | None:
    """``(redis-server, redis-cli)`` of version >= 7.0 on PATH (or /usr/bin), else None."""
    server, cli = _which("redis-server"), _which("redis-cli")
    if not server or not cli:
        return None
    try:
        out = subprocess.run([server, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"v=(\d+)\.(\d+)", out)
    if not found or (int(found[1]), int(found[2])) < MIN_VERSION:
        return None
    return server, cli


def _which(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    fallback = Path("/usr/bin") / name
    return str(fallback) if fallback.exists() else None


def command(port: int, *args: str, timeout: float = 2.0) -> bytes:
    """One command to a node over a raw socket (RESP), the reply's bytes (enough for INFO-like text)."""
    parts = [f"*{len(args)}\r\n".encode()] + [f"${len(a.encode())}\r\n{a}\r\n".encode() for a in args]
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(b"".join(parts))
        data = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
            if data[:1] in (b"+", b"-", b":") and data.endswith(b"\r\n"):
                break
            if data[:1] == b"$":
                head, _, rest = data.partition(b"\r\n")
                size = int(head[1:])
                if size < 0 or len(rest) >= size + 2:
                    return rest[:size] if size >= 0 else b""
        return data


def info_fields(text: bytes) -> dict[str, str]:
    out = {}
    for line in text.decode(errors="replace").splitlines():
        key, sep, value = line.partition(":")
        if sep and not key.startswith("#"):
            out[key.strip()] = value.strip()
    return out


@dataclass
class Node:
    port: int
    bus_port: int
    data_dir: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass
class LocalCluster:
    data_dir: Path
    masters: int = 3
    replicas: int = 1
    node_timeout_ms: int = NODE_TIMEOUT_MS
    nodes: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(n.address for n in self.nodes)

    def start(self, timeout: float = START_TIMEOUT) -> LocalCluster:
        binaries = cluster_binaries()
        if binaries is None:
            raise RedisServerError("a Redis Cluster needs redis-server and redis-cli >= 7.0")
        server, cli = binaries
        self.data_dir.mkdir(parents=True, exist_ok=True)
        ports: set[int] = set()
        for n in range(self.masters * (1 + self.replicas)):
            port, bus = _two_free_ports(ports)
            node = Node(port, bus, self.data_dir / f"node{n}")
            node.data_dir.mkdir(exist_ok=True)
            self.nodes.append(node)
        try:
            for node in self.nodes:
                self._launch(node, server)
            for node in self.nodes:
                _wait_ping(node, timeout)
            if self.masters >= 3:
                create = [cli, "--cluster", "create", *(n.address for n in self.nodes)]
                create += ["--cluster-replicas", str(self.replicas), "--cluster-yes"]
                done = subprocess.run(create, capture_output=True, text=True, timeout=timeout)
                if done.returncode != 0:
                    output = f"{done.stdout[-500:]} {done.stderr}"
                    raise RedisServerError(f"redis-cli --cluster create failed: {output}")
            else:  # redis-cli wants three masters; a smaller cluster (a benchmark's baseline) by hand
                self._form_by_hand(timeout)
            self.wait_ok(timeout)
            self.wait_replicas(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _launch(self, node: Node, server: str | None = None) -> None:
        binary = server or (cluster_binaries() or ("redis-server", ""))[0]
        args = [
            binary,
            "--port", str(node.port),
            "--cluster-port", str(node.bus_port),
            "--bind", "127.0.0.1",
            "--dir", str(node.data_dir),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            # as deployed (deploy/redis-cluster.conf): one shard's failover does not stop the others
            "--cluster-require-full-coverage", "no",
            # a replica that (re)joins is copied at once (Redis 7 waits 5 s for more replicas by default)
            "--repl-diskless-sync-delay", "0",
            # at a memory limit, writes fail rather than other players' keys being evicted (fair-play.md)
            "--maxmemory-policy", "noeviction",
            "--appendonly", "no",
            "--save", "",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(node.data_dir / "redis.log"),
        ]  # fmt: skip
        node.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def wait_ok(self, timeout: float = START_TIMEOUT) -> None:
        """Until every live node says ``cluster_state:ok``, knows every node and sees every slot served."""
        deadline = time.monotonic() + timeout
        last: dict[str, str] = {}
        while time.monotonic() < deadline:
            if all(self._ok(n, last) for n in self.live()):
                return
            time.sleep(0.05)
        raise RedisServerError(f"the cluster did not become ok within {timeout} s: {last}")

    def _form_by_hand(self, timeout: float) -> None:
        masters, replicas = self.nodes[: self.masters], self.nodes[self.masters :]
        per = 16384 // self.masters
        for i, node in enumerate(masters):
            last = 16383 if i == self.masters - 1 else (i + 1) * per - 1
            command(node.port, "CLUSTER", "ADDSLOTSRANGE", str(i * per), str(last))
        first = self.nodes[0]
        for node in self.nodes[1:]:
            command(node.port, "CLUSTER", "MEET", "127.0.0.1", str(first.port), str(first.bus_port))
        ids = {n.port: command(n.port, "CLUSTER", "MYID").decode() for n in masters}
        deadline = time.monotonic() + timeout
        for i, node in enumerate(replicas):
            master_id = ids[masters[i % self.masters].port]
            while master_id.encode() not in command(node.port, "CLUSTER", "NODES"):
                if time.monotonic() > deadline:
                    raise RedisServerError("the nodes did not meet")
                time.sleep(0.05)
            command(node.port, "CLUSTER", "REPLICATE", master_id)

    def wait_replicas(self, timeout: float = START_TIMEOUT) -> None:
        """Until ``masters * replicas`` live nodes are replicas whose link to their master is up (a fresh
        replica first copies its master: until then ``WAIT`` counts it out), and every live node knows them
        as replicas (at the start, and after a failover's node rejoins)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            infos = []
            for node in self.live():
                with contextlib.suppress(OSError):
                    infos.append(info_fields(command(node.port, "INFO", "replication")))
            linked = [i for i in infos if i.get("role") == "slave" and i.get("master_link_status") == "up"]
            if len(linked) >= self.masters * self.replicas:
                self._wait_roles_known(deadline, timeout)
                return
            time.sleep(0.05)
        raise RedisServerError(f"the replicas were not linked to their masters within {timeout} s")

    def _wait_roles_known(self, deadline: float, timeout: float) -> None:
        """Until every live node's ``CLUSTER NODES`` lists ``masters * replicas`` replicas. A node learns the
        others' roles by gossip, after the replicas say they are linked: a replica killed before its master
        heard of its role stays, in that master's view, a master without slots for good (and a cluster
        watcher counting replicas there finds none)."""
        want = self.masters * self.replicas
        seen: dict[int, int] = {}
        while time.monotonic() < deadline:
            for node in self.live():
                with contextlib.suppress(OSError):
                    seen[node.port] = listed(command(node.port, "CLUSTER", "NODES"))[1]
            if all(seen.get(n.port) == want for n in self.live()):
                return
            time.sleep(0.05)
        raise RedisServerError(f"not every node knew the {want} replicas within {timeout} s: {seen}")

    def _ok(self, node: Node, last: dict[str, str]) -> bool:
        try:
            info = info_fields(command(node.port, "CLUSTER", "INFO"))
        except OSError:
            return False
        last.clear()
        last.update(info)
        return (
            info.get("cluster_state") == "ok"
            and info.get("cluster_slots_ok") == "16384"
            and int(info.get("cluster_known_nodes", "0")) == len(self.nodes)
        )

    def live(self) -> list[Node]:
        return [n for n in self.nodes if n.process is not None and n.process.poll() is None]

    def roles(self) -> dict[int, str]:
        """Port → ``master`` or ``slave``, as each live node says of itself."""
        out = {}
        for node in self.live():
            try:
                out[node.port] = info_fields(command(node.port, "INFO", "replication")).get("role", "?")
            except OSError:
                out[node.port] = "?"
        return out

    def master_ports(self) -> list[int]:
        return sorted(p for p, role in self.roles().items() if role == "master")

    def owner_of(self, key: str) -> int:
        """The port of the master serving ``key``'s slot now."""
        slot = int(command(self.nodes[0].port, "CLUSTER", "KEYSLOT", key)[1:].split(b"\r\n")[0])
        for port in self.master_ports():
            for line in command(port, "CLUSTER", "NODES").decode().splitlines():
                parts = line.split()
                if "myself" not in parts[2] or "master" not in parts[2]:
                    continue
                for span in parts[8:]:
                    lo, _, hi = span.partition("-")
                    if lo.isdigit() and int(lo) <= slot <= int(hi or lo):
                        return port
        raise RedisServerError(f"no master serves slot {slot}")

    def kill(self, port: int) -> None:
        """SIGKILL the node on ``port`` (a crash: no goodbye to the cluster)."""
        node = self._node(port)
        if node.process is not None and node.process.poll() is None:
            node.process.send_signal(signal.SIGKILL)
            node.process.wait(10)

    def restart(self, port: int, timeout: float = START_TIMEOUT) -> None:
        """Start the node on ``port`` again from its ``nodes.conf``: it rejoins (a failed-over master comes
        back as a replica of its successor)."""
        node = self._node(port)
        self._launch(node)
        _wait_ping(node, timeout)

    def _node(self, port: int) -> Node:
        for node in self.nodes:
            if node.port == port:
                return node
        raise KeyError(port)

    def stop(self) -> None:
        for node in self.nodes:
            if node.process is not None:
                terminate(node.process, 5.0)
                node.process = None

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _two_free_ports(taken: set[int]) -> tuple[int, int]:
    while True:
        a, b = free_port(), free_port()
        if a != b and not {a, b} & taken:
            taken |= {a, b}
            return a, b


def _wait_ping(node: Node, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if node.process is not None and node.process.poll() is not None:
            raise RedisServerError(f"redis-server exited; see {node.data_dir / 'redis.log'}")
        try:
            if command(node.port, "PING", timeout=0.5).startswith(b"+PONG"):
                return
        except OSError:
            pass
        time.sleep(0.02)
    raise RedisServerError(f"redis-server on {node.port} did not answer within {timeout} s")
