"""Links (issue 20, 11): the daily's own address /daily opens the Daily view with a preview of its own (its
share text links there too), and a mistyped address opens the app for a browser, not a JSON error."""

from __future__ import annotations

from typing import Any

from .helpers import open_page


def test_the_daily_has_an_address_of_its_own(new_context: Any, web_server: Any) -> None:
    page = open_page(new_context, f"{web_server.http}/daily")
    page.wait_for_selector(".daily-view[data-played]")
    assert page.get_attribute('.nav a[aria-current="page"]', "data-view") == "daily"
    assert page.evaluate("location.hash") == "#/daily"  # the app's own address from then on
    html = page.evaluate("document.documentElement.outerHTML")
    assert 'property="og:image"' in html and "/og/daily.png" in html
    assert not page.errors


def test_a_mistyped_address_opens_the_app(new_context: Any, web_server: Any) -> None:
    page = new_context().new_page()
    answer = page.goto(f"{web_server.http}/no-such-page")
    assert answer is not None and answer.status == 404
    page.wait_for_selector(".play[data-v]")  # the app, on its first view
