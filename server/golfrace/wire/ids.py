"""Every id and name that crosses the wire, and its rule, defined once: the server makes and checks them with
these, and the web client takes them from its generated ``client_web/src/net/messages.js`` (``IDS``,
``BOUNDS``).

- a game id: 12 characters of ``ID_ALPHABET``; a race id: ``r`` and 11 of them; a race seat's game id:
  ``<race id>-<seat>``
- a player id: ``p`` and 16 hexadecimal digits (a guest's, kept by an account it becomes)
- a session id (``sid``): 1 to 32 letters, digits, ``_`` and ``-``
- a username: 3 to 20 ASCII letters, digits, ``_`` and ``-``, beginning with a letter
- any id a client sends: at most ``ID_LEN`` characters
"""

from __future__ import annotations

import re
import secrets

ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
"""Base-32 for every id the server makes: lowercase, no ambiguous symbols (no l, o, 0, 1)."""
GAME_ID_LEN = 12
RACE_ID_PREFIX = "r"
ID_LEN = 32
"""The longest id a client may send (game, race, request id)."""

GAME_ID = re.compile(f"[{ID_ALPHABET}]{{{GAME_ID_LEN}}}")
RACE_ID = re.compile(f"{RACE_ID_PREFIX}[{ID_ALPHABET}]{{{GAME_ID_LEN - 1}}}")
SEAT_ID = re.compile(f"({RACE_ID.pattern})-([1-9][0-9]?)")
"""A race seat's game id: the race id and the seat number."""
PLAYER_ID = re.compile(r"p[0-9a-f]{16}")
SID = re.compile(r"[0-9A-Za-z_-]{1,32}")
USERNAME_MIN, USERNAME_MAX = 3, 20
USERNAME = re.compile(rf"[A-Za-z][A-Za-z0-9_-]{{{USERNAME_MIN - 1},{USERNAME_MAX - 1}}}")
USERNAME_SENT_MAX = 64
"""The longest username a client may send (any case, before it is checked: sign-in, friends)."""


def new_game_id() -> str:
    """A game id: 12 characters of ``ID_ALPHABET``: 60 random bits."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(GAME_ID_LEN))


def new_race_id() -> str:
    """A race id: ``r`` and 11 characters of ``ID_ALPHABET`` (55 random bits)."""
    return RACE_ID_PREFIX + "".join(secrets.choice(ID_ALPHABET) for _ in range(GAME_ID_LEN - 1))


def seat_id(race_id: str, seat: int) -> str:
    """A race seat's game id (``SEAT_ID``; ``store.keys.seat_of`` reads one back)."""
    return f"{race_id}-{seat}"


def new_player_id() -> str:
    """A player id: ``p`` and 16 hexadecimal digits (64 random bits)."""
    return "p" + secrets.token_hex(8)
