"""Abuse limits: growing delays between failed sign-ins (per account name and per client network), a cap on
attempts in flight, and a quota of sign-ups per client network.

After ``free_attempts`` failures for a name (``ip_free_attempts`` for a network), each further failure makes
the next attempt wait ``delay_base_ms · 2^(k−1)`` (k = failures beyond the free ones), at most
``delay_max_ms``. An attempt during the wait is answered ``too_many_attempts`` with ``retry_ms`` and is not
checked at all. A name is throttled whether or not an account has it, so the answers never tell whether a
username exists. A successful sign-in clears the name's count and gives the network its failure back.

Everything is counted **when a request arrives**, by one Lua script per key (``ARRIVE``): the attempt is
charged as a failure at once, so 100 guesses sent together are held to what a sequence gets (the free ones
and the one that starts the first delay), and refunded when it succeeds (``FINISH``). At most
``attempts_in_flight`` attempts per name and ``ip_attempts_in_flight`` per network are being checked at once
(the others: ``too_many_attempts``). Sign-ups take their quota the same way (``TAKE``), and give it back when
no account was made. A sign-up's username check (``username_taken`` tells that a name exists) counts like a
failed sign-in for the network.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from golfrace.settings.accounts import AccountSettings
from golfrace.store import account_keys as keys

from .errors import AccountError
from .store import now_ms

ARRIVE = """
local now = tonumber(ARGV[1])
local was = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if was > now then return {1, was - now, 0} end
local flying = tonumber(redis.call('GET', KEYS[2]) or '0')
if flying >= tonumber(ARGV[6]) then return {2, 1000, 0} end
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[7]))
local fails = redis.call('HINCRBY', KEYS[1], 'fails', 1)
local free = tonumber(ARGV[2])
local delay = 0
if fails > free then
  delay = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (fails - free - 1))
  redis.call('HSET', KEYS[1], 'until', now + delay)
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
return {0, delay, was}
"""
"""KEYS: the subject's hash (``fails``, ``until``) and its in-flight counter; ARGV: now (ms), free attempts,
base and longest delay (ms), the hash's TTL (s), the in-flight cap and the counter's TTL (s). Returns
{0, the delay this attempt starts if it fails, the previous ``until``}, or {1, ms to wait} while a delay runs,
or {2, 1000} with too many in flight (retry in a second); only {0…} counts anything."""
FINISH = """
local flying = tonumber(redis.call('GET', KEYS[2]) or '0')
if flying > 1 then redis.call('DECR', KEYS[2]) else redis.call('DEL', KEYS[2]) end
if ARGV[1] == 'keep' then
  -- the delay this failure started runs from its answer, however long the check took
  local delay = tonumber(ARGV[4])
  if delay > 0 then
    local later = tonumber(ARGV[5]) + delay
    if later > tonumber(redis.call('HGET', KEYS[1], 'until') or '0') then
      redis.call('HSET', KEYS[1], 'until', later)
    end
  end
elseif ARGV[1] == 'clear' then
  redis.call('DEL', KEYS[1])
elseif ARGV[1] == 'refund' then
  if tonumber(redis.call('HGET', KEYS[1], 'fails') or '0') > 0 then
    redis.call('HINCRBY', KEYS[1], 'fails', -1)
  end
  if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'until') == ARGV[2] then
    if tonumber(ARGV[3]) > 0 then redis.call('HSET', KEYS[1], 'until', ARGV[3])
    else redis.call('HDEL', KEYS[1], 'until') end
  end
end
return 0
"""
"""KEYS as ``ARRIVE``; ARGV: ``keep`` (a failure: stays counted, and the delay it started runs from now),
``clear`` (the name's count goes) or ``refund`` (one failure given back and the delay it started undone,
unless a later one replaced it); the ``until`` this attempt set ('' if none) and the one before it; the
delay it started (ms) and now (ms)."""
TAKE = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1])) end
if n > tonumber(ARGV[2]) then redis.call('DECR', KEYS[1]) return 0 end
return n
"""
"""KEYS[1] a counter of a window; ARGV the window (s) and the quota. Takes one (its number) or, over the
quota, nothing (0)."""
GIVE_BACK = """
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0
"""


@dataclass(slots=True)
class _Charge:
    key: str
    set_until: str
    was: int
    delay: int


@dataclass(slots=True)
class Attempt:
    """An attempt counted on arrival; ``delay`` is what it starts if it fails (ms, 0: none)."""

    delay: int = 0
    ok: bool = False
    charges: list[_Charge] = field(default_factory=list)

    def succeeded(self) -> None:
        self.ok = True


def _flying(key: str) -> str:
    return key + ":fly"


class Throttle:
    def __init__(self, redis: Any, settings: AccountSettings) -> None:
        self.redis = redis
        self.settings = settings
        self._arrive = redis.register_script(ARRIVE)
        self._finish = redis.register_script(FINISH)
        self._take = redis.register_script(TAKE)
        self._give_back = redis.register_script(GIVE_BACK)

    def _subjects(self, subject: str | None, net: str) -> list[tuple[str, int, int]]:
        s = self.settings
        out = [(keys.throttle("ip", net), s.ip_free_attempts, s.ip_attempts_in_flight)]
        if subject is not None:
            out.insert(0, (keys.throttle(*subject.split(":", 1)), s.free_attempts, s.attempts_in_flight))
        return out

    @contextlib.asynccontextmanager
    async def attempt(self, subject: str | None, net: str) -> AsyncIterator[Attempt]:
        """Count an attempt for ``subject`` (``user:<folded name>``, ``pk:<player id>``; None: the network
        only) from ``net`` as a failure now, or raise ``too_many_attempts`` (counting nothing). The caller
        marks success with ``Attempt.succeeded()``: the name's count is cleared, the network's failure given
        back. Whatever ends the block otherwise (a refusal, an error) stays counted."""
        s, now = self.settings, now_ms()
        attempt = Attempt()
        try:
            for key, free, cap in self._subjects(subject, net):
                args = [now, free, s.delay_base_ms, s.delay_max_ms, s.attempts_ttl_s, cap, s.in_flight_ttl_s]
                status, ms, was = (int(x) for x in await self._arrive(keys=[key, _flying(key)], args=args))
                if status:
                    raise AccountError(
                        "too_many_attempts", "too many sign-in attempts; wait and retry", retry_ms=max(1, ms)
                    )
                attempt.delay = max(attempt.delay, ms)
                attempt.charges.append(_Charge(key, str(now + ms) if ms else "", was, ms))
        except BaseException:
            await self._settle(attempt, refund_all=True)
            raise
        try:
            yield attempt
        finally:
            await self._settle(attempt)

    async def _settle(self, attempt: Attempt, refund_all: bool = False) -> None:
        for n, charge in enumerate(attempt.charges):
            if refund_all:
                how = "refund"
            elif not attempt.ok:
                how = "keep"
            else:
                how = "clear" if n == 0 and len(attempt.charges) > 1 else "refund"
            args = [how, charge.set_until, charge.was, charge.delay, now_ms()]
            await self._finish(keys=[charge.key, _flying(charge.key)], args=args)

    @contextlib.asynccontextmanager
    async def signup(self, net: str) -> AsyncIterator[None]:
        """Take one of the network's sign-ups for the block, or raise ``too_many_signups``; given back unless
        the block ends normally (an account was made)."""
        s = self.settings
        key = keys.signups(net)
        if not int(await self._take(keys=[key], args=[s.signup_window_s, s.signups_per_ip])):
            raise quota_error(s)
        try:
            yield
        except BaseException:
            with contextlib.suppress(Exception):
                await self._give_back(keys=[key], args=[])
            raise

    async def signups_left(self, net: str) -> bool:
        used = await self.redis.get(keys.signups(net))
        return int(used or 0) < self.settings.signups_per_ip

    async def challenge_allowed(self, net: str) -> bool:
        """Count a passkey ceremony started from ``net``; False once over ``challenges_per_minute``."""
        n = int(await self._take(keys=[keys.challenges(net)], args=[60, self.settings.challenges_per_minute]))
        return n > 0


def quota_error(settings: AccountSettings) -> AccountError:
    return AccountError(
        "too_many_signups",
        f"at most {settings.signups_per_ip} new accounts per address a day",
        retry_ms=settings.signup_window_s * 1000,
    )
