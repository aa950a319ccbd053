"""A spectator of a race from its lobby on: racers who join or leave, the dealt boards from the start, the
racers' times running between moves."""

from __future__ import annotations

from typing import Any

from golfrace.engine.i18n import catalog

from .helpers import EXAMPLE_CODE, host_race, open_page, shot

UI = catalog("en")["ui"]
SUBS = "[...document.querySelectorAll('.seat .seat-sub')].map(e => e.textContent).join('|')"
COUNTS = "[...document.querySelectorAll('.seat .board:not([hidden]) .count')].map(e => e.textContent).join()"


def test_a_spectator_from_the_lobby_sees_racers_come_and_go_and_the_dealt_boards(
    new_context: Any, web_server: Any
) -> None:
    base = web_server.http
    host, race_id = host_race(new_context, base, EXAMPLE_CODE)
    watcher = open_page(new_context, f"{base}/watch/{race_id}")
    watcher.wait_for_function("document.querySelectorAll('.seat').length === 1")
    assert watcher.evaluate(SUBS) == UI["ready"]  # waiting in the lobby, no "Playing · 0/35 · 0:00"
    assert watcher.locator(".seat .board").is_hidden()  # no empty placeholder board before the deal

    guest = open_page(new_context, f"{base}/r/{race_id}")
    other = open_page(new_context, f"{base}/r/{race_id}")
    watcher.wait_for_function("document.querySelectorAll('.seat').length === 3")
    assert watcher.evaluate(SUBS) == "|".join([UI["ready"]] * 3)
    other.wait_for_selector(".leave:visible")
    other.click(".leave")
    watcher.wait_for_function("document.querySelectorAll('.seat').length === 2")
    seats = "[...document.querySelectorAll('.seat')].map(s => s.dataset.seat).join()"
    assert watcher.evaluate(seats) == "1,2"

    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    # the dealt boards (16 cards in the stock) before anyone moved
    watcher.wait_for_function(f"{COUNTS} === '16,16'")
    guest.wait_for_selector(".race-room[data-phase=running]")
    watcher.wait_for_function(
        f"s => {SUBS}.split('|').every(sub => sub.startsWith(s))", arg=UI["status"]["playing"]
    )
    shot(watcher, "watch-dealt-boards")
    # the head spans the seats' grid: the same left and right edges (it sat askew, narrower and centred)
    head, grid = (watcher.locator(part).bounding_box() for part in (".watch-view > .race-head", ".seats"))
    assert head and grid and abs(head["x"] - grid["x"]) < 1 and abs(head["width"] - grid["width"]) < 1
    # nobody moves, yet every racer's time runs: in the racers' progress list and on the spectator's seats
    running = "s => s.split('|').every(t => /· 0:(0[2-9]|[1-5][0-9])$/.test(t))"
    watcher.wait_for_function(f"({running})({SUBS})")
    racers = "[...document.querySelectorAll('.racer .racer-sub')].map(e => e.textContent).join('|')"
    host.wait_for_function(f"({running})({racers})")
    for page in (host, guest, other, watcher):
        assert not page.errors, page.errors


def test_watching_an_unknown_race_says_so_and_leaves_nothing_of_the_last_race(
    new_context: Any, web_server: Any
) -> None:
    base = web_server.http
    _host, race_id = host_race(new_context, base, EXAMPLE_CODE)  # the host stays in the lobby
    page = open_page(new_context, f"{base}/#/watch/{race_id}")
    page.wait_for_function("document.querySelectorAll('.seat').length === 1")
    page.evaluate("location.hash = '#/watch/rzzzzzzzzzzz'")  # a dead link, from a race being watched
    missing = page.locator(".watch-view .race-missing:not([hidden])")
    missing.wait_for()
    assert missing.locator(".race-missing-text").text_content() == UI["errors"]["race_not_found"]
    assert page.locator(".watch-view .race-head").is_hidden()
    assert page.locator(".watch-view .seat").count() == 0  # nothing of the race watched before
    shot(page, "watch-unknown")
    page.evaluate(f"location.hash = '#/watch/{race_id}'")  # and back to a real race: the message goes
    page.wait_for_function("document.querySelectorAll('.watch-view .seat').length === 1")
    assert page.locator(".watch-view .race-missing").is_hidden()
    assert page.locator(".watch-view .race-head").is_visible()
