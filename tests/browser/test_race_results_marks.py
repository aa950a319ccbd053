"""The results table says what the bare score does not: a game stopped early is scored as a stuck one
(`scored_as_stuck`), and a ranked result played faster than anyone can is held for review (its record's
`review`), each word explained once under the table, for the racer and for a spectator
alike (whose page reads the records when it loads the replay)."""

from __future__ import annotations

from typing import Any

from golfrace.engine.i18n import catalog
from golfrace.settings import Settings
from golfrace_testkit.servers import start_process, stop_process

from ..accounts.helpers import sign_up_in_page
from .conftest import ARTIFACTS, FAST_ENV
from .helpers import EXAMPLE_CODE, host_race, open_page, resign

UI = catalog("en")["ui"]
# every ranked result of two moves or more counts as too fast on this server
REVIEW_ALL = {"GOLFRACE_RACE_REVIEW_MEDIAN_GAP_MS": "3600000", "GOLFRACE_RACE_REVIEW_MIN_MOVES": "2"}
ROW = "document.querySelector('.results-table tbody tr')"
NOTES = "[...document.querySelectorAll('.results-notes:not([hidden]) li')].map(li => li.dataset.note).join()"


def play_two_and_resign(page: Any) -> None:
    page.click(".start")  # a race of one: its host alone
    page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])")
    page.click(".race-board .stock")
    page.wait_for_selector('.race-room[data-v="1"]')
    page.click(".race-board .stock")
    page.wait_for_selector('.race-room[data-v="2"]')
    resign(page)
    page.wait_for_selector(".results:not([hidden]) .results-table tbody tr")


def test_a_resigned_ranked_result_is_scored_as_stuck_and_held_for_review(
    new_context: Any, settings: Settings, client_dist: Any
) -> None:
    running = start_process(
        settings.with_(port=0), env={**FAST_ENV, **REVIEW_ALL}, log=ARTIFACTS / "browser-marks-server.log"
    )
    try:
        base = running.http
        host, race_id = host_race(new_context, base, account=True)  # a random deal: ranked (an account's)
        play_two_and_resign(host)
        marked = "tr.me[data-scored-as-stuck='1'][data-review='too_fast'] td:nth-child(3)"
        host.wait_for_selector(f".results {marked}", timeout=10_000)
        words = [UI["status"]["resigned"], UI["results_marks"]["stuck"], UI["results_marks"]["review"]]
        assert host.text_content(f".results {marked}") == " · ".join(words)
        assert host.evaluate(NOTES) == "stuck,review"
        notes = host.locator(".results-notes li")
        assert notes.all_text_contents() == [UI["results_notes"]["stuck"], UI["results_notes"]["review"]]

        # a spectator who comes after the end: scored as stuck at once, held for review once the replay has
        # loaded the records (the page reads no record before)
        watcher = open_page(new_context, f"{base}/#/watch/{race_id}")
        watcher.wait_for_selector(".watch-view tr[data-scored-as-stuck='1']:not([data-review])")
        assert watcher.evaluate(NOTES) == "stuck"
        watcher.click(".replay")
        watcher.wait_for_selector(
            ".watch-view tr[data-scored-as-stuck='1'][data-review='too_fast']", timeout=10_000
        )
        assert watcher.evaluate(f"{ROW}.children[2].textContent") == " · ".join(words)
        assert watcher.evaluate(NOTES) == "stuck,review"

        # a typed deal ranks nobody and is never reviewed: scored as stuck, and nothing more
        typed, _typed_id = host_race(new_context, base, EXAMPLE_CODE)
        play_two_and_resign(typed)
        typed.wait_for_selector(".results tr.me[data-scored-as-stuck='1']")
        assert typed.evaluate(f"{ROW}.dataset.review") is None
        assert typed.evaluate(NOTES) == "stuck"
        assert host.errors == [] and watcher.errors == [] and typed.errors == []
    finally:
        stop_process(running)


def test_the_dailys_verdict_comes_from_the_days_status_also_after_a_reload(
    new_context: Any, settings: Settings, client_dist: Any
) -> None:
    running = start_process(
        settings.with_(port=0),
        env={**FAST_ENV, **REVIEW_ALL},
        log=ARTIFACTS / "browser-marks-daily-server.log",
    )
    try:
        page = open_page(new_context, f"{running.http}/#/daily")
        page.wait_for_function("window.golfrace.conn.welcome != null")
        sign_up_in_page(page)  # the day's deal is an account's (fair play 19.1)
        page.wait_for_selector(".daily-view[data-played][data-guest='0']")
        page.click(".play-daily")  # an account has its name: no question
        page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])", timeout=15_000)
        for v in (1, 2):
            page.keyboard.press("d")
            page.wait_for_selector(f'.race-room[data-v="{v}"]')
        resign(page)
        page.locator("[data-testid=daily-end]").wait_for()  # its dialog asks for the day's status
        marked = ".results tr.me[data-scored-as-stuck='1'][data-review='too_fast']"
        page.wait_for_selector(marked, state="attached", timeout=10_000)
        # the attempt's page opened again after the end asks for the day's status itself
        page.reload()
        page.wait_for_selector(".race-room[data-phase=finished] .results:not([hidden])")
        page.wait_for_selector(marked, timeout=10_000)
        assert page.evaluate(NOTES) == "stuck,review"
        assert page.errors == []
    finally:
        stop_process(running)
