"""A race of two browser contexts with a third watching; the daily challenge; the leaderboard."""

from __future__ import annotations

import re
from typing import Any

from golfrace.engine.i18n import catalog

from ..accounts.helpers import sign_up_in_page
from .helpers import host_race, open_page, resign, shot, wait_until

UI = catalog("en")["ui"]
DESCRIBE = catalog("en")["describe"]
DAILY_MARGIN_S = 45  # longer than the daily test takes from its first attempt to reading it back


def test_two_racers_and_a_watcher(new_context: Any, web_server: Any) -> None:
    base = web_server.http
    host = open_page(new_context, base + "/#/race")
    host.fill("#race-name", "Ana")
    host.click(".race-create .create")
    host.wait_for_function("location.hash.startsWith('#/race/')")
    race_id = host.evaluate("location.hash.split('/')[2]")
    link = host.locator(".share .link")
    link.wait_for()
    assert link.text_content() == f"{base}/r/{race_id}"

    guest = open_page(new_context, f"{base}/r/{race_id}")  # the shared link
    guest.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    assert guest.locator(".start").is_hidden()  # only the host starts
    assert guest.text_content(".waiting") == UI["waiting_host"]
    shot(host, "race-lobby")

    watcher = open_page(new_context, f"{base}/watch/{race_id}")
    watcher.wait_for_function("document.querySelectorAll('.seat').length === 2")
    host.wait_for_function("document.querySelector('.watch-n')?.textContent === '1'")

    host.click(".start")
    for page in (host, guest):
        page.wait_for_selector(".countdown:not([hidden])")
    assert guest.text_content(".countdown").startswith("Starting in")
    guest.keyboard.press("d")  # too early: refused, and explained in the page's words (not the server's)
    guest.wait_for_function(
        "text => document.querySelector('#toast.show')?.textContent === text",
        arg=UI["errors"]["race_not_started"],
    )
    for page in (host, guest):
        page.wait_for_selector(".race-room[data-phase=running]")
    # the watcher's header says the race runs once the countdown is over (no message marks that moment)
    watcher.wait_for_selector(".watch-view[data-phase=running]")
    assert UI["phase"]["running"] in watcher.text_content(".race-meta")

    # the host draws twice: the host's own board, the guest's view of the host's progress, the watcher's board
    for n in (1, 2):
        host.keyboard.press("d")
        host.wait_for_selector(f'.race-room[data-v="{n}"]')
    host.wait_for_function("document.querySelector('.race-board .count')?.textContent === '14'")
    watcher.wait_for_function("document.querySelector('.seat .count')?.textContent === '14'")
    assert guest.text_content(".race-board .count") == "16"  # the guest's own board did not move
    # fair play: the host's drawn card is the guest's next one: the watcher sees it face down for now
    held = watcher.locator(".seat").nth(0).locator(".discard")
    held.locator(".card.held-back").wait_for()
    assert held.get_attribute("aria-label") == DESCRIBE["discard_held"]
    guest.keyboard.press("d")
    watcher.wait_for_function(
        "[...document.querySelectorAll('.seat .count')].map(e => e.textContent).join() === '14,15'"
    )
    # the guest's one draw is shown (the host has drawn as many); the host's second is still face down
    shown = watcher.locator(".seat").nth(1).locator(".discard .card:not(.under)")
    shown.wait_for()
    assert "held-back" not in (shown.get_attribute("class") or "")
    assert held.locator(".card.held-back").count() == 1
    shot(host, "race-running")
    shot(watcher, "race-watch")

    for page in (host, guest):
        resign(page)
    for page in (host, guest, watcher):
        page.wait_for_selector("[data-phase=finished]")
    host.wait_for_selector(".results:not([hidden])")
    assert host.locator(".results-table tbody tr").count() == 2
    assert host.locator(".results-table tbody tr.me").count() == 1
    shot(host, "race-results")
    # the watcher sees the code after the end, and can replay the race
    watcher.wait_for_function("/GO1-[EC]-[A-Z]{7}/.test(document.querySelector('.race-meta')?.textContent)")
    watcher.click(".replay")
    watcher.wait_for_selector(".watch-view[data-replay=done]", timeout=10_000)
    shot(watcher, "race-replay")

    # rematch: the host asks, the guest follows without a new link
    host.click(".rematch")
    host.wait_for_function(
        "id => location.hash.startsWith('#/race/') && !location.hash.endsWith(id)", arg=race_id
    )
    guest.wait_for_function(
        "text => document.querySelector('.rematch')?.textContent === text", arg=UI["join_rematch"]
    )
    guest.click(".rematch")
    for page in (host, guest):
        page.wait_for_function(
            "document.querySelector('.race-room')?.dataset.phase === 'lobby'"
            " && document.querySelectorAll('.racer').length === 2"
        )
    for page in (host, guest, watcher):
        assert not page.errors, page.errors


def test_daily_challenge_and_its_leaderboard(new_context: Any, web_server: Any) -> None:
    page = open_page(new_context, web_server.http + "/#/daily")
    page.wait_for_function("window.golfrace.conn.welcome != null")
    sign_up_in_page(page)  # the daily board takes accounts only (tests/browser/test_accounts.py: a guest)
    page.wait_for_selector(".daily-view[data-played]")
    assert page.get_attribute(".daily-view", "data-played") == "0"
    assert page.text_content(".play-daily") == UI["daily_play"]
    page.wait_for_function(
        "/^\\d+:\\d\\d:\\d\\d$/.test(document.querySelector('.daily-view .next')?.textContent)"
    )
    # the day is the server's UTC day: an attempt made just before midnight is not "played" on the day
    # after, so when the page counts down the last seconds of the day, start on the next one
    h, m, s = (int(part) for part in page.text_content(".daily-view .next").split(":"))
    if h * 3600 + m * 60 + s < DAILY_MARGIN_S:
        page.wait_for_function(
            "document.querySelector('.daily-view .next')?.textContent.startsWith('23:')",
            timeout=(DAILY_MARGIN_S + 15) * 1000,
        )
    shot(page, "daily-before")
    page.click(".play-daily")  # an account is not asked for a name: the board shows the account's
    page.wait_for_function("location.hash.startsWith('#/race/')")
    page.wait_for_selector(".race-room[data-phase=running]")
    assert page.text_content(".race-title").startswith(UI["daily_title"])
    assert page.get_attribute(".nav a[aria-current=page]", "data-view") == "daily"  # not "race"
    assert page.title() == f"{UI['daily_title']} · {UI['app_title']}"
    # started, not finished: the daily page offers to continue it (no result yet, no practice)
    race_url = page.url
    page.goto(web_server.http + "/#/daily")
    page.wait_for_selector(".daily-view[data-played='1']")
    assert page.text_content(".play-daily") == UI["daily_continue"]
    assert page.locator(".daily-result").is_hidden()
    shot(page, "daily-started")
    page.click(".play-daily")
    page.wait_for_function("url => location.href === url", arg=race_url)
    page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])")
    page.keyboard.press("d")
    page.wait_for_selector('.race-room[data-v="1"]')
    resign(page)
    page.wait_for_selector(".results:not([hidden])")

    page.goto(web_server.http + "/#/daily")
    page.wait_for_selector(".daily-view[data-played='1']")
    share = page.text_content(".share-text")
    assert share and "Golf Race" in share
    assert page.text_content(".play-daily") == UI["daily_practice"]
    assert int(page.text_content(".daily-view .streak")) >= 1
    shot(page, "daily-after")

    page.click(".board-link")
    page.wait_for_selector(".boards-view[data-loaded^='daily:']")
    assert page.locator(".board-table tr.me").count() == 1  # your own rank, highlighted
    shot(page, "leaderboard")
    assert not page.errors, page.errors


def test_race_links_lead_strangers_to_the_watch_view_and_racers_to_their_seat(
    new_context: Any, web_server: Any
) -> None:
    base = web_server.http
    host, race_id = host_race(new_context, base)
    host.click(".start")
    host.wait_for_selector(".countdown:not([hidden])")

    # a started race's link, opened by someone who is not racing: the race, watched
    stranger = open_page(new_context, f"{base}/r/{race_id}")
    stranger.wait_for_function("id => location.hash === `#/watch/${id}`", arg=race_id)
    stranger.wait_for_selector(".watch-view .seat")
    assert stranger.locator("#toast.show").count() == 0

    # the watch link, opened by a racer of that race: their own seat
    seat = host.context.new_page()
    seat.goto(f"{base}/watch/{race_id}")
    seat.wait_for_function("id => location.hash === `#/race/${id}`", arg=race_id)
    seat.wait_for_selector(".race-room .race-hud:not([hidden])")
    assert seat.locator("#toast.show").count() == 0

    # a finished race's link: the spectator's view of the end, with its replay
    resign(seat)
    seat.wait_for_selector(".results:not([hidden])")
    late = open_page(new_context, f"{base}/r/{race_id}")
    late.wait_for_function("id => location.hash === `#/watch/${id}`", arg=race_id)
    late.wait_for_selector(".watch-view[data-phase=finished] .replay:not([hidden])")
    assert late.locator("#toast.show").count() == 0
    for page in (host, stranger, late):
        assert not page.errors, page.errors


def test_create_clicked_while_the_page_is_still_connecting_is_not_lost(
    new_context: Any, web_server: Any
) -> None:
    """A newcomer who clicks Create before the handshake is done (a slow network, a busy server) gets their
    race once the connection is ready, not a button that silently did nothing."""
    page = open_page(new_context, web_server.http + "/#/race")
    held: list[Any] = []
    state: dict[str, Any] = {"page_ws": None, "open": False}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        state["page_ws"] = ws

        def from_server(message: Any) -> None:
            if state["open"]:
                ws.send(message)
            else:
                held.append(message)  # the welcome waits: for the page, it is still connecting

        server.on_message(from_server)
        ws.on_message(lambda message: server.send(message))

    page.route_web_socket(re.compile(r"/ws$"), route)
    page.reload()
    page.wait_for_selector(".race-create .create")
    wait_until(page, lambda: len(held) > 0)  # the server has answered the hello; the page has not seen it
    assert page.evaluate("window.golfrace.conn.ready") is False
    page.click(".race-create .create")
    page.wait_for_timeout(0)
    assert page.evaluate("location.hash") == "#/race"  # nothing could answer it yet
    state["open"] = True
    for message in held:
        state["page_ws"].send(message)
    page.wait_for_function("window.golfrace.conn.ready")
    page.wait_for_function("location.hash.startsWith('#/race/')")
    page.wait_for_selector(".race-room .racer")
    assert not page.errors, page.errors
