"""``retrying``: the retry loop behind a race's deadline and the resend after a reconnect."""

from __future__ import annotations

import logging

import pytest

from golfrace.races.errors import RaceError
from golfrace.races.timers import retrying

pytestmark = pytest.mark.timeout(10)

WAITS = (0.0, 0.0, 0.0)


class Flaky:
    """An attempt that fails with ``error`` its first ``failures`` times, then succeeds."""

    def __init__(self, failures: int, error: BaseException | None = None) -> None:
        self.failures = failures
        self.error = error or ConnectionError("redis away")
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error


async def test_returns_after_the_first_success() -> None:
    attempt = Flaky(failures=1)
    await retrying(attempt, WAITS, (RaceError,), "test")
    assert attempt.calls == 2


async def test_one_last_attempt_after_the_last_wait(caplog: pytest.LogCaptureFixture) -> None:
    attempt = Flaky(failures=len(WAITS))  # fails before every wait, succeeds after the last one
    with caplog.at_level(logging.WARNING, logger="golfrace"):
        await retrying(attempt, WAITS, (RaceError,), "test")
    assert attempt.calls == len(WAITS) + 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_gives_up_with_an_error_when_every_attempt_fails(caplog: pytest.LogCaptureFixture) -> None:
    attempt = Flaky(failures=100)
    with caplog.at_level(logging.WARNING, logger="golfrace"):
        await retrying(attempt, WAITS, (RaceError,), "ending race r1")
    assert attempt.calls == len(WAITS) + 1
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == ["ending race r1 failed; giving up after 4 attempts: ConnectionError: redis away"]


async def test_a_settled_error_stops_at_once() -> None:
    attempt = Flaky(failures=100, error=RaceError("race_over", "already over"))
    await retrying(attempt, WAITS, (RaceError,), "test")
    assert attempt.calls == 1
