"""Ghost races in a real Chromium, in English and Hebrew, on a phone and a desktop: an account races a
random (ranked) deal alone and resigns after three draws; once its race is over the record is public, and
the deal's ghost view offers it as "your best"; racing it, the ghost's three draws come at their recorded
times on the second board while the player draws three times on a casual solo game of the same code; at the
end, "you were … s ahead/behind at move 3" and the gap over the moves as a small SVG chart."""

from __future__ import annotations

import re
from typing import Any

import pytest

from golfrace.engine.i18n import catalog

from .helpers import host_race, resign, shot
from .test_axe import scan

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}


def _pattern(template: str) -> str:
    return re.escape(template).replace(re.escape("{s}"), r"[\d.,٫]+").replace(re.escape("{n}"), "3")


# both languages and both sizes in two runs: English on a desktop, Hebrew (RTL) on a phone
@pytest.mark.parametrize(
    ("loc", "viewport"), [("en", DESKTOP), ("he", PHONE)], ids=["en-desktop", "he-phone"]
)
def test_race_your_own_best_as_a_ghost_and_see_the_gap(
    new_context: Any, web_server: Any, loc: str, viewport: dict[str, int]
) -> None:
    texts = catalog(loc)["ui"]["ghost"]
    base = f"{web_server.http}/?lang={loc}"
    host, race = host_race(lambda **kw: new_context(viewport=viewport, **kw), base, account=True)
    host.click(".start")
    host.wait_for_selector(".race-room[data-phase=running]")
    for _ in range(3):  # draws: legal on any deal while the stock lasts
        before = host.locator(".racer.me").text_content()
        host.keyboard.press("d")
        host.wait_for_function(
            "b => (document.querySelector('.racer.me')?.textContent ?? b) !== b", arg=before
        )
    resign(host)
    host.wait_for_selector(".results:not([hidden])")
    code = host.evaluate(  # the record is written by the race's aftermath, just after its end
        "async g => { for (let i = 0; i < 100; i++) { const r = await fetch('/api/games/' + g);"
        " if (r.ok) return (await r.json()).code; await new Promise(f => setTimeout(f, 100)); }"
        " return null; }",
        f"{race}-1",
    )
    assert code, "the race's record within 10 s of its end"
    host.goto(f"{base}#/ghost/{code}")
    host.wait_for_selector(".ghost-view[data-ghosts='1']")
    assert host.text_content("#ghost-title") == texts["title"]
    choice = host.locator(".ghost-choice[data-kind='mine']")
    assert (choice.text_content() or "").startswith(texts["kind_mine"])
    shot(host, f"ghost-pick-{loc}-{'phone' if viewport is PHONE else 'desktop'}")
    choice.click()
    host.wait_for_selector(".ghost-view[data-racing='1']")
    assert host.locator(".ghost-you .tableau .card").count() == 35
    assert host.locator(".ghost-them .tableau .card").count() == 35
    for n in range(1, 4):
        host.keyboard.press("d")
        host.wait_for_selector(f".ghost-view[data-mine='{n}']")
    host.wait_for_selector(".ghost-view[data-over='1'][data-ghost='3']", timeout=15_000)
    gap = host.text_content(".ghost-gap") or ""
    assert any(re.fullmatch(_pattern(texts[k]), gap) for k in ("ahead", "behind", "even")), gap
    path = host.get_attribute(".ghost-line", "d") or ""
    assert path.startswith("M") and path.count("L") == 2, path
    assert host.locator(".ghost-chart").is_visible()
    assert host.evaluate("document.documentElement.dir") == ("rtl" if loc == "he" else "ltr")
    shot(host, f"ghost-race-{loc}-{'phone' if viewport is PHONE else 'desktop'}")
    assert scan(host, "ghost race") == []
    # the deal's board offers the same race
    host.goto(f"{base}#/leaderboards/code/{code}")
    link = host.locator(".board-ghost:not([hidden])")
    link.wait_for()
    assert link.text_content() == texts["open"] and link.get_attribute("href") == f"#/ghost/{code}"
    assert not host.errors, host.errors
