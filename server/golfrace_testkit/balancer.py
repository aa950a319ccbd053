"""HAProxy in front of several ``golfrace serve`` instances, on loopback, for tests and benchmarks: the
repository's ``deploy/haproxy.cfg`` (the docker compose profile's) with its listening address and servers
replaced by local ones, so that what the tests exercise is the deployed configuration."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from golfrace.store.embedded import free_port, terminate

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "deploy" / "haproxy.cfg"
START_TIMEOUT = 15.0
CHECK_INTERVAL = "500ms"
"""Health-check interval of a local HAProxy (the deployed one checks every second)."""
LOCAL_MAXCONN = 4096
"""Connections of a local HAProxy (the deployed 100,000 need a file-descriptor limit a test machine lacks)."""


class BalancerError(Exception):
    pass


def haproxy_binary() -> str | None:
    found = shutil.which("haproxy")
    if found:
        return found
    fallback = Path("/usr/sbin/haproxy")
    return str(fallback) if fallback.exists() else None


def local_config(port: int, backends: list[int], template: str | None = None) -> str:
    """``deploy/haproxy.cfg`` listening on ``127.0.0.1:port`` with one server per backend port."""
    text = CONFIG.read_text() if template is None else template
    text, binds = re.subn(r"(?m)^(\s*)bind\s+:\d+\s*$", rf"\g<1>bind 127.0.0.1:{port}", text)
    if binds != 1:
        raise BalancerError("deploy/haproxy.cfg: expected one `bind :<port>` line")
    servers = re.findall(r"(?m)^(\s*)server\s+\S+\s+\S+.*$", text)
    if not servers:
        raise BalancerError("deploy/haproxy.cfg: no `server` lines")
    indent = servers[0]
    lines = "\n".join(f"{indent}server server{n} 127.0.0.1:{p}" for n, p in enumerate(backends, start=1))
    text = re.sub(r"(?m)^\s*server\s+\S+\s+\S+.*\n?", "", text).rstrip("\n") + "\n" + lines + "\n"
    text = re.sub(r"inter \S+", f"inter {CHECK_INTERVAL}", text)
    text = re.sub(r"(?m)^(\s*)maxconn\s+\d+", rf"\g<1>maxconn {LOCAL_MAXCONN}", text)
    return text.replace("log stdout format raw local0 warning", "log stderr format raw local0 warning")


@dataclass
class Balancer:
    """One HAProxy process in the foreground (``-db``)."""

    data_dir: Path
    backends: list[int]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = START_TIMEOUT) -> Balancer:
        binary = haproxy_binary()
        if binary is None:
            raise BalancerError("no haproxy binary")
        self.port = self.port or free_port()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        config = self.data_dir / "haproxy.cfg"
        config.write_text(local_config(self.port, self.backends))
        check = subprocess.run([binary, "-c", "-q", "-f", str(config)], capture_output=True, text=True)
        if check.returncode != 0:
            raise BalancerError(f"haproxy rejects its configuration: {check.stdout} {check.stderr}")
        with open(self.data_dir / "haproxy.log", "ab") as log:
            self.process = subprocess.Popen(
                [binary, "-db", "-f", str(config)], stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BalancerError(f"haproxy exited; see {self.data_dir / 'haproxy.log'}")
            if self._healthy():
                return self
            time.sleep(0.05)
        self.stop()
        raise BalancerError(f"haproxy did not pass /readyz through within {timeout} s")

    def _healthy(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                pass
            with urllib.request.urlopen(self.http + "/readyz", timeout=1) as resp:
                return bool(resp.status == 200)
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process, 5.0)
            self.process = None
