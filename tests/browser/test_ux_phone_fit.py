"""The phone is for the board (issue 20, 7): one compact header, the other views behind a menu; in Play and in
a race the cards take the room there is, and a race's board starts above the middle of the screen."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import EXAMPLE_CODE, deal, shot
from .test_learn import PHONE, visit
from .test_ux_race_start import lobby

HEADER_PX = 60  # one row: 44 px targets and their padding
# the bottom of the lowest card or pile, the top of the bar of actions, the tableau's card
PLAY_ROOM = """() => {
  const cards = [...document.querySelectorAll('.play .board .card, .play .board .stock')];
  const low = Math.max(...cards.map(e => e.getBoundingClientRect().bottom));
  const bar = document.querySelector('.play .actions').getBoundingClientRect().top;
  const col = (row) => document.querySelector(`.play .column[data-col="1"] .card[data-row="${row}"]`)
    .getBoundingClientRect();
  const hud = document.querySelector('.play .hud').getBoundingClientRect().bottom;
  const top = document.querySelector('.play .tableau').getBoundingClientRect().top;
  return {felt: Math.round(bar - low + top - hud), board: Math.round(low - top), room: Math.round(bar - hud),
          w: Math.round(col(1).width), h: Math.round(col(1).height), ov: Math.round(col(2).top - col(1).top)};
}"""


def open_menu(page: Any) -> None:
    page.tap(".menu-btn")
    page.wait_for_selector(".topbar[data-menu-open] .nav-more a")


@pytest.mark.parametrize("loc", ["en", "ro", "ms", "he"])
def test_one_compact_header_and_a_menu_for_the_other_views(
    new_context: Any, web_server: Any, loc: str
) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={loc}", PHONE)
    page.wait_for_selector(".play[data-v]")
    header = page.locator(".topbar").bounding_box()
    assert header and header["height"] <= HEADER_PX, header
    width = PHONE["width"]
    for part in page.locator(".topbar a:visible, .topbar button:visible, .topbar .lang").all():
        box = part.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] < HEADER_PX, box
    views = page.evaluate("[...document.querySelectorAll('.nav a')].map(a => a.dataset.view)")
    # every view of the app with a nav entry: the three primary ones in the row, the rest behind the menu
    assert {"play", "race", "daily", "live", "leaderboards", "stats", "rules", "account"} <= set(views)
    hidden = [v for v in views if not page.locator(f'.nav a[data-view="{v}"]').is_visible()]
    assert hidden and "play" not in hidden and "race" not in hidden and "daily" not in hidden
    open_menu(page)
    shot(page, f"phone-menu-{loc}")
    for view in hidden:  # each behind the menu, whole on the screen, a finger's size
        box = page.locator(f'.nav a[data-view="{view}"]').bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width and box["height"] >= 44, (view, box)
    page.tap('.nav a[data-view="rules"]')
    page.wait_for_selector(".rules-page")
    assert page.locator(".topbar[data-menu-open]").count() == 0  # closed by the route
    assert page.locator(".menu-btn[data-current]").count() == 1  # the page shown is in the menu
    header = page.locator(".topbar").bounding_box()
    assert header and header["height"] <= HEADER_PX
    assert not page.errors


@pytest.mark.parametrize("loc", ["en", "he"])
def test_play_on_a_phone_gives_the_cards_the_room(new_context: Any, web_server: Any, loc: str) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={loc}", PHONE)
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    room = page.evaluate(PLAY_ROOM)
    shot(page, f"phone-play-{loc}")
    # the board takes most of the room between the HUD and the bar (it had 45 %, 208 px of felt under it)
    assert room["board"] >= 0.7 * room["room"], f"empty felt around the board: {room}"
    assert room["ov"] >= 0.5 * room["h"], f"each card under another shows too little of itself: {room}"
    assert page.evaluate("document.documentElement.scrollHeight") <= PHONE["height"]
    assert not page.errors


@pytest.mark.parametrize("loc", ["en", "he"])
def test_a_race_on_a_phone_starts_its_board_above_the_middle(
    new_context: Any, web_server: Any, loc: str
) -> None:
    base = web_server.http
    host, race_id = lobby(new_context, f"{base}/?lang={loc}#/race", PHONE)
    guest = visit(new_context, f"{base}/r/{race_id}", PHONE)
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    host.wait_for_selector(".race-room[data-phase=running] .race-hud .resign:not([hidden])")
    top = host.locator('.race-board .column[data-col="1"]').bounding_box()
    stock = host.locator(".race-board .stock").bounding_box()
    shot(host, f"phone-race-{loc}")
    assert top and top["y"] < 0.3 * PHONE["height"], f"the board starts at {top}"
    assert stock and stock["y"] + stock["height"] <= PHONE["height"], stock
    for part in (".race-hud .undo", ".race-hud .resign"):
        box = host.locator(part).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], part
    assert not host.errors and not guest.errors
