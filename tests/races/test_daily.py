"""The daily challenge: determinism, secrecy, winnability, first attempt, streaks, share text."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections.abc import Sequence
from datetime import date, timedelta

import pytest
import redis.asyncio as aioredis

from golfrace.engine import GameCode, Rules
from golfrace.races import daily
from golfrace.races.daily import DailyBook, Streak, candidate, choose_code, share_text
from golfrace.races.errors import RaceError

from .helpers import winning_line

DAY = date(2026, 11, 30)


def small_search(code: GameCode) -> bool | None:
    return winning_line(str(code), budget=5_000) is not None


def test_code_depends_on_date_and_secret_only() -> None:
    a = choose_code(DAY, b"secret", small_search, 64)
    assert a == choose_code(DAY, b"secret", small_search, 64)
    assert a.rules is Rules.EASY
    assert winning_line(str(a), 5_000) is not None
    assert a != choose_code(DAY + timedelta(days=1), b"secret", small_search, 64)
    assert candidate(DAY, b"secret", 0) != candidate(DAY, b"other", 0)


def test_the_daily_code_is_a_long_code_from_the_whole_hmac() -> None:
    """A 26-letter code (122-bit seed): the HMAC of the day, read whole, modulo 26**26 (docs/dealing.md)."""
    mac = hmac.new(b"secret", f"golfrace-daily:{DAY.isoformat()}:0".encode(), hashlib.sha256).digest()
    code = candidate(DAY, b"secret", 0)
    assert code.long and len(code.letters) == 26
    assert code.seed == int.from_bytes(mac, "big") % 26**26
    assert GameCode.parse(str(code)) == code


def test_unwinnable_candidates_are_skipped_and_the_budget_is_named() -> None:
    calls: list[GameCode] = []

    def third_only(code: GameCode) -> bool | None:
        calls.append(code)
        return True if len(calls) == 3 else None if len(calls) == 2 else False

    assert choose_code(DAY, b"s", third_only, 10) == candidate(DAY, b"s", 2)
    with pytest.raises(RaceError) as info:
        choose_code(DAY, b"s", lambda code: False, 5)
    assert info.value.code == "no_daily"


def test_clock_helpers() -> None:
    noon = daily.day_start_ms(DAY) + 12 * 3_600_000
    assert daily.day_of(noon) == DAY
    assert daily.next_day_ms(noon) - noon == 12 * 3_600_000
    assert daily.parse_day("2026-11-30") == DAY
    for bad in ("2026-13-01", "yesterday", "2026-11-30T00", "2026-W48-1", "20261130", "2026-11-3０"):
        with pytest.raises(RaceError):
            daily.parse_day(bad)
    with pytest.raises(RaceError):
        daily.parse_day("2026-12-01", now_ms=noon)


def test_streaks_across_days() -> None:
    s = Streak().advance(DAY)
    assert (s.count, s.best) == (1, 1)
    s = s.advance(DAY)  # a second game the same day changes nothing
    assert s.count == 1
    s = s.advance(DAY + timedelta(days=1)).advance(DAY + timedelta(days=2))
    assert (s.count, s.best) == (3, 3)
    assert s.current(DAY + timedelta(days=3)) == 3  # still alive until the day after is over
    assert s.current(DAY + timedelta(days=4)) == 0
    s = s.advance(DAY + timedelta(days=5))
    assert (s.count, s.best) == (1, 3)


def _runs(days: set[date]) -> tuple[int, int]:
    """The truth: the run ending at the latest day, and the longest run."""
    ordered = sorted(days)
    lengths = [1]
    for a, b in itertools.pairwise(ordered):
        lengths.append(lengths[-1] + 1 if b - a == timedelta(days=1) else 1)
    return lengths[-1], max(lengths)


def _advance_all(days: Sequence[date]) -> Streak:
    s = Streak()
    for day in days:
        s = s.advance(day)
    return s


def test_a_day_finished_late_still_counts() -> None:
    d = [DAY + timedelta(days=n) for n in range(6)]
    s = _advance_all([d[1], d[0]])  # day 0 started first, finished after day 1
    assert (s.last, s.count, s.best) == (d[1], 2, 2)
    s = _advance_all([d[0], d[2], d[1]])  # the late day fills the gap: one run of 3
    assert (s.last, s.count, s.best, s.prev_last) == (d[2], 3, 3, None)
    s = _advance_all([d[0], d[1], d[3], d[4], d[2]])
    assert (s.count, s.best) == (5, 5)
    s = _advance_all([d[0], d[3], d[1]])  # late, just after the previous run: it grows, the gap stays
    assert (s.last, s.count, s.best, s.prev_last, s.prev_count) == (d[3], 1, 2, d[1], 2)
    assert s.current(d[4]) == 1
    assert _advance_all([d[0], d[1], d[0], d[1]]).count == 2  # a day counts once


def test_streaks_never_overcount_and_are_exact_for_one_late_day() -> None:
    """Every order of every set of days in a week: never more than the truth; exact when the days come in
    order, or with one day finished after the next."""
    week = [DAY + timedelta(days=n) for n in range(7)]
    for size in range(1, 6):
        for chosen in itertools.combinations(week, size):
            truth = _runs(set(chosen))
            for order in itertools.permutations(chosen):
                s = _advance_all(order)
                assert s.count <= truth[0] and s.best <= truth[1], order
            for i in range(size):
                order = list(chosen)
                if i + 1 < size:
                    order[i], order[i + 1] = order[i + 1], order[i]
                s = _advance_all(order)
                assert (s.last, s.count, s.best) == (chosen[-1], *truth), order


def test_share_text_is_spoiler_free() -> None:
    text = share_text("2026-11-30", 350, 133_450, 61, [0, 0, 0, 0, 0, 0, 0])
    assert text.splitlines()[0] == "Golf Race daily 2026-11-30 · 350 · 2:13.4 · 61 moves"
    assert text.splitlines()[1] == "🟩" * 7
    assert share_text("2026-11-30", 120, 3_723_000, 9, [5, 1, 0, 2, 3, 4, 5]).splitlines() == [
        "Golf Race daily 2026-11-30 · 120 · 1:02:03.0 · 9 moves",
        "⑤①🟩②③④⑤",
    ]
    assert (
        share_text("2026-11-30", 0, 0, 1, [5] * 7).splitlines()[0]
        == "Golf Race daily 2026-11-30 · 0 · 0:00.0 · 1 move"
    )
    assert share_text("2026-11-30", 0, 0, 0, [5] * 7).splitlines()[0].endswith(" · 0 moves")


async def test_first_attempt_rule_and_stored_streaks(rds: aioredis.Redis) -> None:
    book = DailyBook(rds, b"secret", small_search, 64)
    code = await book.code(DAY)
    assert code == choose_code(DAY, b"secret", small_search, 64)
    assert await rds.get("daily:{2026-11-30}:code") == str(code).encode()
    assert await book.claim(DAY, "p1", "g1") is True
    assert await book.claim(DAY, "p1", "g2") is False  # later attempts are practice
    assert await book.claim(DAY, "p2", "g3") is True
    assert await book.first_game(DAY, "p1") == "g1"
    for offset in (0, 1, 2):
        await book.finish(DAY + timedelta(days=offset), "p1", {"score": 350})
    streak = await book.streak("p1")
    assert (streak.count, streak.best, streak.last) == (3, 3, DAY + timedelta(days=2))
    await book.finish(DAY + timedelta(days=4), "p1", {"score": 350})  # day 3 was left open
    streak = await book.streak("p1")
    assert (streak.count, streak.best, streak.prev_last, streak.prev_count) == (
        1,
        3,
        DAY + timedelta(days=2),
        3,
    )
    await book.finish(DAY + timedelta(days=3), "p1", {"score": 200})  # ... and finished after day 4
    streak = await book.streak("p1")
    assert (streak.count, streak.best, streak.last, streak.prev_last) == (5, 5, DAY + timedelta(days=4), None)
    assert await book.result(DAY, "p1") == {"score": 350}
    assert (await book.streak("p2")).count == 0
