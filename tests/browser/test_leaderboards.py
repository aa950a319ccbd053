"""The leaderboards page: one live subscription per shown board, and its form."""

from __future__ import annotations

from typing import Any

from golfrace.engine.i18n import catalog

from .helpers import of_type, quiet, record_frames, shot, wait_until

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
    page.wait_for_selector(".boards-view .empty:not([hidden]):not(.rating-empty)")
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
    assert page.locator(".boards-view .empty:not(.rating-empty)").is_hidden()
    assert page.locator(".board-table tbody tr").count() == 0

    # a cold load has the label and placeholder in the page's language from the start
    page.goto(web_server.http + "/?lang=ro#/leaderboards")
    page.wait_for_selector(".boards-view[data-loaded^='daily:']")
    ro = catalog("ro")["ui"]
    assert key.get_attribute("aria-label") == ro["date_label"]
    assert key.get_attribute("placeholder") == ro["date_format"]


def test_a_board_marks_the_username_apart_from_the_display_name(
    new_context: Any, web_server: Any, redis_url: str
) -> None:
    """Fair play 19.6: a display name could read like another player's; the board shows each account's
    username beside it, in another look (English desktop, Hebrew phone)."""
    import asyncio
    import secrets
    from concurrent.futures import ThreadPoolExecutor

    import redis.asyncio as aioredis

    from golfrace.engine import GameCode
    from golfrace.races.leaderboard import Entry, Leaderboards, code_board

    from .test_ux_board import SIZES

    code = str(GameCode.parse("GO1-E-" + "".join(secrets.choice("ABCDEFGHIJ") for _ in range(7))))
    handle = "ana" + secrets.token_hex(3)

    async def post() -> None:
        client = aioredis.Redis.from_url(redis_url)
        try:
            boards = Leaderboards(client, 3600)
            entry = Entry(
                "p" + secrets.token_hex(8), "Ana the Great", 350, 61_000, 50, 1_000, "g-1", None, handle
            )
            await boards.submit(code_board(code), entry.player, entry)
            same = Entry(
                "p" + secrets.token_hex(8), "bo" + handle, 340, 60_000, 50, 1_000, "g-2", None, "bo" + handle
            )
            await boards.submit(code_board(code), same.player, same)
        finally:
            await client.aclose()

    with ThreadPoolExecutor(1) as pool:  # the page's own event loop runs in this thread
        pool.submit(asyncio.run, post()).result(timeout=10)
    for loc, size in (("en", "desktop"), ("he", "phone")):
        phone = size == "phone"
        page = new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone).new_page()
        page.goto(f"{web_server.http}/?lang={loc}#/leaderboards/code/{code}")
        page.wait_for_selector(".board-table tbody tr:nth-child(2)")
        first = page.locator(".board-table tbody tr").nth(0).locator("td").nth(1)
        assert first.locator("bdi").nth(0).text_content() == "Ana the Great"
        mark = first.locator(".username")
        assert mark.text_content() == f"@{handle}" and mark.get_attribute("dir") == "ltr"
        looks = mark.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e.parentElement).color]")
        assert looks[0] != looks[1]  # marked apart
        second = page.locator(".board-table tbody tr").nth(1).locator("td").nth(1)
        assert second.locator(".username").count() == 0  # its name is its username: shown once
        shot(page, f"fair-board-username-{size}-{loc}")
        page.context.close()
