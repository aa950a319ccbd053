"""Stats (issue 13.15) and the installable, offline-capable page (13.16): your games as the server saw them
end, the manifest and service worker, and the offline page with the rules after a first visit. In English and
Hebrew, on a phone (390×844) and a desktop (1440×900), with screenshots."""

from __future__ import annotations

import json
from typing import Any
from urllib.request import urlopen

import pytest

from golfrace.engine.i18n import catalog

from .helpers import EXAMPLE_CODE, EXAMPLE_WIN, deal, press, shot
from .test_learn import DESKTOP, IDS, PHONE, SCREENS, visit


def test_stats_page_counts_a_won_game(new_context: Any, web_server: Any) -> None:
    page = visit(new_context, f"{web_server.http}/#/stats", DESKTOP)
    page.wait_for_selector(".stats-view[data-loaded] .stats-empty:not([hidden])")
    page.click(".nav a[data-view=play]")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    for action in EXAMPLE_WIN:
        press(page, action)
    page.wait_for_selector("[data-testid=win-dialog]")
    page.keyboard.press("Escape")
    for lang, viewport in (("en", PHONE), ("en", DESKTOP), ("he", PHONE), ("he", DESKTOP)):
        texts = catalog(lang)["ui"]["stats"]
        page.set_viewport_size(viewport)
        page.goto(f"{web_server.http}/?lang={lang}#/stats")
        page.wait_for_selector(".stats-view[data-loaded] .stats-body:not([hidden])")
        tiles = dict(
            zip(
                page.locator(".tiles dt").all_text_contents(),
                page.locator(".tiles dd").all_text_contents(),
                strict=True,
            )
        )
        assert tiles[texts["played"]] == "1" and tiles[texts["won"]] == "1", tiles
        assert tiles[texts["win_rate"]] == "100%" and tiles[texts["win_streak"]] == "1", tiles
        solo = page.locator(".modes-table tr[data-mode=solo] td").all_text_contents()
        assert solo[:4] == [texts["solo"], "1", "1", "350"], solo
        race = page.locator(".modes-table tr[data-mode=race] td").all_text_contents()
        assert race[1:] == ["0", "0", "—", "—"], race
        assert page.locator(".chart svg rect").count() == 1
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        shot(page, f"stats-{lang}-{viewport['width']}")
    assert not page.errors


def test_manifest_and_service_worker_are_served(web_server: Any) -> None:
    with urlopen(f"{web_server.http}/manifest.webmanifest", timeout=10) as answer:
        manifest = json.loads(answer.read())
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert {i["sizes"] for i in manifest["icons"]} == {"192x192", "512x512"}
    with urlopen(f"{web_server.http}/", timeout=10) as answer:
        page = answer.read().decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    with urlopen(f"{web_server.http}/sw.js", timeout=10) as answer:
        sw = answer.read().decode()
    assert "/offline.html" in sw and "__SHELL__" not in sw


@pytest.mark.parametrize(("lang", "viewport"), SCREENS, ids=IDS)
def test_offline_after_a_first_visit_opens_the_rules(
    new_context: Any, web_server: Any, lang: str, viewport: dict[str, int]
) -> None:
    texts = catalog(lang)["ui"]
    page = visit(new_context, f"{web_server.http}/?lang={lang}", viewport)
    page.wait_for_selector(".play[data-v]")
    page.select_option(".lang-select", lang)  # the player's choice, remembered
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=10_000)
    page.evaluate("navigator.serviceWorker.ready")
    page.context.set_offline(True)
    try:
        for url in ("/#/race", f"/r/rnosuchrace00?lang={lang}", "/"):
            page.goto(web_server.http + url)
            page.wait_for_selector("html[data-rules='1'] .offline-page .rules-body h1")
            assert page.text_content("#offline-title") == texts["offline_page"]["title"]
            assert page.get_attribute("html", "dir") == ("rtl" if lang == "he" else "ltr")
            rules_h1 = page.text_content(".rules-body h1")
            assert rules_h1 and rules_h1 == page.evaluate(
                "document.querySelector('.rules-body h1').textContent"
            )
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        shot(page, f"offline-{lang}-{viewport['width']}")
    finally:
        page.context.set_offline(False)
    # back online: the offline page finds the server again by itself and reloads the page it stood for (the
    # last or an earlier of the addresses above): the game's own page, with its navigation, is there again
    page.wait_for_function(
        "!document.querySelector('.offline-page') && !!document.querySelector('.nav a[aria-current=page]')",
        timeout=15_000,
    )
    assert not page.errors
