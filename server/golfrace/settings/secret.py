"""How strong ``GOLFRACE_SECRET`` is: ``golfrace serve`` (and ``create_app``) refuse a weak one (fair play
19.7).

The secret signs player tokens (HMAC) and seeds the daily challenge's codes (``races/daily.py``): whoever
guesses it forges any guest's token and computes every future day's deal. A token is public, so a guess is
checked offline, as fast as the attacker's hardware allows; only a secret of about 256 random bits puts that
out of reach.

Nobody can measure how random a given string is; ``weakness`` refuses what clearly is not random enough:

- on the known-weak list (``WEAK``, the common passwords of ``accounts/common_passwords.txt``, and every
  secret our own docs or tests ever showed);
- fewer than ``MIN_BITS`` (256) bits by its alphabet: hexadecimal 4 bits a character (64 characters), base64
  or base64url 6 (43), letters and spaces alone 2 (words), anything else 6.5 (printable ASCII, about);
- a repeated block (``abcabc…``), or fewer than ``MIN_DISTINCT`` distinct characters (``aaaa…``).

Unset, the server makes a random 256-bit secret once and keeps it in Redis; ``make run`` keeps one in
``./var/secret``.
"""

from __future__ import annotations

import math
import string
from functools import cache
from pathlib import Path

MIN_BITS = 256
MIN_DISTINCT = 10
HOW = "make one with: python3 -c 'import secrets; print(secrets.token_hex(32))'"
"""The one line that says how to make a strong secret."""

HEX = frozenset(string.hexdigits)
BASE64 = frozenset(string.ascii_letters + string.digits + "+/=-_")
WORDS = frozenset(string.ascii_letters + " ")
WEAK = frozenset(
    {
        "changeme", "change-me", "change_me", "secret", "password", "golfrace", "golf", "test", "testing",
        "development", "dev", "default", "example", "letmein", "admin", "qwerty", "123456", "12345678",
        "test-secret-not-for-production", "not-a-secret", "supersecret", "mysecret", "s3cr3t",
    }
)  # fmt: skip


@cache
def _common() -> frozenset[str]:
    path = Path(__file__).parents[1] / "accounts" / "common_passwords.txt"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return frozenset()
    return frozenset(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))


def estimated_bits(secret: str) -> float:
    """The most randomness ``secret`` can hold by its alphabet (see the module)."""
    chars = set(secret)
    if chars <= HEX:
        per = 4.0
    elif chars <= WORDS:
        per = 2.0
    elif chars <= BASE64:
        per = 6.0
    else:
        per = math.log2(95)
    return per * len(secret)


def _repeats(secret: str) -> bool:
    """Whether ``secret`` is one shorter block written again and again."""
    return len(secret) > 1 and secret in (secret + secret)[1:-1]


def weakness(secret: str) -> str | None:
    """Why ``secret`` is too weak to sign tokens and seed the daily, or None when it may serve."""
    folded = secret.strip().lower()
    if folded in WEAK or folded in _common():
        return "it is on the list of known weak secrets"
    if len(set(secret)) < MIN_DISTINCT or _repeats(secret):
        return "it repeats itself"
    bits = estimated_bits(secret)
    if bits < MIN_BITS:
        return f"it holds at most {bits:.0f} random bits; {MIN_BITS} (32 random bytes) are needed"
    return None


def refusal(secret: str | None) -> str | None:
    """The one line ``golfrace serve`` prints for a weak ``GOLFRACE_SECRET`` (None: fine, or unset)."""
    if secret is None:
        return None
    why = weakness(secret)
    return None if why is None else f"golfrace: GOLFRACE_SECRET is too weak ({why}); {HOW}"
