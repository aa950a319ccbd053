"""A first-time player on a phone (390×844, touch): every button, link and field a finger can hit is at least
44 px in each main view and nothing leaves the screen, in every language (Romanian and Malay run longest); in
English and Hebrew, once a race is on, the racer's own board, stock included, is on the first screen, and a
notice shows where it covers no card."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import EXAMPLE_CODE, shot
from .test_ux_board import PHONE, refused_column

TARGET_PX = 44  # Apple's and Android's guides for a finger's target
ROUTES = ("", "race", "watch", "daily", "course", "leaderboards", "stats", "rules", "account")
# what a finger can hit, visible, and smaller than a target (a card is sized by the board, and a checkbox or
# radio sits inside a label that is the target); and what sticks out of the screen sideways
SMALL = """px => [...document.querySelectorAll('button, a[href], input, select, summary')]
  .filter((e) => !e.matches('.card, input[type=checkbox], input[type=radio], .board *'))
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map((e) => [e, e.getBoundingClientRect()])
  .filter(([, r]) => r.width < px - 0.5 || r.height < px - 0.5)
  .map(([e, r]) => `${e.className} "${e.textContent.trim().slice(0, 20)}" ${r.width}x${r.height}`)"""
OUTSIDE = """() => { const w = document.documentElement.clientWidth;
  return [...document.querySelectorAll('.main *, .topbar *')]
    .filter((e) => e.getClientRects().length && !e.closest('.table-wrap, .nav'))
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.width && (r.left < -0.5 || r.right > w + 0.5))
    .map(([e, r]) => `${e.tagName.toLowerCase()}.${e.className} ${r.left}..${r.right}`); }"""


def phone_page(new_context: Any, url: str) -> Any:
    page = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(url)
    return page


@pytest.mark.parametrize("loc", ["en", "ro", "ms", "he"])
def test_every_target_is_a_fingers_size_in_every_view(new_context: Any, web_server: Any, loc: str) -> None:
    page = phone_page(new_context, f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    for route in ROUTES:
        page.evaluate("route => { location.hash = '#/' + route }", route)
        page.wait_for_function(
            "route => document.querySelector('.nav a[aria-current=page]')?.getAttribute('href')"
            " === '#/' + route",
            arg=route,
        )
        page.wait_for_function("document.getAnimations().length === 0")
        assert page.evaluate(SMALL, TARGET_PX) == [], (loc, route or "play")
        assert page.evaluate(OUTSIDE) == [], (loc, route or "play")
    assert not page.errors, page.errors


@pytest.mark.parametrize("loc", ["en", "he"])
def test_a_racers_board_is_on_the_first_screen_and_notices_cover_no_card(
    new_context: Any, web_server: Any, loc: str
) -> None:
    page = phone_page(new_context, f"{web_server.http}/?lang={loc}#/race")
    page.fill("#race-code", EXAMPLE_CODE)
    page.click(".race-create .create")
    page.wait_for_selector(".race-room .start:visible")
    assert page.evaluate(SMALL, TARGET_PX) == [], "lobby"
    page.click(".start")
    page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])")
    assert page.evaluate("scrollY") == 0
    for part in (".race-hud .resign", ".board .stock", ".board .discard"):
        box = page.locator(part).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (part, box)
    page.tap(f'.board .column[data-col="{refused_column()}"] .card.free')  # refused: a notice
    page.wait_for_selector("#toast.show")
    page.wait_for_function("document.getAnimations().filter(a => a.playState === 'running').length === 0")
    toast = page.locator("#toast").bounding_box()
    assert toast is not None
    for card in page.locator(".board .stock, .board .discard, .board .card").all():
        box = card.bounding_box()
        assert box is None or not overlap(toast, box), (toast, box)
    shot(page, f"ux-phone-race-{loc}")
    assert not page.errors, page.errors


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )
