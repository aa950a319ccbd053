"""A race's first moments and a racer's last (issue 20): the board stays where it was aimed at when the
countdown turns into "Go!" (1), and a racer who finished first sees the others' boards live, under the
watcher rule, beside their own result (5)."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import EXAMPLE_CODE, resign, shot
from .test_learn import PHONE, visit

LAPTOP = {"width": 1366, "height": 768}
SCREENS = [("en", LAPTOP), ("he", LAPTOP), ("en", PHONE), ("he", PHONE)]
IDS = ["en-laptop", "he-laptop", "en-phone", "he-phone"]

# where the first column's top card and the stock are, in the window
AIM = """() => { const at = (s) => { const r = document.querySelector(s).getBoundingClientRect();
  return [Math.round(r.x), Math.round(r.y)]; };
  return {card: at('.race-board .tableau .column[data-col="1"] .card'), stock: at('.race-board .stock'),
          y: scrollY}; }"""


def lobby(new_context: Any, url: str, viewport: Any, code: str = EXAMPLE_CODE) -> tuple[Any, str]:
    """A race of ``code`` created by a fresh profile at ``url`` (a race form), waiting in its lobby."""
    host = visit(new_context, url, viewport)
    host.fill("#race-code", code)
    host.click(".race-create .create")
    host.wait_for_function("location.hash.startsWith('#/race/')")
    return host, str(host.evaluate("location.hash.split('/')[2]"))


@pytest.mark.parametrize(("loc", "viewport"), SCREENS, ids=IDS)
def test_the_board_does_not_move_at_go(new_context: Any, web_server: Any, loc: str, viewport: Any) -> None:
    base = web_server.http
    host, race_id = lobby(new_context, f"{base}/?lang={loc}#/race", viewport)
    guest = visit(new_context, f"{base}/r/{race_id}", viewport)
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    # the countdown shows, and the board to aim at under it
    host.wait_for_selector(".race-room[data-phase=countdown] .countdown:not([hidden])")
    host.wait_for_selector(".race-room[data-phase=countdown] .race-board .tableau .card")
    during = host.evaluate(AIM)
    shot(host, f"race-countdown-{loc}-{viewport['width']}")
    host.wait_for_selector(".race-room[data-phase=running] .go-notice:not([hidden])")
    after = host.evaluate(AIM)
    shot(host, f"race-go-{loc}-{viewport['width']}")
    assert during == after, f"the board moved at Go: {during} then {after}"
    assert not host.errors and not guest.errors


@pytest.mark.parametrize(("loc", "viewport"), SCREENS, ids=IDS)
def test_a_racer_done_first_sees_the_others_boards_live(
    new_context: Any, web_server: Any, loc: str, viewport: Any
) -> None:
    base = web_server.http
    host, race_id = lobby(new_context, f"{base}/?lang={loc}#/race", viewport)
    guest = visit(new_context, f"{base}/r/{race_id}", viewport)
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    for page in (host, guest):
        page.wait_for_selector(".race-room[data-phase=running] .race-hud .resign:not([hidden])")
    resign(host)
    host.wait_for_selector(".my-end:not([hidden])")
    # a resignation within Go!'s moment: the result shows without "Go!" over it
    assert host.locator(".race-room .go-notice:not([hidden])").count() == 0
    # the guest's board beside the host's result, live: the guest's draw shows there
    seat = host.locator('.rivals:not([hidden]) .seat[data-seat="2"] .board:not([hidden])')
    seat.wait_for()
    assert host.locator(".rivals .seat").count() == 1  # the others' boards, not mine again
    assert seat.locator(".tableau .card").count() == 35
    guest.keyboard.press("d")
    guest.wait_for_selector('.race-room[data-v="1"]')
    host.wait_for_function(
        "() => document.querySelector('.rivals .seat[data-seat=\"2\"] .stock .count')?.textContent === '15'"
    )
    mine = host.locator(".my-end").bounding_box()
    rival = seat.bounding_box()
    assert mine and rival and rival["y"] < viewport["height"], "the rival's board is on the first screen"
    shot(host, f"race-done-first-{loc}-{viewport['width']}")
    resign(guest)
    host.wait_for_selector(".race-room[data-phase=finished] .results:not([hidden])")
    assert host.locator(".rivals").is_hidden()  # the results (and the replay) take over
    assert not host.errors and not guest.errors
