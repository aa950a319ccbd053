"""The fair-play checks of a result, pure (replay.py): the median gap between moves and the daily grace."""

from __future__ import annotations

import pytest

from golfrace.races.daily import day_start_ms, parse_day
from golfrace.races.replay import TOO_FAST, Checks, GameRecord, counts_for_day, median_gap_ms, review_reason
from golfrace.races.settings import DAY_MS, RaceSettings

CHECKS = Checks(median_gap_ms=120, min_moves=5, daily_grace_ms=600_000)


def record(
    times: list[int], ranked: bool = True, daily: str | None = None, finished_at: int = 0
) -> GameRecord:
    return GameRecord(
        "rabcdefghijk-1", "GO1-E-AAAAAAB", "p", "P", "resigned", 0, finished_at,
        tuple(("d", t) for t in times), ranked=ranked, daily=daily,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("times", "median", "review"),
    [
        ([], None, None),
        ([500], None, None),
        ([0, 50, 100, 150], 50, None),  # fast, but only 4 moves: says too little
        ([0, 50, 100, 150, 200], 50, TOO_FAST),
        ([0, 119, 238, 357, 476], 119, TOO_FAST),
        ([0, 120, 240, 360, 480], 120, None),  # the threshold itself is human
        ([0, 10, 20, 30, 2000, 4000, 6000, 8000], 1970, None),  # a burst of quick taps inside a human game
        ([0, 300, 310, 320, 330, 340], 10, TOO_FAST),  # one pause does not hide a bot
    ],
)
def test_a_median_gap_below_the_threshold_over_enough_moves_is_held(
    times: list[int], median: float | None, review: str | None
) -> None:
    assert median_gap_ms(record(times).log) == median
    assert review_reason(record(times), CHECKS) == review


def test_the_checks_come_from_the_race_settings() -> None:
    settings = RaceSettings(review_median_gap_ms=90, review_min_moves=7, daily_grace_s=30)
    assert Checks.of(settings) == Checks(90, 7, 30_000)
    assert Checks() == Checks.of(RaceSettings())


@pytest.mark.parametrize(("after_ms", "counts"), [(-1, True), (599_999, True), (600_000, False)])
def test_a_daily_record_counts_until_the_grace_after_its_day(after_ms: int, counts: bool) -> None:
    end = day_start_ms(parse_day("2031-01-02")) + DAY_MS
    assert counts_for_day(record([0], daily="2031-01-02", finished_at=end + after_ms), CHECKS) is counts
    assert counts_for_day(record([0], finished_at=end + after_ms), CHECKS)  # not a daily: no deadline
