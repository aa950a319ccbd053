"""Friends in the page (issue 21.4, 21.5): two real browser contexts, each signed in; one follows the other
by username in the Friends view and challenges them; the notice reaches the other page in whatever view it
shows, is accepted there, and both pages land in one race, seated. Screenshots of the Friends view and the
notice on a phone and a desktop, in English and Hebrew (RTL)."""

from __future__ import annotations

from typing import Any

from golfrace.engine.i18n import catalog

from ..accounts.helpers import sign_up_in_page
from .helpers import open_page, record_frames, resign, shot, wait_until

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
FRIEND = "[data-username='{}']"


def signed_in(new_context: Any, base: str, viewport: dict[str, int], hash_: str = "") -> tuple[Any, str]:
    page = new_context(viewport=viewport).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base + "/" + hash_)
    page.errors = errors
    username = sign_up_in_page(page)
    return page, username


def no_overflow(page: Any) -> None:
    """Nothing of the page is wider than its window (a phone scrolls down, never sideways)."""
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 1, wide


def test_a_friend_challenge_is_accepted_in_another_browser_and_both_land_in_one_race(
    new_context: Any, web_server: Any
) -> None:
    base = web_server.http
    ann, ann_name = signed_in(new_context, base, DESKTOP)
    bob, bob_name = signed_in(new_context, base, PHONE)  # Bob stays on the Play view
    ann.goto(base + "/#/friends")
    ann.wait_for_selector(".friends-body:not([hidden])")
    ann.fill("#friend-name", bob_name.upper())  # a username in any case
    ann.click(".friends-add-btn")
    row = ann.locator(".friends-list " + FRIEND.format(bob_name))
    row.wait_for()
    ann.wait_for_selector(".friends-list " + FRIEND.format(bob_name) + "[data-status='online']")
    assert ann.input_value("#friend-name") == ""
    ann.select_option(".friends-rules-select", "classic")
    shot(ann, "friends-desktop-en")
    no_overflow(ann)
    row.locator(".friend-challenge").click()
    ann.wait_for_selector(".challenge-card[data-direction='out']")
    card = bob.locator(".challenge-card[data-direction='in']")
    card.wait_for()
    text = card.locator(".challenge-text").inner_text()
    assert catalog("en")["ui"]["rules_classic"] in text
    shot(bob, "friends-challenge-phone-en")
    no_overflow(bob)
    card.locator(".challenge-accept").click()
    for page in (ann, bob):
        page.wait_for_function("location.hash.startsWith('#/race/')")
        page.wait_for_function("document.querySelectorAll('.racer').length === 2")
    race_ids = {str(p.evaluate("location.hash.split('/')[2]")) for p in (ann, bob)}
    assert len(race_ids) == 1, race_ids
    for page in (ann, bob):  # both seated: each page has its own seat
        page.wait_for_function("window.golfrace.conn.welcome && document.querySelector('.racer.me') !== null")
    ann.wait_for_selector(".challenge-card", state="detached")
    bob.wait_for_selector(".challenge-card", state="detached")
    # Cat follows Ann and watches her race from the Friends view: no code and no card of the ranked deal
    cat, _ = signed_in(new_context, base, DESKTOP)
    frames = record_frames(cat)  # from the next connection on: the page is opened again
    cat.goto(base + "/#/friends")
    cat.reload()
    cat.wait_for_selector(".friends-body:not([hidden])")
    cat.fill("#friend-name", ann_name)
    cat.click(".friends-add-btn")
    watch = cat.locator(".friends-list " + FRIEND.format(ann_name) + "[data-status='racing'] .friend-watch")
    for _ in range(50):  # the race is stamped within GOLFRACE_FRIEND_PRESENCE_REFRESH_S; ask again until then
        if watch.count():
            break
        cat.evaluate("window.golfrace.conn.send({t: 'friends'})")
        cat.wait_for_timeout(200)
    shot(cat, "friends-racing-desktop-en")
    watch.click()
    cat.wait_for_function(f"location.hash === '#/watch/{race_ids.copy().pop()}'")
    cat.wait_for_selector(".watch-view")
    wait_until(cat, lambda: any(m.get("t") == "race_watch" for m in frames["received"]))
    for msg in frames["received"]:
        assert msg.get("code") is None, msg  # the race's code stays secret while it is on
        assert all(not b.get("discard") or not b.get("hidden") for b in msg.get("boards") or ())
    # after the race, Bob follows Ann from its results
    for page in (ann, bob):
        page.wait_for_selector(".resign:not([disabled])")
        resign(page)
    follow = bob.locator(".results .follow-racer")
    follow.wait_for()
    assert follow.count() == 1  # not beside Bob's own row
    follow.click()
    bob.wait_for_function(
        "t => document.querySelector('.results .follow-racer')?.textContent === t",
        arg=catalog("en")["ui"]["friends"]["followed"],
    )
    bob.goto(base + "/#/friends")
    bob.wait_for_selector(".friends-list " + FRIEND.format(ann_name))
    shot(bob, "friends-phone-en")
    no_overflow(bob)
    # Ann plays the daily and resigns: her result is public, so it is on Bob's friends' board (the Daily
    # view's and the Friends view's), ranked as on the public board
    ann.goto(base + "/#/daily")
    ann.click(".play-daily")
    ann.wait_for_function("location.hash.startsWith('#/race/')")
    ann.wait_for_selector(".resign:not([disabled])")
    resign(ann)
    ann.wait_for_selector(".results:not([hidden])")
    bob.goto(base + "/#/daily")
    bob.wait_for_selector(".daily-friends:not([hidden]) .friends-daily:not([hidden])")
    assert ann_name in bob.inner_text(".daily-friends .friends-daily")
    shot(bob, "friends-daily-phone-en")
    no_overflow(bob)
    assert not ann.errors and not bob.errors, (ann.errors, bob.errors)


def test_the_friends_view_in_hebrew_on_a_phone_and_a_guest_is_asked_to_sign_in(
    new_context: Any, web_server: Any
) -> None:
    base = web_server.http
    guest = open_page(new_context, base + "/#/friends")
    guest.wait_for_selector(".friends-signin:not([hidden])")
    assert guest.locator(".friends-body").is_hidden()
    dana, _ = signed_in(new_context, base, PHONE)
    eli, eli_name = signed_in(new_context, base, DESKTOP)
    dana.goto(base + "/#/friends")
    dana.select_option(".lang-select", "he")
    dana.wait_for_selector(".friends-body:not([hidden])")
    assert dana.evaluate("document.documentElement.dir") == "rtl"
    dana.fill("#friend-name", eli_name)
    dana.click(".friends-add-btn")
    dana.wait_for_selector(".friends-list " + FRIEND.format(eli_name) + "[data-status='online']")
    he = catalog("he")["ui"]["friends"]
    assert dana.locator(".friends-list .friend-status-text").inner_text() == he["status"]["online"]
    shot(dana, "friends-phone-he")
    no_overflow(dana)
    # an unknown name: the refusal in the page's language
    dana.fill("#friend-name", "nobody" + eli_name[2:])
    dana.click(".friends-add-btn")
    dana.wait_for_selector(".friends-error:not([hidden])")
    assert dana.inner_text(".friends-error") == catalog("he")["ui"]["errors"]["no_such_player"]
    # Eli is challenged and declines: the challenger's card goes
    dana.locator(".friends-list .friend-challenge").click()
    eli.select_option(".lang-select", "he")
    card = eli.locator(".challenge-card[data-direction='in']")
    card.wait_for()
    shot(eli, "friends-challenge-desktop-he")
    card.locator(".challenge-decline").click()
    dana.wait_for_selector(".challenge-card", state="detached")
    # block, then the blocked list offers the unblock
    dana.locator(".friends-list .friend-block").click()
    dana.wait_for_selector(".friends-blocked " + FRIEND.format(eli_name))
    assert dana.locator(".friends-list .friend").count() == 0
    shot(dana, "friends-blocked-phone-he")
    dana.select_option(".lang-select", "en")
    dana.locator(".friends-blocked .friend-unblock").click()
    dana.wait_for_selector(".friends-blocked " + FRIEND.format(eli_name), state="detached")
    dana.set_viewport_size(DESKTOP)
    shot(dana, "friends-desktop-en-empty")
    assert not dana.errors and not eli.errors, (dana.errors, eli.errors)
