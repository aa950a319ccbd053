"""Running real servers from tests and benchmarks: in-process (uvicorn in the caller's event loop) or as
``golfrace serve`` subprocesses. Loopback only; every wait has a deadline."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from golfrace.http.app import create_app
from golfrace.http.extension import Extension
from golfrace.live.services import Clock, wall_clock
from golfrace.seams.uvicorn_server import Server, uvicorn_config
from golfrace.server import EXTENSIONS
from golfrace.settings import Settings
from golfrace.store.embedded import free_port, terminate

START_TIMEOUT = 60.0  # a loaded machine (two cores, several suites) imports slowly: a deadline, not a wait
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""Headless Chromium for the browser tests and the client benchmark: no sandbox (containers), no GPU, no
background traffic."""


@dataclass
class RunningServer:
    settings: Settings
    server: Server | None = None
    process: subprocess.Popen[bytes] | None = None
    app: Any = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.settings.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.settings.port}/ws"

    @property
    def site(self) -> str:
        """``http`` by name (``localhost``): a passkey needs a domain name as its relying party's id."""
        return f"http://localhost:{self.settings.port}"

    @property
    def ctx(self) -> Any:
        """The server's Context (in-process servers only)."""
        return self.app.state.ctx


@contextlib.asynccontextmanager
async def running_server(
    settings: Settings,
    extensions: Sequence[Extension] = EXTENSIONS,
    clock: Clock = wall_clock,
    **uvicorn_options: Any,
) -> AsyncIterator[RunningServer]:
    """A server in this event loop on ``settings.port`` (0: a free port is chosen), on ``clock``."""
    if not settings.port:
        settings = settings.with_(port=free_port())
    app = create_app(settings, extensions, clock)
    server = Server(uvicorn_config(app, settings, **uvicorn_options), signals="none")
    task = asyncio.create_task(server.serve())
    deadline = time.monotonic() + START_TIMEOUT
    while not server.listening:
        if task.done():
            task.result()
            raise RuntimeError("uvicorn stopped during startup")
        if time.monotonic() > deadline:
            server.stop()
            raise TimeoutError("uvicorn did not start")
        await asyncio.sleep(0.01)
    running = RunningServer(settings, server=server, app=app)
    try:
        yield running
    finally:
        server.stop()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, 10)


def start_process(
    settings: Settings, env: dict[str, str] | None = None, log: Path | None = None
) -> RunningServer:
    """``golfrace serve`` as a subprocess on ``settings.port`` against ``settings.redis_url``; waits for
    ``/healthz``."""
    if not settings.port:
        settings = settings.with_(port=free_port())
    full_env = {**os.environ, **settings_env(settings), **(env or {})}
    args = [sys.executable, "-m", "golfrace", "serve", "--host", "127.0.0.1", "--port", str(settings.port)]
    if settings.redis_url:
        args += ["--redis", settings.redis_url]
    if log is None:
        process = subprocess.Popen(args, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:  # the child has its own copy of the descriptor
            process = subprocess.Popen(args, env=full_env, stdout=out, stderr=subprocess.STDOUT)
    running = RunningServer(settings, process=process)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"golfrace serve exited with {process.returncode}")
        try:
            with urllib.request.urlopen(running.http + "/healthz", timeout=1) as resp:
                if resp.status == 200:
                    return running
        except OSError:
            time.sleep(0.05)
    stop_process(running)
    raise TimeoutError("golfrace serve did not become healthy")


def settings_env(settings: Settings) -> dict[str, str]:
    """``GOLFRACE_*`` variables that rebuild ``settings`` in a subprocess (defaults are left out)."""
    out = _changed(
        settings, Settings(), "GOLFRACE_", skip=("host", "port", "races", "hints", "pool", "friends")
    )
    out.update(_changed(settings.races, Settings().races, "GOLFRACE_RACE_"))
    out.update(_changed(settings.pool, Settings().pool, "GOLFRACE_POOL_"))
    out.update(_changed(settings.hints, Settings().hints, "GOLFRACE_HINT_"))
    out.update(_changed(settings.friends, Settings().friends, "GOLFRACE_FRIEND_"))
    return out


def _changed(settings: Any, default: Any, prefix: str, skip: Sequence[str] = ()) -> dict[str, str]:
    out = {}
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        if value != getattr(default, f.name) and value is not None and f.name not in skip:
            out[f"{prefix}{f.name.upper()}"] = str(value)
    return out


def stop_process(running: RunningServer, timeout: float = 10.0) -> None:
    if running.process is not None:
        terminate(running.process, timeout)
