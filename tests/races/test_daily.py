"""The daily challenge: determinism, secrecy, winnability, first attempt, streaks, share text."""

from __future__ import annotations

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


def test_share_text_is_spoiler_free() -> None:
    text = share_text("2026-11-30", 350, 133_000, 61, [0, 0, 0, 0, 0, 0, 0])
    assert text.splitlines()[0] == "Golf Race daily 2026-11-30 · 350 · 2:13 · 61 moves"
    assert text.splitlines()[1] == "🟩" * 7
    assert share_text("2026-11-30", 120, 3_723_000, 9, [5, 1, 0, 2, 3, 4, 5]).splitlines() == [
        "Golf Race daily 2026-11-30 · 120 · 1:02:03 · 9 moves",
        "⑤①🟩②③④⑤",
    ]
    assert (
        share_text("2026-11-30", 0, 0, 1, [5] * 7).splitlines()[0]
        == "Golf Race daily 2026-11-30 · 0 · 0:00 · 1 move"
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
    assert await book.result(DAY, "p1") == {"score": 350}
    assert (await book.streak("p2")).count == 0
