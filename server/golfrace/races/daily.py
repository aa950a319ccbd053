"""The daily challenge: one easy code per UTC day, the same for everyone.

The code is the long code (26 letters, a 122-bit seed; docs/dealing.md) of
``HMAC-SHA256(secret, "golfrace-daily:<yyyy-mm-dd>:<n>")``, read as a number modulo 26**26, for the smallest
``n`` (0, 1, 2, …) whose deal the solver proves winnable — so nobody without the server secret can compute
tomorrow's, and every day is winnable. Only a player's first attempt of a day counts; later ones are practice.
A streak counts consecutive UTC days with a finished first attempt.

Fair play: the first attempt is claimed by one Lua script (``CLAIM``), so tabs asking at once all get the
same attempt, and none a practice one before it ends; an attempt counts for its day only if it ends before the
day's end plus ``daily_grace_s`` (a later end is kept, marked ``late``, with no streak and no board).

Fair play (19.1): before a day's code is public, its deal is dealt only to an account's ranked attempt. A
guest's attempt deals the day's **guest deal** instead (``guest_code``: the same way, from another HMAC label,
so it tells nothing about the day's deal), unranked, on no board and no streak.

Keys: ``daily:{<date>}:code`` (the chosen code, cached), ``daily:{<date>}:guest`` (the guest deal, cached),
``daily:{<date>}:first`` (player → game id of the first attempt), ``daily:{<date>}:done`` (player → result
JSON), ``streak:{<player>}`` (hash: the current run's last day and count, the best run, the previous run's
last day and count).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from redis.exceptions import WatchError
from redis.typing import EncodableT

from golfrace.settings.races import DAY_MS, DEFAULT_SETTINGS
from golfrace.store import race_keys
from golfrace.store.games import RedisClient

from ..engine import GameCode, Rules
from ..engine.codes import long_code_from_entropy
from .errors import RaceError

CLAIM = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  held = ARGV[2]
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return held
"""
"""KEYS[1] the day's first-attempt hash; ARGV player, game id, TTL. Returns the game id holding the claim."""

KEY_TTL_S = 3 * 86_400  # per-day keys outlive their day (late finishes, the share text)
STREAK_TTL_S = 400 * 86_400
COLUMN_SYMBOLS = ("🟩", "①", "②", "③", "④", "⑤")

Winnable = Callable[[GameCode], bool | None]


def day_of(now_ms: int) -> date:
    return datetime.fromtimestamp(now_ms / 1000, tz=UTC).date()


def day_start_ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def next_day_ms(now_ms: int) -> int:
    """The start of the next UTC day (when the next challenge opens)."""
    return day_start_ms(day_of(now_ms)) + DAY_MS


def code_public_at(day: str | date, grace_s: int) -> int:
    """When ``day``'s code may be shown (ms), in any of its attempts: once none can count any more, at the
    day's end plus the grace (fair play 11.2, 11.5)."""
    start = day_start_ms(date.fromisoformat(day) if isinstance(day, str) else day)
    return start + DAY_MS + grace_s * 1000


def secret_days(now_ms: int, grace_s: int) -> list[date]:
    """The days whose code may not be shown at ``now_ms``: today's, and yesterday's within its grace."""
    today = day_of(now_ms)
    yesterday = today - timedelta(days=1)
    return [today, yesterday] if now_ms < code_public_at(yesterday, grace_s) else [today]


DAY_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_day(text: str, now_ms: int | None = None) -> date:
    try:
        if not isinstance(text, str) or not DAY_TEXT.fullmatch(text):  # not ISO week dates, nor other forms
            raise ValueError(text)
        day = date.fromisoformat(text)
    except (TypeError, ValueError):
        raise RaceError("bad_date", f"a date reads yyyy-mm-dd, got {str(text)[:12]!r}") from None
    if len(text) != 10 or (now_ms is not None and day > day_of(now_ms)):
        raise RaceError("bad_date", f"no daily challenge for {text} yet")
    return day


DAY_LABEL = "golfrace-daily"
GUEST_LABEL = "golfrace-daily-guest"
"""The HMAC labels of the day's deal and of its guest deal: two independent deals of one day."""


def candidate(day: date, secret: bytes, n: int, label: str = DAY_LABEL) -> GameCode:
    mac = hmac.new(secret, f"{label}:{day.isoformat()}:{n}".encode(), hashlib.sha256).digest()
    return long_code_from_entropy(mac, Rules.EASY)


def choose_code(
    day: date, secret: bytes, winnable: Winnable, max_tries: int, label: str = DAY_LABEL
) -> GameCode:
    """The first candidate the solver proves winnable (an unknown verdict counts as not winnable)."""
    for n in range(max_tries):
        code = candidate(day, secret, n, label)
        if winnable(code) is True:
            return code
    raise RaceError("no_daily", f"no winnable code among {max_tries} candidates for {day}")


@dataclass(frozen=True, slots=True)
class Streak:
    """The run of consecutive finished days ending at ``last`` (``count`` days), the best run ever, and the
    run before the current one (``prev_last``, ``prev_count``). A first attempt may be finished days after it
    was started, after later days' attempts: such a day still counts, and it joins the two runs when it
    fills the gap between them."""

    last: date | None = None
    count: int = 0
    best: int = 0
    prev_last: date | None = None
    prev_count: int = 0

    @property
    def first(self) -> date | None:
        return None if self.last is None else self.last - timedelta(days=self.count - 1)

    def advance(self, day: date) -> Streak:
        """After a finished first attempt of ``day``: a day already counted changes nothing."""
        if self.last is None or self.first is None:
            return Streak(day, 1, max(self.best, 1))
        one = timedelta(days=1)
        if day > self.last + one:  # a gap: this run becomes the previous one
            return Streak(day, 1, self.best, self.last, self.count)
        if day == self.last + one:
            return self._with(Streak(day, self.count + 1, self.best, self.prev_last, self.prev_count))
        if day >= self.first:
            return self
        if day == self.first - one:  # late, just before the run: the run grows back, maybe onto the previous
            joined = self.prev_last is not None and self.prev_last == day - one
            count = self.count + 1 + (self.prev_count if joined else 0)
            prev = (None, 0) if joined else (self.prev_last, self.prev_count)
            return self._with(Streak(self.last, count, self.best, *prev))
        if self.prev_last is not None and day == self.prev_last + one:  # late, just after the previous run
            return self._with(Streak(self.last, self.count, self.best, day, self.prev_count + 1))
        return self  # older than the runs kept, or already in the previous one

    def _with(self, streak: Streak) -> Streak:
        best = max(streak.best, streak.count, streak.prev_count)
        return Streak(streak.last, streak.count, best, streak.prev_last, streak.prev_count)

    def current(self, today: date) -> int:
        """The streak still alive today (played today or yesterday), else 0."""
        if self.last is None or today - self.last > timedelta(days=1):
            return 0
        return self.count


def clock(ms: int) -> str:
    """m:ss.t (h:mm:ss.t past an hour), with tenths as the web client's result dialog shows it."""
    seconds = ms // 1000
    tenths = ms % 1000 // 100
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{tenths}"
    return f"{seconds // 60}:{seconds % 60:02d}.{tenths}"


def share_text(day: str, score: int, elapsed_ms: int, moves: int, left_per_column: list[int]) -> str:
    """Spoiler-free: the numbers and one symbol per column for the cards it kept, no card, no code."""
    symbols = "".join(COLUMN_SYMBOLS[min(n, len(COLUMN_SYMBOLS) - 1)] for n in left_per_column)
    noun = "move" if moves == 1 else "moves"
    return f"Golf Race daily {day} · {score} · {clock(elapsed_ms)} · {moves} {noun}\n{symbols}"


class DailyBook:
    """The daily challenge's Redis side: the chosen code, first attempts, results and streaks."""

    def __init__(
        self,
        redis: RedisClient,
        secret: bytes,
        winnable: Winnable,
        max_tries: int,
        grace_s: int = DEFAULT_SETTINGS.daily_grace_s,
    ) -> None:
        self.redis = redis
        self.secret = secret
        self.winnable = winnable
        self.max_tries = max_tries
        self.grace_ms = grace_s * 1000
        self._claim = redis.register_script(CLAIM)

    def counts(self, day: date, ended_at: int) -> bool:
        """Whether an attempt of ``day`` ending at ``ended_at`` (ms) counts: before its end plus the grace."""
        return ended_at < day_start_ms(day) + DAY_MS + self.grace_ms

    async def code(self, day: date) -> GameCode:
        """The day's deal: dealt to accounts' attempts only while the day is on (fair play 19.1)."""
        return await self._chosen(day, "code", DAY_LABEL)

    async def guest_code(self, day: date) -> GameCode:
        """The day's guest deal: what a guest's attempt deals instead of the day's (fair play 19.1)."""
        return await self._chosen(day, "guest", GUEST_LABEL)

    async def _chosen(self, day: date, part: str, label: str) -> GameCode:
        key = race_keys.daily(day.isoformat(), part)
        cached = await self.redis.get(key)
        if cached is not None:
            return GameCode.parse(_text(cached))
        args = (day, self.secret, self.winnable, self.max_tries, label)
        code = await asyncio.to_thread(choose_code, *args)
        await self.redis.set(key, str(code), nx=True, ex=KEY_TTL_S)
        return GameCode.parse(_text(await self.redis.get(key)))

    async def claim_first(self, day: date, player: str, game_id: str) -> str:
        """Claim ``day``'s ranked attempt for ``game_id`` in one script: returns ``game_id`` if this call got
        it, else the game id of the attempt that already holds it."""
        key = race_keys.daily(day.isoformat(), "first")
        return _text(await self._claim(keys=[key], args=[player, game_id, KEY_TTL_S]))

    async def claim(self, day: date, player: str, game_id: str) -> bool:
        """Record an attempt; True only for the player's first attempt of ``day`` (the one that counts)."""
        return await self.claim_first(day, player, game_id) == game_id

    async def release(self, day: date, player: str, game_id: str) -> None:
        """Undo a ``claim`` whose race could not be stored (so the day's ranked attempt is not lost)."""
        key = race_keys.daily(day.isoformat(), "first")
        current = await self.redis.hget(key, player)
        if current is not None and _text(current) == game_id:
            await self.redis.hdel(key, player)

    async def first_game(self, day: date, player: str) -> str | None:
        raw = await self.redis.hget(race_keys.daily(day.isoformat(), "first"), player)
        return None if raw is None else _text(raw)

    async def finish(
        self, day: date, player: str, result: dict[str, Any], ended_at: int | None = None
    ) -> Streak:
        """The first attempt ended (at ``ended_at`` ms, if known): keep its result and extend the player's
        streak. One that ended too late for its day (``counts``) is kept with ``late: true`` and extends
        nothing; one marked for review (``result["review"]``) extends nothing either."""
        key = race_keys.daily(day.isoformat(), "done")
        late = ended_at is not None and not self.counts(day, ended_at)
        await self.redis.hsetnx(key, player, json.dumps({**result, "late": True} if late else result))
        await self.redis.expire(key, KEY_TTL_S)
        if late or result.get("review"):  # pending: extended by ``settle_review`` once cleared
            return await self.streak(player)
        return await self.finish_streak(day, player)

    async def settle_review(self, day: date, player: str, game_id: str, review: str | None) -> None:
        """The knowledge review of ``player``'s ranked attempt ``game_id`` ended: its result's ``review``
        becomes ``review`` (None: cleared), and a cleared attempt that came in time extends the streak, once
        (only the write that ends ``pending`` does)."""
        key = race_keys.daily(day.isoformat(), "done")
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    raw = await pipe.hget(key, player)
                    if raw is None:
                        return
                    result = json.loads(raw)
                    if result.get("game") != game_id or result.get("review") != "pending":
                        return
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(key, player, json.dumps({**result, "review": review}))
                    await pipe.execute()
                    break
                except WatchError:
                    continue
        if review is None and not result.get("late"):
            await self.finish_streak(day, player)

    async def finish_streak(self, day: date, player: str) -> Streak:
        skey = race_keys.streak(player)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(skey)
                    streak = _streak(await pipe.hgetall(skey)).advance(day)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(skey, mapping=_streak_fields(streak))
                    pipe.expire(skey, STREAK_TTL_S)
                    await pipe.execute()
                    return streak
                except WatchError:
                    continue

    async def result(self, day: date, player: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(race_keys.daily(day.isoformat(), "done"), player)
        return None if raw is None else dict(json.loads(raw))

    async def streak(self, player: str) -> Streak:
        return _streak(await self.redis.hgetall(race_keys.streak(player)))


def _text(value: bytes | str | None) -> str:
    if value is None:
        raise RaceError("no_daily", "the daily code vanished from storage")
    return value.decode() if isinstance(value, bytes) else value


def _streak(raw: Any) -> Streak:
    data = {_text(k): _text(v) for k, v in dict(raw).items()}
    if not data.get("last"):
        return Streak()
    prev_last = date.fromisoformat(data["prev_last"]) if data.get("prev_last") else None
    return Streak(
        date.fromisoformat(data["last"]),
        int(data["count"]),
        int(data["best"]),
        prev_last,
        int(data.get("prev_count") or 0),
    )


def _streak_fields(streak: Streak) -> dict[EncodableT, EncodableT]:
    return {
        "last": streak.last.isoformat() if streak.last else "",
        "count": streak.count,
        "best": streak.best,
        "prev_last": streak.prev_last.isoformat() if streak.prev_last else "",
        "prev_count": streak.prev_count,
    }
