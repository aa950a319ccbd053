"""Abuse limits: growing delays between failed sign-ins (per account name and per client network) and a
quota of sign-ups per client network.

After ``free_attempts`` failures for a name (``ip_free_attempts`` for a network), each further failure makes
the next attempt wait ``delay_base_ms · 2^(k−1)`` (k = failures beyond the free ones), at most
``delay_max_ms``. An attempt during the wait is answered ``too_many_attempts`` with ``retry_ms`` and is not
checked at all. A name is throttled whether or not an account has it, so the answers never tell whether a
username exists. A successful sign-in clears the name's count (not the network's, which only expires).
"""

from __future__ import annotations

from typing import Any

from . import keys
from .settings import AccountSettings
from .store import now_ms

FAIL = """
local fails = redis.call('HINCRBY', KEYS[1], 'fails', 1)
local free = tonumber(ARGV[2])
local delay = 0
if fails > free then
  delay = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (fails - free - 1))
  redis.call('HSET', KEYS[1], 'until', tonumber(ARGV[1]) + delay)
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
return delay
"""
SIGNUP = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1])) end
return n
"""


class Throttle:
    def __init__(self, redis: Any, settings: AccountSettings) -> None:
        self.redis = redis
        self.settings = settings
        self._fail = redis.register_script(FAIL)
        self._signup = redis.register_script(SIGNUP)

    def _subjects(self, subject: str, net: str) -> list[tuple[str, int]]:
        s = self.settings
        return [
            (keys.throttle(*subject.split(":", 1)), s.free_attempts),
            (keys.throttle("ip", net), s.ip_free_attempts),
        ]

    async def wait_ms(self, subject: str, net: str) -> int:
        """How long the next attempt for ``subject`` (``user:<folded name>`` or ``pk:<player id>``) from
        ``net`` must wait (0: now)."""
        now = now_ms()
        longest = 0
        for key, _free in self._subjects(subject, net):
            until = await self.redis.hget(key, "until")
            if until is not None:
                longest = max(longest, int(until) - now)
        return max(0, longest)

    async def failed(self, subject: str, net: str) -> int:
        """Count a failure; returns the wait it imposes on the next attempt (ms)."""
        s, now, longest = self.settings, now_ms(), 0
        for key, free in self._subjects(subject, net):
            args = [now, free, s.delay_base_ms, s.delay_max_ms, s.attempts_ttl_s]
            longest = max(longest, int(await self._fail(keys=[key], args=args)))
        return longest

    async def succeeded(self, subject: str) -> None:
        await self.redis.delete(keys.throttle(*subject.split(":", 1)))

    async def signups_left(self, net: str) -> bool:
        used = await self.redis.get(keys.signups(net))
        return int(used or 0) < self.settings.signups_per_ip

    async def signed_up(self, net: str) -> None:
        await self._signup(keys=[keys.signups(net)], args=[self.settings.signup_window_s])

    async def challenge_allowed(self, net: str) -> bool:
        """Count a passkey ceremony started from ``net``; False once over ``challenges_per_minute``."""
        n = int(await self._signup(keys=[keys.challenges(net)], args=[60]))
        return n <= self.settings.challenges_per_minute
