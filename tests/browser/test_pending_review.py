"""A ranked result near the top of its board waits for its knowledge review: the racer's results table marks
it "pending review" (explained under the table), and the leaderboard page says so under the table, where
the result itself is not listed. Phone and desktop, English and Hebrew (RTL)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from golfrace.engine.i18n import catalog
from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer
from golfrace_testkit.servers import start_process, stop_process

from ..accounts.helpers import sign_up_in_page
from .conftest import ARTIFACTS, FAST_ENV
from .helpers import open_page, resign, shot

# every ranked result of two moves or more is reviewed, no timing floor holds it first, and this server
# reviews nothing itself (queue 0), on a Redis of its own (every other instance would take the pending
# review from the durable "to review" record): the result stays pending for as long as the test looks
PENDING_ALL = {
    "GOLFRACE_RACE_REVIEW_MIN_MOVES": "2",
    "GOLFRACE_RACE_REVIEW_MEDIAN_GAP_MS": "0",
    "GOLFRACE_RACE_REVIEW_FIRST_MOVE_MS": "0",
    "GOLFRACE_RACE_REVIEW_MEAN_GAP_MS": "0",
    "GOLFRACE_RACE_REVIEW_FAST_SHARE": "1",
    "GOLFRACE_RACE_REVIEW_QUEUE_MAX": "0",
}
NOTES = "[...document.querySelectorAll('.results-notes:not([hidden]) li')].map(li => li.dataset.note).join()"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 768}}


@pytest.mark.parametrize(("lang", "size"), [("en", "phone"), ("he", "desktop"), ("he", "phone")])
def test_a_result_near_the_top_shows_pending_review_and_is_on_no_board(
    new_context: Any, settings: Settings, client_dist: Any, lang: str, size: str, own_redis: RedisServer
) -> None:
    ui = catalog(lang)["ui"]
    running = start_process(
        settings.with_(port=0, redis_url=own_redis.url),
        env={**FAST_ENV, **PENDING_ALL},
        log=ARTIFACTS / "browser-pending-server.log",
    )
    try:
        base = running.http
        page = open_page(lambda: new_context(viewport=SIZES[size], locale=lang), f"{base}/?lang={lang}#/race")
        sign_up_in_page(page)
        page.goto(f"{base}/?lang={lang}#/race")
        page.click(".race-create .create")
        page.wait_for_function("location.hash.startsWith('#/race/')")
        race_id = str(page.evaluate("location.hash.split('/')[2]"))
        page.click(".start")
        page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])")
        for v in (1, 2):
            page.click(".race-board .stock")
            page.wait_for_selector(f'.race-room[data-v="{v}"]')
        resign(page)
        marked = ".results tr.me[data-review='pending'] td:nth-child(3)"
        page.wait_for_selector(marked, timeout=10_000)
        assert ui["results_marks"]["pending"] in page.text_content(marked)
        assert page.evaluate(NOTES) == "stuck,pending"
        assert ui["results_notes"]["pending"] in page.locator(".results-notes").text_content()
        shot(page, f"pending-review-results-{lang}-{size}")

        with httpx.Client(base_url=base, timeout=10) as http:
            code = http.get(f"/api/races/{race_id}").json()["code"]
        page.goto(f"{base}/?lang={lang}#/leaderboards/code/{code}")
        page.wait_for_selector(".board-pending:not([hidden])", timeout=10_000)
        assert page.locator(".board-table tbody tr").count() == 0  # not on the board meanwhile
        text = page.text_content(".board-pending")
        assert text == ui["board_pending"].replace("{score}", "0")
        shot(page, f"pending-review-board-{lang}-{size}")
        assert page.errors == []
    finally:
        stop_process(running)
