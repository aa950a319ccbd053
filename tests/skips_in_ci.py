"""In CI a skipped test fails: CI installs everything the suite needs (chromium, node, redis-server >= 7,
haproxy: .ci/run), so a skip there is a test that silently stopped running. ``tests/conftest.py`` takes these
hooks for the whole suite; ``tests/test_ci_skips.py`` runs them on a small suite of its own."""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import TypeVar

import pytest

Report = TypeVar("Report", pytest.TestReport, pytest.CollectReport)
Wrapped = Generator[None, Report, Report]
"""A hook wrapper's generator: it gets the report made, and returns it (changed or not)."""


def in_ci() -> bool:
    """``CI=true`` (or 1): set by .ci/run, and by CI services."""
    return os.environ.get("CI", "").lower() in ("true", "1")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Wrapped[pytest.TestReport]:
    """In CI a skipped test is a failed one (in its setup: an error), with the reason it gave."""
    report = yield
    return _skip_fails_in_ci(report)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Wrapped[pytest.CollectReport]:
    """The same for a whole module skipped while collected (``pytest.importorskip``, a module-level skip)."""
    report = yield
    return _skip_fails_in_ci(report)


def _skip_fails_in_ci(report: Report) -> Report:
    if not report.skipped or hasattr(report, "wasxfail") or not in_ci():
        return report
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    report.outcome = "failed"
    report.longrepr = f"skipped in CI, which fails CI (CI installs what the suite needs): {reason}"
    return report
