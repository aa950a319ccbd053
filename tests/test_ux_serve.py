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

from golfrace.settings.secret import weakness
from golfrace.store.embedded import free_port

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


def test_make_run_takes_port_and_host(redis_url: str, tmp_path: Path) -> None:
    """And it makes a strong secret on the first start, kept for the next (fair play 19.7)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "GOLFRACE_SECRET"}
    env["REDIS_URL"] = redis_url
    secret_file = tmp_path / "var" / "secret"
    process = subprocess.Popen(
        [
            "make",
            "--no-print-directory",
            "run",
            f"PORT={port}",
            "HOST=127.0.0.1",
            f"SECRET_FILE={secret_file}",
        ],
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
        # by name, not 127.0.0.1: passkeys need a domain (issue 20.4)
        assert f"golfrace: serving on http://localhost:{port}/\n" in lines, lines
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            assert answer.status == 200
        kept = secret_file.read_text().strip()
        assert len(kept) == 64 and int(kept, 16) >= 0 and weakness(kept) is None
        assert secret_file.stat().st_mode & 0o077 == 0  # its owner's only
        assert kept not in "".join(lines)  # never printed
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)


def test_serve_refuses_a_weak_secret_in_one_line(redis_url: str) -> None:
    """Fair play 19.7: with GOLFRACE_SECRET=changeme the secret was found offline from a guest token in 4
    guesses, and the daily's codes computed from it."""
    args = [sys.executable, "-m", "golfrace", "serve", "--host", "127.0.0.1", "--port", str(free_port())]
    for weak in ("changeme", "a" * 64, "0123456789abcdef" * 4, "x7Gq2pL9vR4mT8wZ"):
        env = {**os.environ, "GOLFRACE_SECRET": weak}
        done = subprocess.run(
            [*args, "--redis", redis_url], capture_output=True, text=True, timeout=30, env=env
        )
        assert done.returncode == 2, (weak, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "GOLFRACE_SECRET is too weak" in lines[0], done.stderr
        assert "secrets.token_hex(32)" in lines[0] and weak not in lines[0]
        assert "serving on" not in done.stdout


def test_the_address_printed_is_one_where_passkeys_work() -> None:
    from golfrace.cli.server_cmds import serving_lines

    assert serving_lines("127.0.0.1", 8000) == ["golfrace: serving on http://localhost:8000/"]
    assert serving_lines("::1", 8000) == ["golfrace: serving on http://localhost:8000/"]
    assert serving_lines("0.0.0.0", 8000)[0] == "golfrace: serving on http://localhost:8000/"
    assert serving_lines("golf.example", 443) == ["golfrace: serving on http://golf.example:443/"]
    on_ip = serving_lines("192.168.1.20", 8000)
    assert on_ip[0] == "golfrace: serving on http://192.168.1.20:8000/" and "passwords only" in on_ip[1]
