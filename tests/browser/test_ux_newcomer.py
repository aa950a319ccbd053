"""Newcomer defects (issue 13): on a laptop the page never scrolls by itself while one plays (the HUD stays
below the top bar), the race's "Go!" speaks the language the player has just chosen, and the replay's
transport stays left to right in Hebrew, as media controls do."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace.engine import Tap
from golfrace.engine.i18n import catalog

from .helpers import EXAMPLE_CODE, EXAMPLE_WIN, click, deal, open_page, press, resign, shot
from .test_learn import PHONE, visit

LAPTOP = {"width": 1366, "height": 768}
MOVES = 16  # a few draws and taps, past the moves after which the page used to sit scrolled

# where the page is scrolled, whether it has anything to scroll, and the HUD's top against the bar's bottom
SCROLL = """sel => ({y: scrollY, spare: document.documentElement.scrollHeight - innerHeight,
  hud: Math.round(document.querySelector(sel).getBoundingClientRect().top),
  bar: Math.round(document.querySelector('.topbar').getBoundingClientRect().bottom)})"""


def assert_unscrolled(page: Any, hud: str, after: str) -> None:
    at = page.evaluate(SCROLL, hud)
    assert at["y"] == 0 and at["hud"] > at["bar"], f"scrolled after {after}: {at}"
    assert at["spare"] <= 0, f"the page is {at['spare']} px taller than the window: {at}"


@pytest.mark.parametrize("loc", ["en", "ro", "ms", "he"])
def test_play_on_a_laptop_never_scrolls_by_itself(new_context: Any, web_server: Any, loc: str) -> None:
    page = new_context(viewport=LAPTOP).new_page()
    page.goto(f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    assert_unscrolled(page, ".hud", "the deal")
    page.click(".hud .hint")
    page.wait_for_selector(".play[data-hint]:not([data-hint=asked])")
    for i, action in enumerate(EXAMPLE_WIN[:MOVES]):
        (click if i % 2 else press)(page, action)  # the mouse (scrolled into view when needed) and the keys
        assert_unscrolled(page, ".hud", f"move {i + 1}, {action}")


@pytest.mark.parametrize("loc", ["en", "he"])
def test_a_race_on_a_laptop_never_scrolls_by_itself(new_context: Any, web_server: Any, loc: str) -> None:
    host = open_page(new_context, f"{web_server.http}/?lang={loc}#/race")
    host.fill("#race-code", EXAMPLE_CODE)
    host.click(".race-create .create")
    host.wait_for_function("location.hash.startsWith('#/race/')")
    race_id = host.evaluate("location.hash.split('/')[2]")
    guest = open_page(new_context, f"{web_server.http}/r/{race_id}")
    for page in (host, guest):
        page.set_viewport_size(LAPTOP)
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    host.wait_for_selector(".race-room[data-phase=running]")
    assert_unscrolled(host, ".race-head", "the countdown")
    for n, action in enumerate(EXAMPLE_WIN[:MOVES], start=1):
        if isinstance(action, Tap):
            host.click(f'.race-board .tableau .column[data-col="{action.column}"] .card.free')
        else:
            host.click(".race-board .stock")
        host.wait_for_selector(f'.race-room[data-v="{n}"]')
        assert_unscrolled(host, ".race-head", f"move {n}, {action}")


def test_go_speaks_the_language_chosen_while_it_shows(new_context: Any, web_server: Any) -> None:
    host = open_page(new_context, f"{web_server.http}/#/race")
    host.fill("#race-code", EXAMPLE_CODE)
    host.click(".race-create .create")
    host.wait_for_function("location.hash.startsWith('#/race/')")
    race_id = host.evaluate("location.hash.split('/')[2]")
    open_page(new_context, f"{web_server.http}/r/{race_id}")
    watcher = open_page(new_context, f"{web_server.http}/watch/{race_id}")
    watcher.wait_for_function("document.querySelectorAll('.seat').length === 2")
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    go = {loc: catalog(loc)["ui"]["live"]["go"] for loc in ("en", "he")}
    for page in (host, watcher):
        notice = page.locator(".go-notice")  # made at the countdown's end, shown for 1.2 s, then hidden
        notice.wait_for(state="attached")
        assert notice.text_content() == go["en"]
        page.select_option(".lang-select", "he")  # in those 1.2 s (or after: the text is the same)
        assert page.evaluate("document.documentElement.dir") == "rtl"
        assert notice.text_content() == go["he"]


def scrub_at(page: Any, side: str) -> int:
    """Click the replay's scrubber a few pixels inside its left or right end: the position it shows then."""
    box = page.locator(".r-scrub").bounding_box()
    x = box["x"] + 3 if side == "left" else box["x"] + box["width"] - 3
    page.mouse.click(x, box["y"] + box["height"] / 2)
    return int(page.get_attribute(".watch-view", "data-replay-pos"))


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_replay_runs_left_to_right_in_hebrew(new_context: Any, web_server: Any, viewport: Any) -> None:
    base = web_server.http
    host = open_page(new_context, f"{base}/#/race")
    host.fill("#race-code", EXAMPLE_CODE)
    host.click(".race-create .create")
    host.wait_for_function("location.hash.startsWith('#/race/')")
    race_id = host.evaluate("location.hash.split('/')[2]")
    guest = open_page(new_context, f"{base}/r/{race_id}")
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    host.wait_for_selector(".race-room[data-phase=running]")
    for n, action in enumerate(EXAMPLE_WIN[:3], start=1):
        host.keyboard.press(str(action.column) if isinstance(action, Tap) else "d")
        host.wait_for_selector(f'.race-room[data-v="{n}"]')
    for page in (host, guest):
        resign(page)
    watcher = visit(new_context, f"{base}/?lang=he#/watch/{race_id}", viewport)
    watcher.click(".watch-view[data-phase=finished] .replay:not([hidden])")
    watcher.wait_for_selector(".watch-view[data-replay=done]", timeout=10_000)
    live = catalog("he")["ui"]["live"]
    assert watcher.evaluate("document.documentElement.dir") == "rtl"
    back, forward = (watcher.locator(s) for s in (".r-back", ".r-forward"))
    assert back.get_attribute("aria-label") == live["back"]
    assert forward.get_attribute("aria-label") == live["forward"]
    assert forward.bounding_box()["x"] > back.bounding_box()["x"]  # forward is to the right of back
    # the icons point the way they move: none is mirrored
    flips = watcher.evaluate(
        "[...document.querySelectorAll('.replay-bar .icon-btn svg')].map(s => getComputedStyle(s).transform)"
    )
    assert set(flips) == {"none"}, flips
    total = int(watcher.get_attribute(".r-scrub", "max"))
    assert total == 3
    assert scrub_at(watcher, "left") == 0  # the deal at the left end, the last move at the right
    assert scrub_at(watcher, "right") == total
    shot(watcher, f"watch-replay-he-ltr-{viewport['width']}")
    assert not watcher.errors


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.locator(selector).bounding_box()
    return found


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_lobby_buttons_line_up_with_the_name_field(new_context: Any, web_server: Any, loc: str) -> None:
    host = new_context(viewport=LAPTOP).new_page()
    host.goto(f"{web_server.http}/?lang={loc}#/race")
    host.fill("#race-code", EXAMPLE_CODE)
    host.click(".race-create .create")
    host.wait_for_selector(".lobby-actions:not([hidden]) .start")
    field = box(host, "#race-rename")
    for button in (".lobby-actions .start", ".lobby-actions .leave", ".rename button"):
        at = box(host, button)
        assert abs(at["y"] + at["height"] - field["y"] - field["height"]) <= 2, button


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_daily_guest_notice_is_centred_as_its_card(new_context: Any, web_server: Any, loc: str) -> None:
    page = new_context(viewport=LAPTOP).new_page()
    page.goto(f"{web_server.http}/?lang={loc}#/daily")
    card = box(page, ".daily-card")
    middle = card["x"] + card["width"] / 2
    for part in (".daily-card [data-ranked-notice] a", ".daily-card [data-ranked-notice] span"):
        page.locator(part).wait_for()
        found = box(page, part)
        assert abs(found["x"] + found["width"] / 2 - middle) <= 2, part
