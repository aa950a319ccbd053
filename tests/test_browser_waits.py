"""A browser test's wait polls a predicate until it holds; a predicate that throws ends the wait at once.

Playwright's ``wait_for_function`` fails on the first exception its predicate raises. A predicate that reads
``document.querySelector(...).dataset`` therefore fails the test whenever the element is absent for one frame
(a view re-rendered between two holes), instead of waiting for it: stop 26's CI lost a run to exactly that
(``test_course_daily``: "Cannot read properties of null (reading 'dataset')"). Every element a wait reads is
read through ``?.`` (or tested first), so that a missing element means "not yet".
"""

from __future__ import annotations

import re
from pathlib import Path

BROWSER = Path(__file__).resolve().parent / "browser"
UNGUARDED = re.compile(r"document\.querySelector\((?:[^()]|\([^()]*\))*\)\.(?!\.)")


def _waits(source: str) -> list[str]:
    """The text of every ``wait_for_function(...)`` call in ``source``, its arguments included."""
    calls = []
    start = source.find("wait_for_function(")
    while start >= 0:
        end, depth = start + len("wait_for_function("), 1
        while depth:
            depth += {"(": 1, ")": -1}.get(source[end], 0)
            end += 1
        calls.append(source[start:end])
        start = source.find("wait_for_function(", end)
    return calls


def test_the_scanner_finds_an_unguarded_read_and_passes_a_guarded_one() -> None:
    bad = """page.wait_for_function("document.querySelector('.play').dataset.v === '0'")"""
    good = """page.wait_for_function("document.querySelector('.play')?.dataset.v === '0'")"""
    assert [UNGUARDED.search(call) is not None for call in _waits(bad + "\n" + good)] == [True, False]


def test_no_browser_wait_reads_an_element_that_may_be_missing() -> None:
    found = [
        f"{path.name}: {hit.group(0)}"
        for path in sorted(BROWSER.glob("*.py"))
        for call in _waits(path.read_text())
        if (hit := UNGUARDED.search(call))
    ]
    assert found == []
