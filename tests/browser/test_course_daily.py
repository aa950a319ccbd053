"""The weekend's daily course in the web client (issue 22.3), against a server of this module on a
Saturday's clock (in this process, on its own event loop): the Daily view's weekend entry (a sign-in prompt
for a guest), the nine holes the server deals played by the keys with no hole's code in any frame the page
gets, the scorecard, the share text without a code, and the course's place on the day's board; English and
Hebrew, on a phone and a desktop."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from golfrace.course.service import CourseService
from golfrace.course.weekend import daily_course
from golfrace.engine import Draw, Game, Status, Tap
from golfrace.engine.course import HOLES, daily_share_text, to_par_text
from golfrace.engine.i18n import catalog
from golfrace.settings import Settings
from golfrace_testkit.servers import RunningServer, running_server

from ..accounts.helpers import sign_up_in_page
from ..clock import MovableClock
from ..course.conftest import SATURDAY_MS
from .helpers import shot
from .test_axe import scan

SIZES = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
DAY = date(2027, 1, 2)


@pytest.fixture(scope="module")
def weekend_server(settings: Settings, client_dist: Path) -> Iterator[RunningServer]:
    """A server on a Saturday's clock, on an event loop of its own thread (the browser tests are sync)."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def serve() -> None:
        box["stop"] = asyncio.Event()
        # every page signs up from 127.0.0.1, whose sign-up quota this worker's other servers share (the
        # quota itself is tested in tests/accounts); a cheap hash, as the subprocess servers' FAST_ENV
        fast = dataclasses.replace(
            settings.accounts,
            signups_per_ip=100,
            ip_free_attempts=100_000,
            password_time_cost=1,
            password_memory_kib=8192,
        )
        mine = settings.with_(port=0, accounts=fast)
        async with running_server(mine, clock=MovableClock(SATURDAY_MS)) as server:
            box["server"] = server
            ready.set()
            await box["stop"].wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(30), "the weekend server did not start"
    try:
        yield box["server"]
    finally:
        loop.call_soon_threadsafe(box["stop"].set)
        thread.join(30)


def keys_of(code: Any) -> tuple[list[str], Game]:
    """The keys of a simple line (the leftmost playable column, else draw) to the deal's end, and that end."""
    game, keys = Game.new(code, draws_final=True), []
    while game.status is Status.PLAYING:
        columns = game.playable_columns()
        keys.append(str(columns[0] + 1) if columns else "d")
        game = game.apply(Tap(columns[0] + 1) if columns else Draw())
    return keys, game


@pytest.mark.timeout(300)  # nine deals by the keys: long on a shared machine
# both languages and both sizes in two runs, English on a desktop and Hebrew (RTL) on a phone: nine deals by
# the keys cost ~20 s of a browser's CPU each time, and the four-way product cost the suite minutes
@pytest.mark.parametrize(("loc", "size"), [("en", "desktop"), ("he", "phone")])
def test_the_weekend_daily_course_from_the_daily_view(
    new_context: Any, weekend_server: RunningServer, loc: str, size: str
) -> None:
    phone = size == "phone"
    ctx = new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=weekend_server.http)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    frames: list[bytes] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda p: frames.append(p if isinstance(p, bytes) else p.encode())),
    )
    texts = catalog(loc)["ui"]["course"]
    course = daily_course(DAY, weekend_server.ctx.get(CourseService).secret)

    # a guest: the weekend's entry, with a sign-in prompt and an open course instead
    page.goto(f"{weekend_server.http}/?lang={loc}#/daily")
    page.wait_for_selector("[data-testid=daily-course][data-state=guest]")
    panel = page.locator("[data-testid=daily-course]")
    assert texts["daily_guest"] in panel.text_content()
    assert page.get_attribute("[data-testid=play-daily-course]", "href") == "#/course"
    sign_up_in_page(page)
    page.wait_for_selector("[data-testid=daily-course][data-state=new]")
    assert page.locator("[data-testid=play-daily-course]").text_content() == texts["daily_play"]
    shot(page, f"course-daily-entry-{size}-{loc}")
    assert scan(page, "daily view, weekend course") == []
    page.click("[data-testid=play-daily-course]")

    holes: list[int] = []
    for n in range(1, HOLES + 1):
        page.wait_for_function(
            "n => { const c = document.querySelector('.view.course');"
            " return !!c && c.dataset.daily === '2027-01-02' && c.dataset.hole === String(n)"
            " && c.dataset.v === '0' && c.dataset.status === 'playing'; }",
            arg=n,
        )
        assert page.locator(".view.course").get_attribute("data-hole-code") == ""
        keys, end = keys_of(course.hole(n))
        for key in keys:
            page.keyboard.press(key)
        page.wait_for_function(
            "s => document.querySelector('.view.course')?.dataset.status === s", arg=end.status.value
        )
        holes.append(35 - end.removed)
        page.click("[data-testid=next-hole]")
    page.wait_for_selector("[data-testid=course-result]:not([hidden])")
    assert page.locator(".sc-strokes td").all_text_contents()[:HOLES] == [str(s) for s in holes]
    assert page.locator("[data-testid=course-result]").text_content() == texts["finished"].format(
        strokes=sum(holes), to_par=to_par_text(sum(holes) - 45, loc)
    )
    page.wait_for_selector("[data-testid=course-rank]:not([hidden])")
    board = page.evaluate(
        """async () => {
          const headers = {Authorization: `Bearer ${window.golfrace.conn.token}`};
          const r = await fetch('/api/leaderboards/course-day/2027-01-02', {headers});
          return r.json();
        }"""
    )
    assert board["you"]["entry"]["holes"] == holes
    assert page.locator("[data-testid=course-rank]").text_content() == texts["your_rank"].format(
        rank=board["you"]["rank"], total=board["total"]
    )
    page.click("[data-testid=share-course]")
    page.wait_for_function("() => document.querySelector('#toast.show')")
    shared = page.evaluate("navigator.clipboard.readText()")
    assert shared == daily_share_text(DAY.isoformat(), holes, loc)
    shot(page, f"course-daily-done-{size}-{loc}")
    assert scan(page, "daily course over") == []

    # no frame the page got carried the course's code or a hole's (the day is still on)
    letters = [str(course).split("-")[2], *(c.letters for c in course.holes)]
    assert len(frames) > HOLES  # the snapshots and diffs of nine holes at least
    assert not [x for x in letters for f in frames if x.encode() in f]
    # the Daily view: done, with the strokes
    page.goto(f"{weekend_server.http}/?lang={loc}#/daily")
    page.wait_for_selector("[data-testid=daily-course][data-state=done]")
    assert page.locator(".daily-course-done").text_content() == texts["daily_done"].format(
        strokes=sum(holes), to_par=to_par_text(sum(holes) - 45, loc)
    )
    assert not errors, errors
