"""``make run PORT=… HOST=…`` and a port that is taken (issue 13, defect 9): the server says plainly that the
port is in use and how to choose another, and never claims to be serving first."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from golfrace.redis_server import free_port

REPO = Path(__file__).resolve().parents[1]
START_S = 60  # make run builds the client first


def test_a_taken_port_is_said_plainly(redis_url: str) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        args = [sys.executable, "-m", "golfrace", "serve", "--host", "127.0.0.1", "--port", str(port)]
        done = subprocess.run([*args, "--redis", redis_url], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in done.stderr
    assert f"--port {port + 1}" in done.stderr and f"make run PORT={port + 1}" in done.stderr
    assert "serving on" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_make_run_takes_port_and_host(redis_url: str) -> None:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url}
    process = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={port}", "HOST=127.0.0.1"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: make and the server it started stop together
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + START_S
        lines: list[str] = []
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "serving on" in line:
                break
        assert f"golfrace: serving on http://127.0.0.1:{port}/\n" in lines, lines
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            assert answer.status == 200
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
