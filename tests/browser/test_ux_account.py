"""Account pages (issue 20, 10): the profile points to the Stats page instead of a second, unstyled per-mode
table, and the devices list names each device (parsed by the server with ua-parser) with this one first."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace.engine.i18n import catalog

from ..accounts.helpers import sign_up_in_page
from .helpers import shot
from .test_learn import PHONE, visit
from .test_ux_race_start import LAPTOP

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)"
    " Version/17.4 Mobile/15E148 Safari/604.1"
)


@pytest.mark.parametrize(("loc", "viewport"), [("en", LAPTOP), ("he", PHONE)], ids=["en-laptop", "he-phone"])
def test_the_devices_are_named_and_this_one_comes_first(
    new_context: Any, web_server: Any, loc: str, viewport: Any
) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={loc}", viewport)
    page.wait_for_function("window.golfrace.conn.welcome != null")
    password = "a long and rare phrase"
    username = sign_up_in_page(page, password)
    # a second device of the same account: an iPhone, signed in before this page looks
    phone = new_context(user_agent=IPHONE).new_page()
    phone.goto(web_server.http + "/")
    status = phone.evaluate(
        """async ([username, password]) => (await fetch('/api/account/signin', {method: 'POST',
          headers: {'Content-Type': 'application/json'},
          body: JSON.stringify({username, password})})).status""",
        [username, password],
    )
    assert status == 200
    page.goto(f"{web_server.http}/?lang={loc}#/account")
    rows = page.locator(".account-sessions li")
    rows.nth(1).wait_for()
    account = catalog(loc)["account"]
    first, second = (rows.nth(i).locator("span").text_content() or "" for i in (0, 1))
    assert first.startswith(account["this_device"] + " · ")
    assert "HeadlessChrome" in first and "Mozilla" not in first  # a name, not the raw User-Agent
    iphone = account["device_on"].replace("{browser}", "Mobile Safari").replace("{os}", "iOS") + " (iPhone)"
    assert second.startswith(iphone), second
    assert page.locator(".account-modes").count() == 0  # one place for each mode's numbers: Stats
    shot(page, f"account-devices-{loc}-{viewport['width']}")
    assert not page.errors
