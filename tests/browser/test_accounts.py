"""Accounts in a real Chromium: a passkey made by Chromium's virtual authenticator (CDP ``WebAuthn``), signing
in on a second browser profile, a ranked race that shows up in the history, and password sign-up and
sign-in. Passkeys need a domain as relying-party id, so these pages use ``localhost``, not 127.0.0.1."""

from __future__ import annotations

import secrets
from typing import Any

from golfrace.engine.i18n import catalog

from ..accounts.helpers import sign_up_in_page
from .helpers import resign, shot

ACCOUNT = catalog("en")["account"]
AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


def _base(web_server: Any) -> str:
    return str(web_server.http).replace("127.0.0.1", "localhost")


def _account_page(new_context: Any, base: str) -> tuple[Any, Any, str]:
    """A fresh profile on the account view with a virtual authenticator: (page, cdp session, its id)."""
    page = new_context().new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    authenticator = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})[
        "authenticatorId"
    ]
    page.goto(base + "/#/account")
    page.wait_for_function("window.golfrace?.conn?.welcome != null")
    return page, cdp, authenticator


def _signed_in(page: Any) -> str:
    """Waits until the page's websocket is the account's player; returns that player id."""
    page.wait_for_function("window.golfrace.conn.welcome?.account != null && window.golfrace.conn.ready")
    return str(page.evaluate("window.golfrace.conn.welcome.player"))


def test_passkey_sign_up_second_device_ranked_race_in_history(new_context: Any, web_server: Any) -> None:
    base = _base(web_server)
    first, cdp, authenticator = _account_page(new_context, base)
    guest_player = first.evaluate("window.golfrace.conn.welcome.player")
    name = "Pk" + secrets.token_hex(4)
    first.fill(".signup-form [name=username]", name)
    first.fill(".signup-form [name=display]", "Passkey Pat")
    first.click(".signup-passkey")
    first.wait_for_selector(".account-view[data-profile=shown]")
    assert first.locator(".account-name").text_content() == "Passkey Pat"
    assert _signed_in(first) == guest_player  # the account took this browser's player
    assert first.locator(".account-passkeys").text_content() == ACCOUNT["passkeys"]["one"]
    cookies = {c["name"]: c for c in first.context.cookies()}
    assert cookies["golfrace_session"]["httpOnly"] is True
    assert first.evaluate("document.cookie").find("golfrace_session") < 0  # no script can read it
    shot(first, "account-signed-up-with-a-passkey")
    # the same passkey on a second device (profile): sign in without a username
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert credential["isResidentCredential"] and credential["rpId"] == "localhost"
    second, cdp2, authenticator2 = _account_page(new_context, base)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": authenticator2, "credential": credential})
    second.click(".signin-passkey")
    second.wait_for_selector(".account-view[data-profile=shown]")
    assert _signed_in(second) == guest_player
    # a ranked race (a random deal) on the second device, then its history
    second.goto(base + "/#/race")
    second.click(".race-create .create")
    second.wait_for_function("location.hash.startsWith('#/race/')")
    race_id = str(second.evaluate("location.hash.split('/')[2]"))
    second.click(".start")
    second.wait_for_selector(".race-room[data-phase=running]")
    resign(second)
    second.wait_for_selector(".results:not([hidden])")
    for page in (first, second):
        page.goto(base + "/#/account")
        page.reload()
        page.wait_for_selector(f".account-recent li[data-game='{race_id}-1']")
        link = page.locator(f".account-recent li[data-game='{race_id}-1'] .replay-link")
        assert link.get_attribute("href") == f"#/watch/{race_id}"
    shot(first, "account-history-with-the-race")
    for page in (first, second):
        assert not page.errors, page.errors


def test_password_sign_up_sign_out_and_sign_in(new_context: Any, web_server: Any) -> None:
    base = _base(web_server)
    page, _cdp, _ = _account_page(new_context, base)
    page.wait_for_selector(".signup-form")
    shot(page, "account-signed-out")
    name = "Pw" + secrets.token_hex(4)
    page.fill(".signup-form [name=username]", name)
    page.fill(".signup-form [name=password]", "password")
    page.click(".signup-password")
    error = page.locator(".account-error")
    error.wait_for()
    assert error.text_content() == ACCOUNT["errors"]["bad_password_length"].format(min=10, max=128)
    page.fill(".signup-form [name=password]", "a long and rare phrase")
    page.click(".signup-password")
    page.wait_for_selector(".account-view[data-profile=shown]")
    player = _signed_in(page)
    page.click(".sign-out")
    page.wait_for_selector(".signin-form")
    page.wait_for_function(
        f"window.golfrace.conn.ready && window.golfrace.conn.welcome.player !== '{player}'"
    )
    page.fill(".signin-form [name=username]", name.lower())
    page.fill(".signin-form [name=password]", "not it at all")
    page.click(".signin-password")
    page.wait_for_function(
        f"document.querySelector('.account-error')?.textContent === {ACCOUNT['errors']['bad_credentials']!r}"
    )
    page.fill(".signin-form [name=password]", "a long and rare phrase")
    page.click(".signin-password")
    page.wait_for_selector(".account-view[data-profile=shown]")
    assert _signed_in(page) == player
    # one more passkey: the password is asked again first
    page.fill(".add-passkey-field input", "a long and rare phrase")
    page.click(".add-passkey")
    page.wait_for_function(
        f"document.querySelector('.account-passkeys')?.textContent === {ACCOUNT['passkeys']['one']!r}"
    )
    assert page.locator(".add-passkey-field").is_hidden()  # now its passkey confirms
    assert not page.errors, page.errors


def test_a_guest_is_told_only_accounts_are_ranked_and_signing_up_keeps_the_game(
    new_context: Any, web_server: Any
) -> None:
    base = _base(web_server)
    page, _cdp, _ = _account_page(new_context, base)
    page.goto(base + "/#/daily")
    notice = page.locator(".daily-view [data-ranked-notice]")
    notice.wait_for()
    assert ACCOUNT["daily_guest_notice"] in notice.text_content()  # fair play 19.1: the guests' deal
    page.goto(base + "/#/race")
    page.click(".race-create .create")
    page.wait_for_function("location.hash.startsWith('#/race/')")
    race_id = str(page.evaluate("location.hash.split('/')[2]"))
    page.locator(".lobby-actions [data-ranked-notice]").wait_for()
    page.click(".start")
    page.wait_for_selector(".race-room[data-phase=running]")
    resign(page)
    page.wait_for_selector(".results:not([hidden])")
    in_result = page.locator(".results [data-ranked-notice]")
    in_result.wait_for()
    shot(page, "account-ranked-notice-in-the-results")
    in_result.locator("a").click()  # one tap to the sign-up
    page.wait_for_selector(".signup-form")
    page.fill(".signup-form [name=username]", "Gs" + secrets.token_hex(4))
    page.fill(".signup-form [name=password]", "a long and rare phrase")
    page.click(".signup-password")
    page.wait_for_selector(f".account-recent li[data-game='{race_id}-1']")  # the race just played is kept
    page.goto(base + "/#/daily")
    page.wait_for_selector(".daily-view .daily-date:not(:empty)")
    page.wait_for_selector(".daily-view [data-ranked-notice]", state="detached")  # signed in: no notice
    assert not page.errors, page.errors


def test_a_deleted_accounts_entry_reads_deleted_player(new_context: Any, web_server: Any) -> None:
    base = _base(web_server)
    page, _cdp, _ = _account_page(new_context, base)
    username = sign_up_in_page(page)
    player = _signed_in(page)
    page.goto(base + "/#/daily")
    page.wait_for_selector(".daily-view[data-played]")
    page.click(".play-daily")  # an account is not asked for a name: the board shows the account's
    page.wait_for_selector(".race-room[data-phase=running]")
    resign(page)
    page.wait_for_selector(".results:not([hidden])")
    page.goto(base + "/#/leaderboards")
    page.wait_for_selector(".boards-view[data-loaded^='daily:'] tr.me")
    page.goto(base + "/#/account")
    page.wait_for_selector(".account-view[data-profile=shown]")
    page.fill(".delete-form [name=confirm]", username)
    assert page.locator(".delete-passkey").is_hidden()  # a password account: its password confirms
    page.fill(".delete-form [name=password]", "not my password")
    page.click(".delete-password")
    page.wait_for_function(
        f"document.querySelector('.account-error')?.textContent === {ACCOUNT['errors']['bad_credentials']!r}"
    )
    assert page.locator(".account-view[data-profile=shown]").count() == 1  # nothing was deleted
    page.fill(".delete-form [name=password]", "a long and rare phrase")
    page.click(".delete-password")
    page.wait_for_selector(".signup-form")
    page.wait_for_function(
        f"window.golfrace.conn.ready && window.golfrace.conn.welcome.player !== {player!r}"
    )
    page.goto(base + "/?lang=he#/leaderboards")
    page.wait_for_selector(".boards-view[data-loaded^='daily:']")
    deleted = catalog("he")["account"]["deleted_player"]
    cells = "[...document.querySelectorAll('.board-table td')]"
    page.wait_for_function(f"name => {cells}.some(td => td.textContent === name)", arg=deleted)
    assert page.locator(".board-table tr.me").count() == 0  # the page is a new guest now
    assert not page.errors, page.errors


def test_the_account_page_fits_a_phone_in_hebrew(new_context: Any, web_server: Any) -> None:
    page = new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(_base(web_server) + "/?lang=he#/account")
    page.wait_for_selector(".signup-form")
    assert page.get_attribute("html", "dir") == "rtl"
    assert page.text_content(".account-out h1") == catalog("he")["account"]["signup_title"]
    fits = "document.documentElement.scrollWidth <= window.innerWidth"
    assert page.evaluate(fits)  # signed out: nothing wider than the phone
    shot(page, "account-he-phone-signed-out")
    sign_up_in_page(page)
    page.wait_for_selector(".account-view[data-profile=shown]")
    assert page.evaluate(fits)  # signed in (profile, forms, devices)
    shot(page, "account-he-phone-profile")


def test_a_passkey_account_is_deleted_after_a_fresh_passkey_assertion(
    new_context: Any, web_server: Any
) -> None:
    base = _base(web_server)
    page, cdp, authenticator = _account_page(new_context, base)
    name = "Pd" + secrets.token_hex(4)
    page.fill(".signup-form [name=username]", name)
    page.click(".signup-passkey")
    page.wait_for_selector(".account-view[data-profile=shown]")
    player = _signed_in(page)
    assert page.locator(".delete-password-field").is_hidden()  # no password to type
    button = page.locator(".delete-passkey")
    assert button.text_content() == ACCOUNT["delete_passkey"]
    signs = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"][0]
    page.fill(".delete-form [name=confirm]", name)
    button.click()
    page.wait_for_selector(".signup-form")
    page.wait_for_function(
        f"window.golfrace.conn.ready && window.golfrace.conn.welcome.player !== {player!r}"
    )
    (after,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert after["signCount"] > signs["signCount"]  # the authenticator was asked again: a fresh assertion
    r = page.evaluate("fetch('/api/account').then(r => r.json())")
    assert r == {"account": None}
    assert not page.errors, page.errors


def test_on_an_ip_address_the_page_offers_the_password_and_says_where_passkeys_work(
    new_context: Any, web_server: Any
) -> None:
    """Issue 20.4: on ``http://127.0.0.1:PORT`` no passkey can be made (WebAuthn needs a domain): instead of
    a button that can only fail ("could not be checked"), the page says why and links the localhost address;
    the password stays. Desktop and phone, English and Hebrew."""
    port = web_server.settings.port
    for lang, viewport in (("en", {"width": 1366, "height": 768}), ("he", {"width": 390, "height": 844})):
        texts = catalog(lang)["account"]
        page = new_context(viewport=viewport).new_page()
        page.goto(f"{web_server.http}/?lang={lang}#/account")
        page.wait_for_selector(".signup-form")
        note = page.locator(".passkey-by-name")
        note.wait_for(state="visible")
        assert texts["passkey_by_name"] in note.inner_text()
        assert page.get_attribute(".passkey-local a", "href") == f"http://localhost:{port}/#/account"
        assert not page.is_visible(".signup-passkey") and not page.is_visible(".signin-passkey")
        assert page.is_visible(".signup-password") and page.is_visible(".signin-password")
        assert not page.is_visible(".account-error") or page.inner_text(".account-error") == ""
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        shot(page, f"account-{lang}-{viewport['width']}-ip-address")
        page.context.close()
    by_name = new_context().new_page()  # by name: the passkey buttons, no note
    by_name.goto(_base(web_server) + "/#/account")
    by_name.wait_for_selector(".signup-passkey")
    assert by_name.is_visible(".signup-passkey") and not by_name.is_visible(".passkey-by-name")
