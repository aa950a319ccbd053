"""The leaderboards page: one live subscription per shown board, and its form."""

from __future__ import annotations

from typing import Any

from golfrace.engine.i18n import catalog

from .helpers import of_type, quiet, record_frames, wait_until

UI = catalog("en")["ui"]


def sent(frames: dict[str, list[Any]], t: str) -> list[str]:
    return [m["board"] for m in of_type(frames["sent"], t)]


def boards_received(frames: dict[str, list[Any]]) -> int:
    return len(of_type(frames["received"], "board"))


def test_one_watch_per_shown_board_and_updates_do_not_rewatch(new_context: Any, web_server: Any) -> None:
    page = new_context().new_page()
    frames = record_frames(page)
    # a cold load of the page subscribes to the board it shows (the page may load before the handshake)
    page.goto(web_server.http + "/#/leaderboards")
    page.wait_for_selector(".boards-view[data-loaded^='daily:']")
    board = page.get_attribute(".boards-view", "data-loaded")
    wait_until(page, lambda: boards_received(frames) >= 1)
    quiet(page)  # had the page answered that board with another watch, its answer would be in by now
    assert sent(frames, "board_watch") == [board]
    assert boards_received(frames) == 1  # the server's answer to the watch, and no more

    # away and back: one unwatch, then one new watch, whose answer does not start a loop either
    page.click(".nav a[data-view=play]")
    page.wait_for_selector(".play[data-v]")
    page.click(".nav a[data-view=leaderboards]")
    wait_until(page, lambda: boards_received(frames) >= 2)
    quiet(page)
    assert sent(frames, "board_watch") == [board, board]
    assert sent(frames, "board_unwatch") == [board]
    assert boards_received(frames) == 2


def test_a_bad_key_shows_only_its_error_and_the_key_field_is_labelled(
    new_context: Any, web_server: Any
) -> None:
    page = new_context().new_page()
    page.goto(web_server.http + "/#/leaderboards/code/GO1-E-ZZZZZZZ")  # nobody played it: an empty board
    page.wait_for_selector(".boards-view .empty:not([hidden])")
    key = page.locator(".board-form input[name=key]")
    assert key.get_attribute("aria-label") == UI["code_label"]
    assert key.get_attribute("placeholder") == "GO1-E-ABCDEFG"

    page.select_option(".board-form select[name=kind]", "daily")
    assert key.get_attribute("aria-label") == UI["date_label"]
    assert key.get_attribute("placeholder") == UI["date_format"]
    key.fill("2026-13-45")
    page.click(".board-form button[type=submit]")
    error = page.locator(".board-error:not([hidden])")
    error.wait_for()
    assert error.text_content() == UI["errors"]["bad_date"]
    assert page.locator(".boards-view .empty").is_hidden()
    assert page.locator(".board-table tbody tr").count() == 0

    # a cold load has the label and placeholder in the page's language from the start
    page.goto(web_server.http + "/?lang=ro#/leaderboards")
    page.wait_for_selector(".boards-view[data-loaded^='daily:']")
    ro = catalog("ro")["ui"]
    assert key.get_attribute("aria-label") == ro["date_label"]
    assert key.get_attribute("placeholder") == ro["date_format"]
