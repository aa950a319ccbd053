"""Watch and replay (issue 20, 8): two seats share a laptop's width with cards sized to it, the replay's
boards come into view when it starts (the results had pushed them below the fold), and the step buttons
are drawn as single steps, not as skips to an end."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace.engine import Tap

from .helpers import EXAMPLE_WIN, resign, shot
from .test_learn import PHONE, visit
from .test_ux_race_start import LAPTOP, lobby

SEATS = """() => { const grid = document.querySelector('.seats').getBoundingClientRect();
  const seats = [...document.querySelectorAll('.seats .seat')].map(s => s.getBoundingClientRect());
  const card = document.querySelector('.seats .seat .tableau .card').getBoundingClientRect();
  const stocks = [...document.querySelectorAll('.seats .stock')].map(s => s.getBoundingClientRect().bottom);
  const cards = [...document.querySelectorAll('.seats .tableau .card')];
  const suit = (c) => c.querySelector('.corner.tl .mini')?.getBoundingClientRect().width ?? 0;
  return {cards: cards.length, suits: cards.filter(c => suit(c) > 4).length,
          grid: grid.width, used: seats.reduce((n, r) => n + r.width, 0),
          rows: new Set(seats.map(r => r.top)).size, card: Math.round(card.width),
          stock: Math.max(...stocks)};
}"""


def race_of_two(new_context: Any, base: str, moves: int = 3) -> tuple[Any, Any, str]:
    host, race_id = lobby(new_context, f"{base}/#/race", LAPTOP)
    guest = visit(new_context, f"{base}/r/{race_id}", LAPTOP)
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    host.wait_for_selector(".race-room[data-phase=running] .race-hud .resign:not([hidden])")
    for n, action in enumerate(EXAMPLE_WIN[:moves], start=1):
        host.keyboard.press(str(action.column) if isinstance(action, Tap) else "d")
        host.wait_for_selector(f'.race-room[data-v="{n}"]')
    return host, guest, race_id


@pytest.mark.parametrize("loc", ["en", "he"])
def test_two_seats_share_a_laptops_width(new_context: Any, web_server: Any, loc: str) -> None:
    _host, _guest, race_id = race_of_two(new_context, web_server.http)
    watcher = visit(new_context, f"{web_server.http}/?lang={loc}#/watch/{race_id}", LAPTOP)
    watcher.wait_for_selector(".seats .seat:nth-child(2) .board:not([hidden]) .tableau .card")
    at = watcher.evaluate(SEATS)
    shot(watcher, f"watch-two-{loc}-1366")
    assert at["rows"] == 1 and at["used"] >= 0.9 * at["grid"], f"the seats leave the width unused: {at}"
    assert at["card"] >= 56, f"cards {at['card']} px wide on a laptop"
    assert at["stock"] <= LAPTOP["height"], f"a stock below the fold: {at}"
    # a covered card shows only its corner: its suit is drawn there too (a watcher told 3♠ from 3♣ by colour)
    assert at["cards"] > 60 and at["suits"] == at["cards"], at
    assert watcher.locator(".menu-btn").is_hidden()  # the phone's menu: the laptop's header has every view
    assert not watcher.errors


@pytest.mark.parametrize(("loc", "viewport"), [("en", LAPTOP), ("he", PHONE)], ids=["en-laptop", "he-phone"])
def test_the_replay_brings_its_boards_into_view(
    new_context: Any, web_server: Any, loc: str, viewport: Any
) -> None:
    host, guest, race_id = race_of_two(new_context, web_server.http)
    for page in (host, guest):
        resign(page)
    watcher = visit(new_context, f"{web_server.http}/?lang={loc}#/watch/{race_id}", viewport)
    watcher.click(".watch-view[data-phase=finished] .replay:not([hidden])")
    watcher.wait_for_selector(".watch-view[data-replay=done]", timeout=10_000)
    watcher.wait_for_function("document.getAnimations().filter(a => a.playState === 'running').length === 0")
    board = watcher.locator(".seats .seat .board").first.bounding_box()
    bar = watcher.locator(".replay-bar").bounding_box()
    shot(watcher, f"watch-replay-{loc}-{viewport['width']}")
    assert bar and bar["y"] >= 0 and bar["y"] + bar["height"] <= viewport["height"], bar
    assert board and board["y"] >= 0 and board["y"] + board["height"] / 2 <= viewport["height"], board
    # the steps are chevrons (a stroke, nothing filled), not a bar and a triangle (skip to the start, the end)
    for step in (".r-back", ".r-forward"):
        shape = watcher.evaluate(
            "s => { const svg = document.querySelector(s + ' svg');"
            " return {filled: [...svg.querySelectorAll('path')].some(p => p.getAttribute('fill') !== 'none'),"
            " paths: svg.querySelectorAll('path').length}; }",
            step,
        )
        assert shape == {"filled": False, "paths": 1}, (step, shape)
    assert not watcher.errors
