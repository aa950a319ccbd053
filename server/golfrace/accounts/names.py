"""Usernames and display names.

A username is 3 to 20 characters: ASCII letters, digits, ``_`` and ``-``, beginning with a letter. It is
unique without regard to case (``Ana`` and ``ana`` are one name; the account keeps the spelling it chose) and
not one of ``RESERVED`` (nor begins with one of ``RESERVED_PREFIXES``), nor a look-alike of one
(``lookalike.reserved``); nor a look-alike of another account's username (``paypaI`` of ``paypal``: the
service claims ``lookalike`` keys). A display name is free text: spaces collapsed, at most
``AccountSettings.display_max`` characters, no control characters, and nothing that passes for a role, the
product, a deleted player or a seat (``lookalike.reserved``, reason ``reserved``) or for another account's
username (checked by the service, reason ``taken``); empty means the username.
"""

from __future__ import annotations

import unicodedata

from golfrace.store import lookalike
from golfrace.wire.ids import USERNAME, USERNAME_MAX, USERNAME_MIN

from .errors import AccountError

RESERVED = frozenset(
    {
        "admin", "administrator", "root", "system", "support", "help", "staff", "team", "moderator", "mod",
        "official", "owner", "server", "bot", "robot", "golf", "golfrace", "race", "races", "daily", "watch",
        "leaderboard", "leaderboards", "rules", "play", "api", "www", "mail", "account", "accounts", "login",
        "logout", "signin", "signout", "signup", "register", "profile", "settings", "me", "you", "self",
        "guest", "anonymous", "anon", "deleted", "player", "players", "nobody", "null", "undefined", "none",
        "true", "false", "test", "security", "abuse", "contact", "info", "about", "privacy", "terms",
    }
)  # fmt: skip
RESERVED_PREFIXES = ("golfrace", "admin", "moderator", "deleted")


def fold(name: str) -> str:
    """The form that makes two usernames the same one (ASCII only, so lowercase is enough)."""
    return name.lower()


def check_username(name: object) -> str:
    """``name`` if it is a valid, unreserved username, else ``bad_username`` with ``params.reason``
    (``length``, ``characters``, ``reserved``)."""
    if not isinstance(name, str):
        raise AccountError("bad_username", "a username is text", reason="characters")
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise AccountError(
            "bad_username", f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters", reason="length"
        )
    if not USERNAME.fullmatch(name):
        raise AccountError(
            "bad_username", "letters, digits, _ and -, beginning with a letter", reason="characters"
        )
    folded = fold(name)
    if folded in RESERVED or folded.startswith(RESERVED_PREFIXES) or lookalike.reserved(name):
        raise AccountError("bad_username", "this username is reserved", reason="reserved")
    return name


def clean_display(name: object, limit: int) -> str:
    """A display name as kept: spaces collapsed; ``bad_display_name`` when too long or with control
    characters."""
    if not isinstance(name, str):
        raise AccountError("bad_display_name", "a display name is text")
    name = " ".join(name.split())
    if len(name) > limit:
        raise AccountError("bad_display_name", f"a display name has at most {limit} characters", max=limit)
    if any(unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") for c in name):
        raise AccountError("bad_display_name", "a display name has no control characters")
    if name and lookalike.reserved(name):  # fair play 19.6: "admin", "Moderator", "Deleted player"…
        raise AccountError("bad_display_name", "this name is reserved", reason="reserved")
    return name


async def check_not_another(redis: object, name: str, player: str) -> None:
    """A display name must not pass for another account's username (fair play 19.6); its own is fine."""
    if not name:
        return
    held = await lookalike.owner(redis, name)
    if held is not None and held != player:
        raise AccountError("bad_display_name", "this name is another player's username", reason="taken")
