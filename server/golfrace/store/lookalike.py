"""Names that would pass for others (fair play 19.6): usernames, display names and race names are compared by
the way they look, without regard to case, after Unicode's confusable folding.

``keys(name)`` are the forms two names share when one could pass for the other. The folding reads Unicode's
confusables (TR39's ``confusables.txt``) through the maintained ``confusable-homoglyphs`` package: every
character and the characters it can be confused with make one class (closed transitively), each class
spelled by one of its members (an ASCII lowercase letter where it has one, else a digit, else its lowest
code point); a multi-character ASCII look-alike (``rn`` for ``m``) is replaced by its class first. Then
NFKC, and only letters and digits are kept (``Deleted-Player`` is ``Deleted player``). Case and confusables
do not commute (capital ``I`` looks like ``l``, and its lower case ``i`` does not), so a name has two keys:
folded after lower-casing, and lower-cased after folding; two names collide when a key is shared.

- ``reserved(name)``: a display or race name that reads as a role (admin, moderator…) or the product's name
  in any of the four languages (``RESERVED_WORDS``: ``pentadbir``, ``מנהל``…), "Deleted player" in any of
  them, or a seat's "Player 3".
- Another account's username: ``ulook:{<key>}`` → the player holding it (every key of every username,
  claimed at sign-up and rename with ``SET NX``, released at deletion). ``owner(redis, name)``: whose
  username the name passes for.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

from confusable_homoglyphs import confusables

from golfrace.engine.i18n import LOCALES, catalog
from golfrace.store import keys as keys_

MARKS = str.maketrans("", "", "\u200e\u200f")
"""The direction marks the package's data puts around right-to-left characters."""

RESERVED_WORDS: dict[str, tuple[str, ...]] = {
    "en": (
        "admin", "administrator", "moderator", "mod", "staff", "support", "official", "system", "server",
        "golfrace", "golf race", "golf-race", "team golf race", "golf race team", "root", "owner",
    ),
    "ro": (
        "administrator", "administratorul", "moderator", "moderatorul", "personal", "echipa", "echipă",
        "echipa golf race", "suport", "asistență", "oficial", "sistem", "sistemul", "proprietar",
        "cursa de golf",
    ),
    "ms": (
        "pentadbir", "pentadbir sistem", "moderator", "kakitangan", "sokongan", "rasmi", "sistem", "pelayan",
        "pasukan", "pasukan golf race", "pemilik", "lumba golf",
    ),
    "he": (
        "מנהל", "מנהלת", "מנהל מערכת", "מנהל המערכת", "אדמין", "מודרטור", "מודרטורית", "מנחה", "צוות",
        "תמיכה", "רשמי", "מערכת", "בעלים", "גולף רייס", "גולףרייס", "מרוץ גולף", "צוות גולף רייס",
    ),
}  # fmt: skip
"""Display and race names that read as a role or as the product, in each language of the catalogs (the
product's own name, ``ui.app_title``, and "Deleted player", ``account.deleted_player``, come from them);
every one is compared through the same folding as usernames."""
RESERVED_STARTS: dict[str, tuple[str, ...]] = {
    "en": ("admin", "moderator", "golfrace"),
    "ro": ("admin", "moderator", "golfrace"),
    "ms": ("pentadbir", "moderator", "golfrace"),
    "he": ("מנהל", "אדמין", "מודרטור", "גולףרייס"),
}
"""A display name beginning with one of these (folded) reads as that role: "Moderator Bob", "מנהל הקבוצה"."""


def _rank(member: str) -> tuple[int, int, str]:
    if len(member) == 1 and member.isascii() and member.islower():
        return (0, 0, member)
    if len(member) == 1 and member.isascii() and member.isalnum():
        return (1, 0, member)
    return (2 if len(member) == 1 else 3, len(member), member)


@cache
def _table() -> tuple[dict[str, str], list[tuple[str, str]]]:
    """(character → its class's spelling, [(ASCII sequence, spelling)] longest first)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for char, homoglyphs in confusables.confusables_data.items():
        a = char.translate(MARKS)
        for h in homoglyphs:
            b = str(h["c"]).translate(MARKS)
            if a and b:
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[ra] = rb
    classes: dict[str, list[str]] = {}
    for member in list(parent):
        classes.setdefault(find(member), []).append(member)
    chars: dict[str, str] = {}
    sequences: list[tuple[str, str]] = []
    for members in classes.values():
        best = min(members, key=_rank)
        if len(best) != 1:
            continue
        for m in members:
            if len(m) == 1:
                chars[m] = best
            elif m.isascii() and m.isalnum() and best.isascii():  # rn → m, never ay → ꜽ
                sequences.append((m, best))
    sequences.sort(key=lambda s: -len(s[0]))
    return chars, sequences


def _fold(text: str) -> str:
    chars, sequences = _table()
    for seq, best in sequences:
        if seq in text:
            text = text.replace(seq, best)
    return "".join(chars.get(c, c) for c in text)


def _alnum(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c)[0] in "LN")


def keys(name: str) -> frozenset[str]:
    """The forms under which ``name`` collides with a name it could pass for (see the module)."""
    text = unicodedata.normalize("NFKC", name)
    first = _alnum(_fold(_fold(text.casefold()).casefold()))
    second = _alnum(_fold(_fold(text).casefold()))
    return frozenset(k for k in (first, second) if k)


@cache
def _reserved() -> tuple[frozenset[str], tuple[str, ...], tuple[re.Pattern[str], ...]]:
    words: set[str] = set()
    starts: set[str] = set()
    seats = []
    for locale in LOCALES:
        texts = catalog(locale)
        words.update(RESERVED_WORDS[locale])
        starts.update(RESERVED_STARTS[locale])
        words.add(texts["ui"]["app_title"])
        words.add(texts["account"]["deleted_player"])
        words.add(texts["ui"]["player"])
        for key in keys(texts["ui"]["player_n"].replace("{n}", "")):
            seats.append(re.compile(re.escape(key) + r"[0-9]*"))
    whole = frozenset(k for w in words for k in keys(w))
    return whole, tuple(sorted(k for w in starts for k in keys(w))), tuple(seats)


def reserved(name: str) -> bool:
    """Whether ``name`` reads as a role, the product, a deleted player or a seat's "Player N"."""
    whole, starts, seats = _reserved()
    for key in keys(name):
        if key in whole or key.startswith(starts) or any(p.fullmatch(key) for p in seats):
            return True
    return False


key_name = keys_.lookalike


async def owner(redis: Any, name: str) -> str | None:
    """The player whose username ``name`` passes for (any shared key), or None."""
    for key in sorted(keys(name)):
        raw = await redis.get(key_name(key))
        if raw is not None:
            return raw.decode() if isinstance(raw, bytes) else str(raw)
    return None


async def claim(redis: Any, username: str, player: str) -> bool:
    """Claim every key of ``username`` for ``player`` (``SET NX`` each: one Cluster slot a key); False, with
    nothing kept, when another player holds one."""
    got: list[str] = []
    for key in sorted(keys(username)):
        name = key_name(key)
        if await redis.set(name, player, nx=True):
            got.append(name)
            continue
        held = await redis.get(name)
        if held is not None and (held.decode() if isinstance(held, bytes) else str(held)) == player:
            continue
        for taken in got:
            await release_key(redis, taken, player)
        return False
    return True


RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


async def release_key(redis: Any, name: str, player: str) -> None:
    await redis.eval(RELEASE, 1, name, player)


async def release(redis: Any, username: str, player: str) -> None:
    """Give up the keys of ``username`` that ``player`` holds."""
    for key in keys(username):
        await release_key(redis, key_name(key), player)
