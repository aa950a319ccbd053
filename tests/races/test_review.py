"""The fair-play checks of a result, pure (replay.py): the human floors of a game's timing (the median gap,
the first move, the whole game, bursts) and the daily grace."""

from __future__ import annotations

import pytest

from golfrace.races.daily import day_start_ms, parse_day
from golfrace.races.replay import (
    TOO_FAST,
    Checks,
    GameRecord,
    counts_for_day,
    median_gap_ms,
    review_reason,
    timing_faults,
)
from golfrace.settings.races import DAY_MS, RaceSettings

CHECKS = Checks(
    median_gap_ms=120, min_moves=5, daily_grace_ms=600_000, first_move_ms=0, mean_gap_ms=0, fast_share=1.0
)
"""The median floor alone."""
FLOORS = Checks(
    median_gap_ms=120, min_moves=5, first_move_ms=300, mean_gap_ms=180, fast_gap_ms=90, fast_share=0.3
)


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
    settings = RaceSettings(
        review_median_gap_ms=90,
        review_min_moves=7,
        daily_grace_s=30,
        review_first_move_ms=1,
        review_mean_gap_ms=2,
        review_fast_gap_ms=3,
        review_fast_share=0.5,
    )
    assert Checks.of(settings) == Checks(90, 7, 30_000, 1, 2, 3, 0.5)
    assert Checks() == Checks.of(RaceSettings())


@pytest.mark.parametrize(("after_ms", "counts"), [(-1, True), (599_999, True), (600_000, False)])
def test_a_daily_record_counts_until_the_grace_after_its_day(after_ms: int, counts: bool) -> None:
    end = day_start_ms(parse_day("2031-01-02")) + DAY_MS
    assert counts_for_day(record([0], daily="2031-01-02", finished_at=end + after_ms), CHECKS) is counts
    assert counts_for_day(record([0], finished_at=end + after_ms), CHECKS)  # not a daily: no deadline


def steady(first: int, gaps: list[int]) -> list[int]:
    times = [first]
    for g in gaps:
        times.append(times[-1] + g)
    return times


@pytest.mark.parametrize(
    ("times", "faults"),
    [
        (steady(900, [700] * 44), []),  # a human pace
        (steady(900, [125] * 44), ["mean"]),  # the guest scout's 5.7 s win: every gap passes the median
        (steady(900, [122, 0] * 21 + [122, 122]), ["mean", "bursts"]),  # the 3.1 s win: alternating gaps
        (steady(200, [700] * 44), ["first_move"]),  # the board was not even looked at
        (steady(900, [700, 700, 700, 40] * 11), []),  # a quick tap every fourth move: a person's runs
        (steady(900, [700, 40] * 22), ["bursts"]),  # half of the moves instant: no hand does that
        (steady(900, [60] * 44), ["median", "mean", "bursts"]),
        (steady(0, [100] * 3), []),  # too short to judge
    ],
)
def test_a_game_is_judged_by_its_whole_timing(times: list[int], faults: list[str]) -> None:
    assert timing_faults(record(times), FLOORS) == faults
    assert review_reason(record(times), FLOORS) == (TOO_FAST if faults else None)
