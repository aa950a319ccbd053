"""Words and numbers (issue 20, 9): a tie is said as a tie ("tied with n", else "top x %", never "better than
50 %"), the solo win offers the same deal again (not a rematch), a practice attempt's header says practice,
the race form says what ranks, the Hebrew agrees with itself, and the stuck dialog gives the deal's best."""

from __future__ import annotations

import json
from typing import Any

import pytest

from golfrace.engine.i18n import catalog
from golfrace.engine.solver import par

from ..accounts.helpers import sign_up_in_page
from .helpers import EXAMPLE_CODE, deal, press, stuck_line, winning_line
from .node import node_json
from .test_learn import PHONE, visit
from .test_play import STUCK_CODE


def standing(scores: list[list[int]], mine: int, counted: bool = True) -> Any:
    args = json.dumps([scores, mine, counted])
    write = f"process.stdout.write(JSON.stringify(m.standing(...{args})))"
    script = f"import('./src/game/standing.js').then(m => {write})"
    out = node_json(script, timeout=30)
    return out


def test_a_tie_is_a_tie_and_a_place_is_a_top_share() -> None:
    assert standing([[350, 4]], 350) == {"tied": 3}  # everyone made 350: not "better than 50 %"
    assert standing([[350, 4]], 350, counted=False) == {"tied": 4}  # a guest, not on the board
    assert standing([[350, 1], [300, 9]], 350) == {"top": 10}  # the best alone of ten
    assert standing([[350, 2], [300, 8]], 350) == {"top": 10}  # tied for the first place of ten
    assert standing([[350, 5], [300, 5]], 300) == {"top": 60}
    assert standing([[350, 1]], 350) is None  # nobody else yet


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_stuck_dialog_gives_the_deals_best(new_context: Any, web_server: Any, loc: str) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={loc}", PHONE)
    page.wait_for_selector(".play[data-v]")
    deal(page, STUCK_CODE)
    for action in stuck_line(STUCK_CODE):
        press(page, action)
    best = page.locator("[data-testid=stuck-dialog][data-best] .stuck-best")
    best.wait_for(timeout=10_000)
    assert best.text_content() == catalog(loc)["ui"]["best_possible"].replace("{n}", str(par(STUCK_CODE)))
    assert not page.errors


def test_the_solo_win_offers_the_same_deal_again(page: Any) -> None:
    deal(page, EXAMPLE_CODE)
    for action in winning_line(EXAMPLE_CODE):
        press(page, action)
    again = page.locator("[data-testid=win-dialog] .again-end")
    again.wait_for()
    assert again.text_content() == catalog("en")["ui"]["same_deal_again"]


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_race_form_says_what_ranks_and_hebrew_agrees(new_context: Any, web_server: Any, loc: str) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={loc}#/race", PHONE)
    ui = catalog(loc)["ui"]
    help_line = page.locator(".race-create .race-ranked-help")
    help_line.wait_for()
    assert help_line.text_content() == ui["race_ranked_help"]
    if loc == "he":  # one form of address throughout (the plural), and no masculine "won" for a racer
        assert "שלך" not in json.dumps(ui, ensure_ascii=False)
        assert page.locator("label[for=race-name]").text_content() == "השם שלכם"
        assert ui["status"]["won"] != "ניצח"


def test_a_practice_attempts_header_says_practice(new_context: Any, web_server: Any) -> None:
    page = visit(new_context, f"{web_server.http}/#/daily", PHONE)
    page.wait_for_function("window.golfrace.conn.welcome != null")
    sign_up_in_page(page)  # fair play 19.1: practice comes after an account's ranked attempt
    page.wait_for_selector(".daily-view[data-played='0'][data-guest='0']")
    page.click(".play-daily")  # an account has its name: no question
    page.wait_for_selector(".race-room[data-phase=running] .race-hud .resign:not([hidden])", timeout=15_000)
    page.click(".race-hud .resign")
    page.wait_for_selector("dialog.confirm[open] .ok:focus")
    page.keyboard.press("Enter")
    page.locator("[data-testid=daily-end]").wait_for()
    page.click("[data-testid=daily-end] .de-close")
    page.goto(f"{web_server.http}/#/daily")
    page.click(".daily-view[data-played='1'] .play-daily")  # again: practice
    page.wait_for_selector(".race-room[data-phase=running] .race-meta", timeout=15_000)
    ui = catalog("en")["ui"]
    page.wait_for_function(
        "text => document.querySelector('.race-meta')?.textContent.includes(text)", arg=ui["practice"]
    )
    assert ui["casual"] not in (page.text_content(".race-meta") or "")
