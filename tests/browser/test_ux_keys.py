"""Keyboard and screen reader (issue 20, 12): the arrow keys move between free cards, a skip link reaches the
board in one Tab, the focus goes to the board after a new deal and after "Play this deal", and the Rules page
keeps the screen reader's long reading of the example deal out of sighted readers' way."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .helpers import EXAMPLE_CODE, deal

FOCUSED = "document.activeElement?.closest('.column')?.dataset.col ?? document.activeElement?.className"


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_arrow_keys_move_between_free_cards(new_context: Any, web_server: Any, loc: str) -> None:
    page = new_context().new_page()
    page.goto(f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    page.focus('.tableau .column[data-col="3"] .card.free')
    ahead, back = ("ArrowRight", "ArrowLeft") if loc == "en" else ("ArrowLeft", "ArrowRight")
    page.keyboard.press(ahead)
    assert page.evaluate(FOCUSED) == "4"  # the next column, the way the arrow points on the page
    page.keyboard.press(back)
    page.keyboard.press(back)
    assert page.evaluate(FOCUSED) == "2"
    x = [page.locator(f'.column[data-col="{c}"]').bounding_box()["x"] for c in (2, 4)]  # type: ignore[index]
    assert (x[0] < x[1]) == (loc == "en")  # in Hebrew column 1 is on the right: ArrowLeft goes on


def test_a_skip_link_reaches_the_board_in_one_tab(page: Any) -> None:
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    assert page.locator(".skip-link").bounding_box()["y"] >= 0  # type: ignore[index]  # shown while focused
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.matches('.play .tableau .card.free')")


def test_the_focus_goes_to_the_board_after_a_new_deal_and_play_this_deal(page: Any, web_server: Any) -> None:
    page.keyboard.press("n")
    page.wait_for_selector("dialog.new-game[open]")
    page.fill("#code-input", EXAMPLE_CODE)
    page.keyboard.press("Enter")
    page.wait_for_selector("dialog.new-game", state="detached")
    page.wait_for_function("document.activeElement?.matches('.play .tableau .card.free')")
    page.goto(f"{web_server.http}/#/rules")
    page.click(".play-example")
    page.wait_for_function(
        "document.querySelector('[data-testid=code]')?.textContent === 'GO1-E-AAAAAAB'"
        " && document.activeElement?.matches('.play .tableau .card.free')"
    )


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_rules_keep_the_screen_readers_reading_out_of_sight(
    new_context: Any, web_server: Any, loc: str
) -> None:
    page = new_context().new_page()
    page.goto(f"{web_server.http}/?lang={loc}#/rules")
    page.wait_for_selector(f".rules-view[data-loaded={loc}]")
    words = page.locator(".rules-body p.board-words")
    assert words.count() >= 2  # the deal's reading (and its lead-in), at least once
    for i in range(words.count()):
        box = words.nth(i).bounding_box()
        assert box is not None and box["width"] <= 1 and box["height"] <= 1  # out of sight, still read
    long = page.evaluate(
        "[...document.querySelectorAll('.rules-body p')].filter(p => p.offsetWidth > 1"
        " && p.textContent.length > 600).length"
    )
    assert long == 0


@pytest.mark.parametrize("loc", ["en", "he", "ro"])
def test_every_card_is_named_with_its_visible_rank(new_context: Any, web_server: Any, loc: str) -> None:
    """Issue 20.12, for voice control (WCAG 2.5.3, label in name): a card's name contains the rank printed on
    its corner as a word ("Q, queen of spades, free"; Romanian "D, damă de pică"), face cards and aces too."""
    page = new_context().new_page()
    page.goto(f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    cards = page.evaluate(
        "[...document.querySelectorAll('.play .tableau .card.face')].map(c =>"
        " [c.querySelector('.corner.tl b')?.textContent ?? '', c.getAttribute('aria-label') ?? ''])"
    )
    assert len(cards) == 35
    ranks = {rank for rank, _ in cards}
    assert ranks & {"A", "J", "Q", "K", "V", "D", "R"}, ranks  # the example deal has faces and aces
    for rank, label in cards:
        assert rank and rank in re.split(r"[\s,.:;·—]+", label), (rank, label)
