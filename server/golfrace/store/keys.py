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
                       (its last ``seq_window``); ``@<player>`` → the player's last ``seq_spaces_per_game``
                       seq spaces in this game (space-separated); ``<player>/<sid>`` → ``x``: a space dropped
- channel ``game:{ID}``  every diff, msgpack, in version order (published inside the commit script)
- ``player:{PID}``     hash: ``name``, ``seen``;  ``player:{PID}:games`` zset of unfinished game ids
- ``golfrace:secret``  the token-signing secret shared by all instances (when not configured);
                       channel ``golfrace:hub``: the instances' shared notices (``pubsub.py``)
- ``limit:{<kind>|<subject>}``  hash with a TTL: a token bucket (``live/limits.py``, friends)
- ``sb:{PID}``          hash with a TTL: the player's best finished solo game on each deal, code → JSON
                       (``solo_bests.py``: its own ghosts, and its friends')
- ``follow:{N}``       zset: the solo games' records due for completion, in buckets (``live/solo_follow.py``)
- ``ready:{N}``        a readiness probe's key, one per eighth of the cluster's slots (``http/ready.py``)
- ``ulook:{<key>}``    the account owning a lookalike key of a username (``lookalike.py``)
- ``race:{RID}:gate``  hash, for a race's seats: ``starts_at``, ``deadline`` (ms, 0: none), ``ended`` (1),
                       ``undo`` (1/0), ``out:<seat>`` (a racer the race stopped: resigned, abandoned,
                       timeout), ``rev`` (the race record's revision); written by the race (``races/``),
                       read by the commit script of every seat move (``commit.py``)

Every Redis key of the server is built in the store's keys modules: this one (the core), ``account_keys``,
``race_keys`` (the races and the extensions above them), ``friend_keys`` and ``course_keys``. The store names
the keys of layers above it without importing them (a key is a string): the accounts delete a player's keys
of the races and friends, and ``tests/test_one_definition.py`` fails on a key built anywhere else.
"""

from __future__ import annotations

import functools

from golfrace.wire.ids import SEAT_ID
from golfrace.wire.ids import seat_id as seat_id

SEAT_IDS_KEPT = 65_536


@functools.lru_cache(maxsize=SEAT_IDS_KEPT)
def seat_of(game_id: str) -> tuple[str, int] | None:
    """``(race id, seat)`` when ``game_id`` is a race seat's game, else None (kept for the ids seen lately:
    each move asks several times)."""
    match = SEAT_ID.fullmatch(game_id)
    return None if match is None else (match[1], int(match[2]))


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


def gate_out(seat: int) -> str:
    """The gate's field of a racer the race stopped (``out:<seat>``)."""
    return f"out:{seat}"


SECRET = "golfrace:secret"
HUB_CHANNEL = "golfrace:hub"


def limit_bucket(kind: str, subject: str) -> str:
    """A token bucket of ``kind`` for ``subject`` (a network, ``acct:<player>``)."""
    return f"limit:{{{kind}|{subject}}}"


def follow_bucket(n: int) -> str:
    return f"follow:{{{n}}}"


def ready_probe(n: int) -> str:
    return f"ready:{{{n}}}"


def lookalike(key: str) -> str:
    return f"ulook:{{{key}}}"


def player_games(player: str) -> str:
    """The player's unfinished games (zset)."""
    return player_key(player) + ":games"


def solo_bests(player: str) -> str:
    """``sb:{PID}``: the player's best solo game on each deal (``solo_bests.py``)."""
    return f"sb:{{{player}}}"
