"""The Redis names of a game's keys and channel, a race seat's game id, a player's keys and a race's gate.

Every key and channel of a game is made here, so that one game (and a race with all its seats) lives under
one ``{…}`` hash tag, in one Redis Cluster slot; what each holds:

- ``game:{ID}``        (a race seat ``<race id>-<seat>``: ``game:{<race id>}-<seat>``, so that a race and
                       its seats share one hash tag, one Redis Cluster slot) hash: ``state``
                       (``game_codec.py``: msgpack, holds the code, never sent), ``v``, ``owner``,
                       ``hidden`` (1: code shown only after the end), ``status``, ``created``, ``updated``,
                       ``meta`` (JSON for extensions: a seat's ``race``, ``seat`` and ``undo`` option)
- ``game:{ID}:log``    list: ``<token> <ms since epoch>`` per applied action (``d``, ``3``, ``2:4``, ``u``)
- ``game:{ID}:diffs``  list: the last ``resync_buffer`` diffs, msgpack, oldest first
- ``game:{ID}:seq``    hash: ``<player>/<sid>`` → highest seq answered; ``<player>/<sid>#<seq>`` → the answer
- channel ``game:{ID}``  every diff, msgpack, in version order (published inside the commit script)
- ``player:{PID}``     hash: ``name``, ``seen``;  ``player:{PID}:games`` zset of unfinished game ids
- ``golfrace:secret``  the token-signing secret shared by all instances (when not configured)
- ``race:{RID}:gate``  hash, for a race's seats: ``starts_at``, ``deadline`` (ms, 0: none), ``ended`` (1),
                       ``undo`` (1/0), ``out:<seat>`` (a racer the race stopped: resigned, abandoned,
                       timeout), ``rev`` (the race record's revision); written by the race (``races/``),
                       read by the commit script of every seat move (``commit.py``)
"""

from __future__ import annotations

import functools
import re
import secrets

SEAT_IDS_KEPT = 65_536
SEAT_ID = re.compile(r"(r[a-z0-9]{11})-([1-9][0-9]?)")
"""A race seat's game id: the race id (``r`` + 11 characters) and the seat number."""


@functools.lru_cache(maxsize=SEAT_IDS_KEPT)
def seat_of(game_id: str) -> tuple[str, int] | None:
    """``(race id, seat)`` when ``game_id`` is a race seat's game, else None (kept for the ids seen lately:
    each move asks several times)."""
    match = SEAT_ID.fullmatch(game_id)
    return None if match is None else (match[1], int(match[2]))


def seat_id(race_id: str, seat: int) -> str:
    return f"{race_id}-{seat}"


ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
"""Base-32 for every id the server makes: lowercase, no ambiguous symbols (no l, o, 0, 1)."""


def new_id() -> str:
    """A game id: 12 characters of ``ID_ALPHABET``: 60 random bits."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(12))


def new_race_id() -> str:
    """A race id: ``r`` and 11 characters of ``ID_ALPHABET`` (55 random bits); its seats' games are
    ``<race id>-<seat>`` (``seat_of``)."""
    return "r" + "".join(secrets.choice(ID_ALPHABET) for _ in range(11))


def game_key(game_id: str) -> str:
    """``game:{ID}``; a race seat's keys carry the race's hash tag: ``game:{<race id>}-<seat>``."""
    seat = seat_of(game_id)
    return f"game:{{{game_id}}}" if seat is None else f"game:{{{seat[0]}}}-{seat[1]}"


def channel(game_id: str) -> str:
    """The pub/sub channel of a game's diffs, named like its key (races and others publish their own)."""
    return game_key(game_id)


def gate_key(race_id: str) -> str:
    """The race gate the commit script reads for every move of the race's seats (see the module)."""
    return f"race:{{{race_id}}}:gate"


def player_key(player: str) -> str:
    return f"player:{{{player}}}"
