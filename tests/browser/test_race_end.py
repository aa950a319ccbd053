"""The end of a race: a racer who finished first waits for the others; spectators see the results and can
follow the rematch."""

from __future__ import annotations

import re
from typing import Any

from golfrace.engine.i18n import catalog

from .helpers import of_type, open_page, record_frames, resign, running_race, shot

UI = catalog("en")["ui"]


def test_a_racer_done_first_sees_their_result_and_waits_with_live_progress(
    new_context: Any, web_server: Any
) -> None:
    host, guest, _ = running_race(new_context, web_server.http)
    resign(host)
    waiting = host.locator(".my-end:not([hidden])")
    waiting.wait_for()
    assert UI["status"]["resigned"] in waiting.text_content()
    assert UI["waiting_others"] in waiting.text_content()
    assert host.locator(".results").is_hidden()
    # the finished board makes room: the waiting panel and the others' progress are in view
    assert host.locator(".race-board .board-slot").is_hidden()
    for box in (host.locator(".my-end").bounding_box(), host.locator('.racer[data-seat="2"]').bounding_box()):
        assert box is not None and box["y"] + box["height"] <= host.viewport_size["height"], box
    # the guest plays on (draw 8♠, then 9♣ of column 5): the waiting host sees it
    guest.keyboard.press("d")
    guest.wait_for_selector('.race-room[data-v="1"]')
    guest.keyboard.press("5")
    host.wait_for_function(
        "document.querySelector('.racer[data-seat=\"2\"] .racer-sub')?.textContent.includes('1/35')"
    )
    assert guest.locator(".my-end").is_hidden()  # still playing: no waiting panel
    shot(host, "race-waiting-for-the-others")
    resign(guest)
    for page in (host, guest):
        page.wait_for_selector(".results:not([hidden])")
        assert page.locator(".my-end").is_hidden()
    for page in (host, guest):
        assert not page.errors, page.errors


ROWS = "[...document.querySelectorAll('.results-table tbody tr')].map(r => r.innerText).join('\\n')"


def test_spectators_see_the_results_table_of_the_racers(new_context: Any, web_server: Any) -> None:
    base = web_server.http
    host, guest, race_id = running_race(new_context, base)
    watcher = open_page(new_context, f"{base}/watch/{race_id}")
    watcher.wait_for_selector(".watch-view .seat")
    assert watcher.locator(".watch-view .results").is_hidden()  # not before the end
    for page in (host, guest):
        resign(page)
    host.wait_for_selector(".results:not([hidden])")
    watcher.wait_for_selector(".watch-view .results:not([hidden])")
    watcher.wait_for_function("document.querySelectorAll('.results-table tbody tr').length === 2")
    assert watcher.evaluate(ROWS) == host.evaluate(ROWS)
    assert watcher.locator(".results-table tr.me").count() == 0  # a spectator has no row of their own
    # opened after the end, the spectator's view shows them from the start, in the page's language
    late = open_page(new_context, f"{base}/watch/{race_id}?lang=ro")
    late.wait_for_selector(".watch-view .results:not([hidden])")
    ro = catalog("ro")["ui"]
    resigned = f"{ro['status']['resigned']} · {ro['results_marks']['stuck']}"  # a resignation scores as stuck
    late.wait_for_function(
        "s => [...document.querySelectorAll('.results-table tbody td')]"
        ".filter(td => td.textContent === s).length === 2",
        arg=resigned,
    )
    shot(late, "watch-results")
    for page in (host, guest, watcher, late):
        assert not page.errors, page.errors


def test_spectators_follow_the_rematch_and_racers_get_a_clean_address(
    new_context: Any, web_server: Any
) -> None:
    base = web_server.http
    host, guest, race_id = running_race(new_context, base)
    # the guest came by the shared link: the address is the page's own from the start
    assert guest.evaluate("location.pathname + location.hash") == f"/#/race/{race_id}"
    watcher = open_page(new_context, f"{base}/watch/{race_id}")
    watcher.wait_for_selector(".watch-view .seat")
    for page in (host, guest):
        resign(page)
    watcher.wait_for_selector(".watch-view .results:not([hidden])")
    assert watcher.locator(".watch-rematch").is_hidden()

    host.click(".rematch")
    host.wait_for_function(
        "id => location.hash.startsWith('#/race/') && !location.hash.endsWith(id)", arg=race_id
    )
    rematch_id = str(host.evaluate("location.hash.split('/')[2]"))
    offer = watcher.locator(".watch-rematch:not([hidden])")
    offer.wait_for()
    assert offer.text_content() == UI["watch_rematch"]
    offer.click()
    watcher.wait_for_function("id => location.hash === `#/watch/${id}`", arg=rematch_id)
    watcher.wait_for_selector(".watch-view[data-phase=lobby]")
    assert watcher.locator(".watch-view .results").is_hidden()  # nothing of the old race stays

    guest.wait_for_function(
        "text => document.querySelector('.rematch')?.textContent === text", arg=UI["join_rematch"]
    )
    guest.click(".rematch")
    guest.wait_for_function(
        "document.querySelector('.race-room')?.dataset.phase === 'lobby'"
        " && document.querySelectorAll('.racer').length === 2"
    )
    assert guest.evaluate("location.pathname + location.hash") == f"/#/race/{rematch_id}"
    host.wait_for_function(
        "document.querySelector('.watch-n')?.textContent === '1'"
    )  # watched by the spectator
    for page in (host, guest, watcher):
        assert not page.errors, page.errors


def test_resign_asks_first_escape_keeps_playing(new_context: Any, web_server: Any) -> None:
    host, guest, race_id = running_race(new_context, web_server.http)
    frames = record_frames(host)
    host.reload()  # the recorder sees the page's new connection
    host.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])")
    host.click(".resign")
    dialog = host.locator("dialog.confirm[open]")
    dialog.wait_for()
    assert dialog.locator("h2").text_content() == UI["resign_confirm"]
    assert dialog.locator(".ok").text_content() == UI["resign"]
    shot(host, "race-resign-confirm")
    host.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    host.keyboard.press("d")  # the board still plays
    host.wait_for_selector('.race-room[data-v="1"]')
    host.click(".resign")
    host.click("dialog.confirm .cancel")
    host.wait_for_selector("dialog.confirm", state="detached")
    assert of_type(frames["sent"], "race_resign") == []
    assert host.locator(".resign").is_visible()
    host.click(".resign")  # asked, then the page goes elsewhere (as Back would): the question goes too
    host.locator("dialog.confirm[open]").wait_for()
    host.evaluate("location.hash = '#/rules'")
    host.wait_for_selector("dialog.confirm", state="detached")
    host.evaluate(f"location.hash = '#/race/{race_id}'")
    host.wait_for_selector(".race-room[data-phase=running] .resign:visible")
    assert of_type(frames["sent"], "race_resign") == []
    resign(host)  # Enter confirms
    host.wait_for_selector(".my-end:not([hidden])")
    assert len(of_type(frames["sent"], "race_resign")) == 1
    for page in (host, guest):
        assert not page.errors, page.errors


# a result's time reads with tenths (format.clock), in the results table and in the HUD once my game is over;
# the HUD's running clock shows whole seconds
MY_TIME = "document.querySelector('.results-table tr.me td:nth-child(5)')?.textContent"


def test_a_racer_whose_game_is_over_sees_their_final_time_and_no_undo(
    new_context: Any, web_server: Any
) -> None:
    host, guest, _ = running_race(new_context, web_server.http)
    for page in (host, guest):  # each racer saw "Go!" as the countdown ended
        assert page.locator(".race-room .go-notice").count() == 1
    # the clock runs (a starved page may skip a second: any shown second after 0:00 will do)
    host.wait_for_function(
        "/^0:(0[1-9]|[1-5][0-9])$/.test(document.querySelector('.race-hud .elapsed')?.textContent)",
        timeout=10_000,
    )
    assert host.locator(".undo").is_visible()
    resign(host)
    host.wait_for_selector(".my-end:not([hidden])")
    assert host.locator(".undo").is_hidden() and host.locator(".resign").is_hidden()
    # the opponent is told that the host is done (a notice naming the host's status)
    told = UI["live"]["finished"].split("{status}")[0].split("{name}")[1] + UI["status"]["resigned"]
    guest.wait_for_function("s => document.getElementById('toast').textContent.includes(s)", arg=told)
    resign(guest)
    host.wait_for_selector(".results:not([hidden])")
    final = host.evaluate(MY_TIME)
    assert re.fullmatch(r"0:[0-5]\d\.\d", final) and final != "0:00.0", final
    assert host.text_content(".race-hud .elapsed") == final
    assert (host.text_content(".racer.me .racer-sub") or "").endswith(f" · {final}")
    host.reload()  # back to the finished race: the board comes after the race message
    host.wait_for_selector(".results:not([hidden])")
    host.wait_for_selector(".race-hud:not([hidden])")
    host.wait_for_function(f"document.querySelector('.race-hud .elapsed')?.textContent === {MY_TIME}")
    assert host.locator(".undo").is_hidden() and host.locator(".resign").is_hidden()
    # the race is over: its racer may replay it (the watch view, not sent back to the race)
    host.click(".results .watch-replay")
    host.wait_for_selector(".watch-view .replay:not([hidden])")
    assert host.evaluate("location.hash").startswith("#/watch/")
    host.click(".watch-view .replay")
    host.wait_for_selector(".replay-bar:not([hidden])")
    for page in (host, guest):
        assert not page.errors, page.errors
