"""An axe-core scan (client_web/node_modules/axe-core, a devDependency) of each main view and the walkthrough:
no serious or critical violation, in English and Hebrew, on a phone (390×844) and a desktop (1440×900)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO
from .helpers import host_race
from .test_learn import IDS, SCREENS, visit

AXE = REPO / "client_web" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
KNOWN: dict[str, str] = {}
"""Findings known and accepted, by rule: the selector of the only elements they may be on (none now: the
cards' names contain their printed rank since issue 20)."""


def scan(page: Any, where: str) -> list[str]:
    """The serious and critical violations axe finds on the page as it is now, one line each."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    out = []
    for v in result["violations"]:
        known = KNOWN.get(v["id"])
        if known and all(
            page.evaluate("s => document.querySelector(s)?.matches('" + known + "')", n["target"][0])
            for n in v["nodes"]
        ):
            continue  # a known finding, and only on the elements it is known for
        if v["impact"] in BLOCKING:
            nodes = "; ".join(n["target"][0] if n["target"] else "?" for n in v["nodes"][:4])
            out.append(f"{where}: {v['id']} ({v['impact']}): {v['help']} — {nodes}")
    return out


@pytest.fixture(scope="module")
def axe_script() -> Path:
    if not AXE.is_file():
        pytest.fail("client_web/node_modules/axe-core is missing: cd client_web && npm ci")
    return AXE


@pytest.mark.parametrize(("lang", "viewport"), SCREENS, ids=IDS)
def test_no_serious_accessibility_violations(
    new_context: Any, web_server: Any, axe_script: Path, lang: str, viewport: dict[str, int]
) -> None:
    base = web_server.http
    host, race_id = host_race(new_context, base)  # a lobby to look at, and to watch
    page = visit(new_context, f"{base}/?lang={lang}", viewport, first_visit=True)
    found: list[str] = []
    page.wait_for_selector("dialog.walkthrough[open][data-step=intro]")
    found += scan(page, "walkthrough")
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.walkthrough", state="detached")
    page.wait_for_selector(".play[data-v]")
    found += scan(page, "play")
    views = [
        ("watch", f"#/watch/{race_id}", ".watch-view[data-phase=lobby]"),
        ("live races", "#/watch", ".live-view[data-loaded]"),
        ("daily", "#/daily", ".daily-card"),
        ("leaderboards", "#/leaderboards", ".boards-view[data-loaded]"),
        ("rules", "#/rules", f".rules-view[data-loaded={lang}]"),
        ("stats", "#/stats", ".stats-view[data-loaded]"),
        ("friends", "#/friends", ".friends-view[data-loaded]"),
        ("race lobby", f"#/race/{race_id}", ".race-room[data-phase=lobby]"),  # last: this joins the race
    ]
    for name, route, ready in views:
        page.goto(f"{base}/?lang={lang}{route}")
        page.wait_for_selector(ready)
        found += scan(page, name)
    assert not found, "\n".join(found)
    assert not page.errors
    host.close()
