"""Dialogs (issue 20): they belong to their view (2): Back from a finished game closes its end dialog, so the
page shown under it is usable; a daily result held for review says so (6)."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace.engine.i18n import catalog
from golfrace.settings import Settings
from golfrace_testkit.servers import start_process, stop_process

from ..accounts.helpers import sign_up_in_page
from .conftest import ARTIFACTS, FAST_ENV
from .helpers import EXAMPLE_CODE, deal, press, resign, shot, stuck_line, winning_line
from .test_learn import PHONE, visit
from .test_play import STUCK_CODE
from .test_race_results_marks import REVIEW_ALL
from .test_ux_race_start import LAPTOP

OPEN_DIALOGS = "[...document.querySelectorAll('dialog[open]')].map(d => d.className)"


@pytest.mark.parametrize("end", ["stuck", "won"])
def test_back_from_a_finished_game_closes_its_dialog(page: Any, web_server: Any, end: str) -> None:
    page.goto(f"{web_server.http}/#/rules")
    page.wait_for_selector(".rules-page")
    page.click('.nav a[data-view="play"]')
    page.wait_for_selector(".play[data-v]")
    code = STUCK_CODE if end == "stuck" else EXAMPLE_CODE
    deal(page, code)
    for action in stuck_line(code) if end == "stuck" else winning_line(code):
        press(page, action)
    page.wait_for_selector(f"dialog.end.{end}[open]")
    page.go_back()
    page.wait_for_selector(".rules-page")
    assert page.evaluate(OPEN_DIALOGS) == []
    # the page under it takes clicks: the rules' links work
    page.click('.nav a[data-view="stats"]')
    page.wait_for_function("location.hash === '#/stats'")
    shot(page, f"dialog-back-{end}")


def test_back_from_the_new_game_dialog_closes_it(page: Any, web_server: Any) -> None:
    page.click('.nav a[data-view="rules"]')
    page.wait_for_selector(".rules-page")
    page.go_back()
    page.wait_for_selector(".play[data-v]")
    page.click(".hud .new")
    page.wait_for_selector("dialog.new-game[open]")
    page.go_forward()
    page.wait_for_selector(".rules-page")
    assert page.evaluate(OPEN_DIALOGS) == []


@pytest.mark.parametrize(("loc", "viewport"), [("en", PHONE), ("he", LAPTOP)], ids=["en-phone", "he-laptop"])
def test_a_daily_result_held_for_review_says_so(
    new_context: Any, settings: Settings, client_dist: Any, loc: str, viewport: Any
) -> None:
    """Issue 20, 6: the daily's result dialog of a result held for review says so and what it means, and
    shows no streak of 0 nor a place among the day's scores."""
    running = start_process(
        settings.with_(port=0), env={**FAST_ENV, **REVIEW_ALL}, log=ARTIFACTS / "browser-held-server.log"
    )
    try:
        page = visit(new_context, f"{running.http}/?lang={loc}#/daily", viewport)
        page.wait_for_function("window.golfrace.conn.welcome != null")
        sign_up_in_page(
            page
        )  # fair play 19.1: the day's ranked attempt is an account's (a guest's counts nil)
        page.wait_for_selector(".daily-view[data-played='0'][data-guest='0']")
        page.click(".play-daily")  # an account has its name: no question
        page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])", timeout=15_000)
        for v in (1, 2):
            page.keyboard.press("d")
            page.wait_for_selector(f'.race-room[data-v="{v}"]')
        resign(page)
        dialog = page.locator("[data-testid=daily-end][data-status='1']")
        dialog.wait_for()
        held = dialog.locator(".de-held")
        assert held.is_visible()
        assert held.text_content() == catalog(loc)["ui"]["daily_held"]
        assert dialog.get_attribute("data-held") == "too_fast"
        assert dialog.locator(".de-streak").text_content() == "—"
        assert dialog.locator(".de-percentile").is_hidden()
        assert dialog.locator(".histogram li.me").count() == 0
        shot(page, f"daily-held-{loc}-{viewport['width']}")
        assert page.errors == []
    finally:
        stop_process(running)
