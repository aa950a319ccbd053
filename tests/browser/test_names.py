"""Racers who gave no name: "Player <seat>" (or "Player" on a leaderboard) in the page's language, and a
guest's name set in the lobby."""

from __future__ import annotations

from typing import Any

from golfrace.engine.i18n import catalog
from golfrace.settings.races import DEFAULT_SETTINGS as RACES

from ..accounts.helpers import sign_up_in_page
from .helpers import host_race, open_page, resign

UI = catalog("en")["ui"]
NAMES = "sel => [...document.querySelectorAll(sel)].map(e => e.textContent).join('|')"


def names(page: Any, selector: str) -> str:
    return str(page.evaluate(NAMES, selector))


def wait_names(page: Any, selector: str, expected: str) -> None:
    page.wait_for_function(f"([sel, want]) => ({NAMES})(sel) === want", arg=[selector, expected])


def test_unnamed_racers_are_players_with_their_seat_and_a_guest_names_themselves(
    new_context: Any, web_server: Any
) -> None:
    base = web_server.http
    host, race_id = host_race(new_context, base)  # a fresh profile: no saved name
    guest = open_page(new_context, f"{base}/r/{race_id}")
    for page in (host, guest):
        wait_names(page, ".racer-name", "Player 1 ★|Player 2")
    guest.select_option(".lang-select", "ro")
    wait_names(guest, ".racer-name", "Jucătorul 1 ★|Jucătorul 2")
    guest.select_option(".lang-select", "en")

    # the guest names themselves in the lobby: everyone sees it, and the next race remembers it
    rename = guest.locator(".rename input")
    assert rename.input_value() == ""
    rename.fill("Bea")
    guest.click(".rename button[type=submit]")
    for page in (host, guest):
        wait_names(page, ".racer-name", "Player 1 ★|Bea")
    assert guest.evaluate("localStorage.getItem('golfrace.name')") == "Bea"

    host.click(".start")
    watcher = open_page(new_context, f"{base}/watch/{race_id}")
    wait_names(watcher, ".seat-name", "Player 1|Bea")
    for page in (host, guest):
        page.wait_for_selector(".race-room[data-phase=running]")
        resign(page)
    host.wait_for_selector(".results:not([hidden])")
    assert names(host, ".results-table tbody td:nth-child(2)") in ("Player 1|Bea", "Bea|Player 1")
    watcher.wait_for_selector(".watch-view[data-phase=finished]")
    assert names(watcher, ".seat-name") == "Player 1|Bea"
    for page in (host, guest, watcher):
        assert not page.errors, page.errors


def test_a_leaderboard_entry_is_named_by_its_account(new_context: Any, web_server: Any) -> None:
    """Public boards take accounts only (docs/accounts.md): an entry shows the account's name, here its
    username (no display name given); the racer gave no name for the race, so the race shows it too."""
    page = open_page(new_context, web_server.http + "/#/daily")
    page.wait_for_function("window.golfrace.conn.welcome != null")
    username = sign_up_in_page(page)
    page.wait_for_selector(".daily-view[data-played]")
    page.click(".play-daily")  # an account is not asked for a name (the board shows the account's)
    assert page.locator("dialog.name-ask").count() == 0
    page.wait_for_selector(".race-room[data-phase=running]")
    wait_names(page, ".racer-name", f"{username} ★")  # the host of their own one-seat race, by its account
    resign(page)
    page.wait_for_selector(".results:not([hidden])")
    page.goto(web_server.http + "/?lang=ms#/leaderboards")
    page.wait_for_selector(".boards-view[data-loaded^='daily:'] tr.me")
    ms = catalog("ms")["ui"]
    assert names(page, ".board-table tr.me td:nth-child(2)") == f"{username} ({ms['you']})"
    assert not page.errors, page.errors


def test_the_race_tab_joins_a_race_by_its_link_or_id(new_context: Any, web_server: Any) -> None:
    base = web_server.http
    host, race_id = host_race(new_context, base)
    guest = open_page(new_context, base + "/?lang=ro#/race")
    guest.fill("#race-join-id", "not a race")
    guest.press("#race-join-id", "Enter")
    error = guest.locator("#race-join-error:not([hidden])")
    error.wait_for()
    assert error.text_content() == catalog("ro")["ui"]["join_error"]
    guest.fill("#race-join-id", f"{base}/r/{race_id}")  # the shared link, pasted
    guest.click(".race-join button[type=submit]")
    guest.wait_for_function("id => location.hash === `#/race/${id}`", arg=race_id)
    for page in (host, guest):
        page.wait_for_function("document.querySelectorAll('.racer').length === 2")
    guest.click(".leave")
    guest.wait_for_function("location.hash === '#/race'")
    host.wait_for_function("document.querySelectorAll('.racer').length === 1")
    assert guest.locator("#race-join-error").is_hidden()
    guest.fill("#race-join-id", race_id)  # the id, typed
    guest.press("#race-join-id", "Enter")
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    for page in (host, guest):
        assert not page.errors, page.errors


def test_an_unknown_race_says_so_in_the_page_with_ways_on(new_context: Any, web_server: Any) -> None:
    base = web_server.http
    page = open_page(new_context, base + "/#/race")
    page.fill("#race-join-id", "rzzzzzzzzzzz")
    page.click(".race-join [type=submit]")
    missing = page.locator(".race-missing:not([hidden])")
    missing.wait_for()
    assert missing.locator(".race-missing-text").text_content() == UI["errors"]["race_not_found"]
    assert page.locator(".race-room").is_hidden()  # no empty panels
    assert page.locator("#toast.show").count() == 0
    page.click(".missing-join")
    page.wait_for_function("location.hash === '#/race'")
    page.wait_for_selector("#race-join-id:focus")
    assert page.locator(".race-missing").is_hidden()
    # a dead link, in another language: the same, and the way to create one
    dead = open_page(new_context, base + "/r/rzzzzzzzzzzz?lang=ro")
    dead.wait_for_selector(".race-missing:not([hidden])")
    assert dead.text_content(".race-missing-text") == catalog("ro")["ui"]["errors"]["race_not_found"]
    assert dead.text_content(".missing-create") == catalog("ro")["ui"]["create_a_race"]
    dead.click(".missing-create")
    dead.wait_for_selector(".race-create:not([hidden]) #race-name:focus")
    # its bound is the server's, from the generated messages.js (data-bound), typed nowhere by hand
    assert dead.get_attribute("#race-name", "maxlength") == str(RACES.name_max)
    for p in (page, dead):
        assert not p.errors, p.errors
