"""A past daily from the daily view, in a real Chromium (English on a desktop, Hebrew on a phone): the
view lists the days before today, each a link to its board; a past day's board offers its winning game to
analyse (its code is public once the day is over), and the link opens the analysis."""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis.asyncio as aioredis

from golfrace.engine import token
from golfrace.engine.i18n import catalog
from golfrace.races.leaderboard import Entry, Leaderboards, daily_board
from golfrace.races.replay import GameRecord, RecordStore, verify
from golfrace.settings import Settings
from golfrace.wire.ids import new_race_id, seat_id

from .helpers import EXAMPLE_CODE, EXAMPLE_WIN
from .test_axe import scan

SIZES = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
LOADED_MS = 30_000


async def _seed(url: str, day: str) -> str:
    """A finished ranked daily attempt of ``day`` at the top of its board, with its record: its game id."""
    game_id = seat_id(new_race_id(), 1)  # a race seat's id by the one id rule (a hex id was refused)
    start = int(datetime.fromisoformat(f"{day}T12:00:00+00:00").timestamp() * 1000)
    log = tuple((token(a), 2_000 + 1_500 * i) for i, a in enumerate(EXAMPLE_WIN))
    record = GameRecord(
        game_id, EXAMPLE_CODE, "p" + secrets.token_hex(6), "Pat", "won", start, start + log[-1][1], log,
        ranked=True, daily=day,
    )  # fmt: skip
    v = verify(record)
    redis = aioredis.from_url(url)
    try:
        await RecordStore(redis, 3_600).save(record)
        entry = Entry(
            record.player, "Pat", int(v.score), record.elapsed, v.moves, record.finished_at, game_id
        )
        await Leaderboards(redis, ttl_s=3_600).submit(daily_board(day), record.player, entry)
    finally:
        await redis.aclose()
    return game_id


# each case a day of its own: the session's server keeps the other case's board (its best would be listed)
@pytest.mark.parametrize(
    ("loc", "size", "days_ago"), [("en", "desktop", 2), ("he", "phone", 3)], ids=["en-desktop", "he-phone"]
)
def test_a_past_daily_is_analysed_from_the_daily_view(
    new_context: Any, web_server: Any, settings: Settings, loc: str, size: str, days_ago: int
) -> None:
    day = (datetime.now(UTC) - timedelta(days=days_ago)).date().isoformat()
    with ThreadPoolExecutor(1) as pool:  # the sync Playwright runs an event loop on this thread
        game = pool.submit(asyncio.run, _seed(settings.redis_url, day)).result(timeout=30)
    ui = catalog(loc)["ui"]
    phone = size == "phone"
    page = new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{web_server.http}/?lang={loc}#/daily")
    link = page.locator(f".daily-past-days a[data-day='{day}']")
    link.wait_for()
    assert page.text_content("#daily-past-title") == ui["daily_past"]
    assert link.get_attribute("href") == f"#/leaderboards/daily/{day}"
    assert scan(page, "daily, past days") == []
    link.click()
    page.wait_for_selector(f".boards-view[data-loaded='daily:{day}']")
    analyse = page.locator("[data-testid=board-analyse]:not([hidden])")
    analyse.wait_for()
    assert analyse.text_content() == ui["board_analyse_best"]
    assert analyse.get_attribute("href") == f"#/analysis/{game}"
    assert page.locator("[data-testid=board-analyse-mine]").is_hidden()  # no game of mine that day
    assert scan(page, "a past day's board") == []
    analyse.click()
    page.wait_for_selector(".analysis-view[data-loaded='1']", timeout=LOADED_MS)
    assert page.evaluate("document.documentElement.dir") == ("rtl" if loc == "he" else "ltr")
    assert not errors, errors
