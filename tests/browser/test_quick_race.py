"""Race now, in real Chromium: two browser contexts press it and meet in one race; a lone player gets a bot
race, sees the bot's badge and, signed in, a rating change and "Race again" after it, then its rating on the
stats page and on the account page; Cancel leaves the pool. Screenshots on a phone and a desktop, in English
and Hebrew (right to left)."""

from __future__ import annotations

from typing import Any

from golfrace.engine.i18n import catalog
from golfrace.pool.policy import strength_for

from ..accounts.helpers import sign_up_in_page
from .helpers import click, deal, open_page, resign, shot, stuck_line

POOL = {loc: catalog(loc)["pool"] for loc in ("en", "he")}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def home(new_context: Any, base: str, **options: Any) -> Any:
    page = new_context(**options).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base + "/")
    page.wait_for_function("document.documentElement.dataset.boardShown === '1'")
    page.errors = errors
    return page


def race_now(page: Any, rules: str = "easy", *, met: bool = False) -> None:
    """Press Race now and see it searching; ``met``: someone already waits, so the page may be in the race
    before the search shows (the pool pairs at once)."""
    page.click(f".qr-home .qr-go[data-rules={rules}]")
    searching = f".qr-home .qr-go[data-rules={rules}].pulsing"
    if met:
        page.wait_for_function(
            "s => location.hash.startsWith('#/race/') || document.querySelector(s) !== null", arg=searching
        )
    else:
        page.wait_for_selector(searching)


def race_id(page: Any) -> str:
    page.wait_for_function("location.hash.startsWith('#/race/')", timeout=20_000)
    return str(page.evaluate("location.hash.split('/')[2]"))


def test_two_browsers_press_race_now_and_meet_in_one_race(new_context: Any, web_server: Any) -> None:
    base = web_server.http
    ann, bob = home(new_context, base), home(new_context, base, **PHONE)
    race_now(ann)
    status = ann.locator(".qr-home .qr-status")
    status.wait_for()
    assert POOL["en"]["searching"] in status.text_content()
    shot(ann, "quick-race-searching-desktop")
    race_now(bob, met=True)
    rid = race_id(ann)
    assert race_id(bob) == rid
    for page in (ann, bob):  # the countdown (2.5 s here; a loaded machine may show the race running already)
        page.wait_for_selector(".race-room[data-phase=countdown], .race-room[data-phase=running]")
        page.wait_for_function("document.querySelectorAll('.racer').length === 2")
        assert page.locator(".racer .bot-badge").count() == 0  # two people, no bot
    shot(bob, "quick-race-countdown-phone")
    for page in (ann, bob):
        page.wait_for_selector(".race-room[data-phase=running]", timeout=10_000)
    assert not ann.errors and not bob.errors


def test_a_lone_player_gets_a_bot_race_and_a_rating_after_it(new_context: Any, web_server: Any) -> None:
    base = web_server.http
    solo = open_page(new_context, base + "/#/race")
    sign_up_in_page(solo)
    solo.goto(base + "/")
    solo.wait_for_function("document.documentElement.dataset.boardShown === '1'")
    race_now(solo, "classic")
    race_id(solo)
    solo.wait_for_selector(".racer .bot-badge")
    assert solo.locator(".racer .bot-badge").text_content() == POOL["en"]["bot"]
    shot(solo, "quick-race-bot-desktop")
    solo.wait_for_selector(".race-room[data-phase=running]", timeout=10_000)
    resign(solo)
    # the bot plays on to its end; then the results, the rating change and Race again
    line = solo.locator("[data-testid=rating-change]")
    solo.wait_for_function(
        "document.querySelector('[data-testid=rating-change]')?.dataset.state === 'rated'", timeout=60_000
    )
    assert line.text_content().startswith("Rating ")
    again = solo.locator(".results .qr-again")
    assert again.is_visible() and again.text_content() == POOL["en"]["again"]
    shot(solo, "quick-race-rating-desktop")
    again.click()
    solo.wait_for_selector(".results .qr-again.pulsing")
    solo.click(".results .qr-cancel")
    solo.wait_for_function("window.golfrace.pool.state === 'idle'")
    # the stats page: the rating (provisional after one race), its chart, the win rate against the bot
    # The games' answer is held until the rating's is painted: the games' chart, drawn after, once took the
    # rating's figure for its own and wiped it (whichever answer came last won).
    held: list[Any] = []
    solo.route("**/api/players/me/stats", lambda route: held.append(route))
    solo.goto(base + "/#/stats")
    mine = solo.locator("[data-testid=my-ratings] .my-rating[data-rules=classic]")
    mine.wait_for()
    assert mine.locator(".rating-value").text_content().endswith("?")
    mine.locator(".rating-chart circle").first.wait_for()  # the chart is drawn once the history has come
    for _ in range(200):  # the routes are handed over while Playwright waits: until the page has asked
        if held:
            break
        solo.wait_for_timeout(50)
    assert held, "the stats page asked for its games"
    assert solo.locator(".stats-view[data-loaded]").count() == 0  # their answer is still held
    for route in held:
        route.continue_()
    solo.unroute("**/api/players/me/stats")
    solo.wait_for_selector(".stats-view[data-loaded]")
    assert mine.locator(".rating-chart circle").count() == 1
    assert mine.locator(".rating-chart rect").count() == 0
    solo.locator(".stats-body .scores-chart svg").wait_for()  # the resigned race is a game of its own
    assert mine.locator(".vs-table td").first.text_content().startswith("Bot strength ")
    shot(solo, "quick-race-stats-desktop")
    # the account page's rating panel, the page loaded straight at it (before its connection is ready), in
    # Hebrew: the rating, its provisional mark, the chart and the win rate against the bot, in its words
    he = catalog("he")["pool"]
    solo.goto(base + "/?lang=he#/account")
    solo.wait_for_selector(".account-view[data-profile=shown]")
    panel = solo.locator(".account-view [data-testid=my-ratings]")
    section = panel.locator(".my-rating[data-rules=classic]")
    section.wait_for()
    assert panel.locator("h2").text_content() == he["rating"]
    assert section.locator(".rating-value").text_content().endswith("?")
    assert section.locator(".rating-mark").text_content() == he["provisional"]
    section.locator(".rating-chart circle").first.wait_for()
    level = strength_for(1500)  # a new account's bots: the ladder's nearest to the start rating
    assert section.locator(".vs-table td").first.text_content() == he["vs_bot"].replace("{n}", str(level))
    assert panel.locator(".my-rating[data-rules=easy]").count() == 0  # no easy quick race: no section
    shot(solo, "quick-race-account-he-desktop")
    # the rating boards beside the others: a provisional rating is not on them yet
    solo.goto(base + "/#/leaderboards")
    solo.locator("[data-testid=rating-boards] .rating-board[data-rules=classic] .empty").wait_for()
    assert not solo.errors


def test_race_now_reads_right_to_left_in_hebrew_on_a_phone(new_context: Any, web_server: Any) -> None:
    page = home(new_context, web_server.http, locale="he-IL", **PHONE)
    assert page.evaluate("document.documentElement.dir") == "rtl"
    bar = page.locator(".qr-home .quick-race")
    assert bar.locator(".qr-title").text_content() == POOL["he"]["title"]
    race_now(page)
    assert POOL["he"]["searching"] in page.locator(".qr-home .qr-status").text_content()
    box = bar.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    shot(page, "quick-race-searching-phone-he")
    page.click(".qr-home .qr-cancel")
    page.wait_for_function("window.golfrace.pool.state === 'idle'")
    assert page.locator(".qr-home .qr-status").is_hidden()
    assert not page.errors


def test_race_now_after_a_game_leads_into_the_race(new_context: Any, web_server: Any) -> None:
    """The stuck dialog's "Race now": the search starts there, and the race found takes the page over."""
    base = web_server.http
    player, other = home(new_context, base), home(new_context, base)
    code = "GO1-C-AAAAAAB"
    deal(player, code)
    for action in stuck_line(code):
        click(player, action)
    player.wait_for_selector("[data-testid=stuck-dialog] .quick-race")
    shot(player, "quick-race-after-game-desktop")
    player.click("[data-testid=stuck-dialog] .qr-go[data-rules=easy]")
    player.wait_for_selector("[data-testid=stuck-dialog] .qr-go.pulsing")
    race_now(other, met=True)
    rid = race_id(player)
    assert race_id(other) == rid
    player.wait_for_function("document.querySelectorAll('dialog[open]').length === 0")  # gave way
    player.wait_for_selector(".race-room:not([hidden])")
    assert not player.errors and not other.errors
