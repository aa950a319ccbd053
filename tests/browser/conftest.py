"""Browser tests: Debian's Chromium driven by Python Playwright against a real ``golfrace serve`` subprocess
(the session's real Redis from tests/conftest.py). Marked ``browser``: skipped on a machine without
Chromium, but never in CI (CI=true), where a missing browser is a failure."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer, start_test_server
from golfrace_testkit.servers import CHROMIUM_ARGS, RunningServer, start_process, stop_process

from .helpers import record_frames

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "client_web" / "dist"
ARTIFACTS = REPO / "test-artifacts"
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
"""This session's pytest-xdist worker (make pytest runs several): its servers log to files of its own."""
CHROMIUM = os.environ.get("GOLFRACE_CHROMIUM", "/usr/bin/chromium")
# the server's limits for a fast-clicking robot (the limits themselves are tested by the server's tests)
SEEN_WALKTHROUGH = "try { localStorage.setItem('golfrace.learned', '1') } catch (e) {}"
FAST_ENV = {
    "GOLFRACE_RATE": "500",
    # quick races (tests/browser/test_quick_race.py): bots after 6 s (a searching page's checks and shot,
    # and a second page's press, come well within it on a loaded machine), fast bots, so that a race ends soon
    "GOLFRACE_POOL_BOT_WAIT_S": "6",
    "GOLFRACE_POOL_BOT_MOVE_MS": "150",
    "GOLFRACE_POOL_COUNTDOWN_MS": "2500",
    "GOLFRACE_BURST": "500",
    "GOLFRACE_ACCOUNT_SIGNUPS_PER_IP": "100",
    # every page comes from 127.0.0.1: the wrong passwords the pages try must not add up to the network's
    # delay (the per-name throttle stays; both are tested in tests/accounts/test_throttle.py)
    "GOLFRACE_ACCOUNT_IP_FREE_ATTEMPTS": "100000",
    # a cheap argon2id for the pages' passwords (the cost itself is tested in tests/accounts/): a hash in
    # ~10 ms instead of ~0.2 s, so that three test workers hashing at once do not starve the pages
    "GOLFRACE_ACCOUNT_PASSWORD_TIME_COST": "1",
    "GOLFRACE_ACCOUNT_PASSWORD_MEMORY_KIB": "8192",
    # a friend's race shows in the Friends view within half a second (tests/browser/test_friends.py)
    "GOLFRACE_FRIEND_PRESENCE_REFRESH_S": "0.5",
    # the hint solver's wall budget: its worker runs niced, and three test workers starve it on two cores, so
    # that the default 2 s ran out before the proof that a deal cannot be won (winnable null, no toast); the
    # state budget still bounds it (the wall budget itself is tested in tests/engine/test_solver.py)
    "GOLFRACE_HINT_MAX_SECONDS": "30",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real Chromium (skipped where none is installed)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the browser tests and run them last: Playwright's sync API keeps its own event loop for the rest
    of the session, and the asyncio tests must not run after it has started."""
    here = Path(__file__).parent
    browser_items = [item for item in items if here in Path(str(item.fspath)).parents]
    for item in browser_items:
        item.add_marker(pytest.mark.browser)
    others = [item for item in items if item not in browser_items]
    items[:] = others + browser_items


def _need(condition: bool, reason: str) -> None:
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def client_dist() -> Path:
    """The built web client; built here when `make` did not (needs npm), by one pytest-xdist worker at a
    time (the others then find it built)."""
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / ".client-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _build_client()
    return DIST


def _build_client() -> None:
    if not (DIST / "index.html").is_file():
        npm = shutil.which("npm")
        _need(npm is not None, "client_web/dist is not built and npm is missing")
        cwd = REPO / "client_web"
        if not (cwd / "node_modules").is_dir():
            subprocess.run([npm or "npm", "ci", "--no-audit", "--no-fund"], cwd=cwd, check=True, timeout=300)
        subprocess.run([npm or "npm", "run", "build"], cwd=cwd, check=True, timeout=120)


@pytest.fixture(scope="session")
def web_server(settings: Settings, client_dist: Path) -> Iterator[RunningServer]:
    """`golfrace serve` in its own process, serving client_web/dist, on the session's Redis."""
    ARTIFACTS.mkdir(exist_ok=True)
    running = start_process(
        settings.with_(port=0), env=FAST_ENV, log=ARTIFACTS / f"browser-server-{WORKER}.log"
    )
    try:
        yield running
    finally:
        stop_process(running)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of the test's own, for a server whose state no other instance may touch (every instance
    sweeps the shared durable records, such as the knowledge review's "to review" one)."""
    server = start_test_server(tmp_path / "redis")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    _need(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def new_context(browser: Any) -> Iterator[Any]:
    """``new_context(**options)``: a fresh browser profile (its own token and settings), closed afterwards;
    ``first_visit=True`` for a profile that has not seen the walkthrough yet (it opens on its own)."""
    contexts: list[Any] = []

    def make(first_visit: bool = False, **options: Any) -> Any:
        options.setdefault("viewport", {"width": 1280, "height": 820})
        options.setdefault("locale", "en-US")
        ctx = browser.new_context(**options)
        ctx.set_default_timeout(10_000)
        if not first_visit:  # a player who has seen the first visit's walkthrough (test_learn.py tests it)
            ctx.add_init_script(SEEN_WALKTHROUGH)
        contexts.append(ctx)
        return ctx

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def page(new_context: Any, web_server: RunningServer) -> Any:
    """A page on the Play view with its first board shown."""
    pg = new_context().new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.recorded_frames = record_frames(pg)  # for the failure message of helpers.click and press
    pg.goto(web_server.http + "/")
    pg.wait_for_selector(".play[data-v]")
    yield pg
    assert not errors, f"page errors: {errors}"
