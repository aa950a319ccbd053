"""A stored game as this process holds it (``Stored``): the engine value with its version, owner and
options, read from the fields of its ``game:{ID}`` hash (``from_fields``), made for a new game with the
fields to write (``new_stored``) and moved on by a commit of ours (``Stored.moved``). Pure: no Redis here
(``store.py`` reads and writes the hash, ``keys.py`` lists its fields, ``game_codec.py`` packs ``state``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from golfrace.engine import Game, GameCode
from golfrace.store.game_codec import decode_state, encode_state, history_text, next_history

FIELDS = ["state", "v", "owner", "hidden", "created", "meta"]
"""The hash fields a load reads, in the order ``from_fields`` takes them."""


@dataclass(frozen=True, slots=True)
class Stored:
    """A game as loaded: the engine value, its version and who owns it."""

    id: str
    game: Game
    v: int
    owner: str
    hidden: bool
    created: int
    meta: dict[str, Any]
    hist: str = ""
    """The undo history in the stored form (``history_text``), kept so that a move extends it in O(1)."""
    code: str = ""
    """``str(game.code)``, made once."""

    def moved(self, after: Game) -> Stored:
        """This game at the next version, moved to ``after`` by a commit of ours."""
        s = self
        hist = next_history(s.game, s.hist, after)
        return Stored(s.id, after, s.v + 1, s.owner, s.hidden, s.created, s.meta, hist, s.code)


def new_stored(
    game_id: str,
    owner: str,
    code: GameCode,
    hidden: bool,
    meta: dict[str, Any],
    draws_final: bool,
    created: int,
) -> tuple[Stored, dict[str, Any]]:
    """A new game at version 0 and its ``game:{ID}`` hash fields (``draws_final`` for a ranked one)."""
    game = Game.new(code, draws_final=draws_final)
    mapping = {
        "state": encode_state(game, ""),
        "v": 0,
        "owner": owner,
        "hidden": int(hidden),
        "status": game.status.value,
        "created": created,
        "updated": created,
        "meta": json.dumps(meta),
    }
    return Stored(game_id, game, 0, owner, hidden, created, meta, "", str(game.code)), mapping


def from_fields(game_id: str, fields: list[bytes | None], known: Stored | None = None) -> Stored | None:
    """The game from its ``FIELDS`` as read (None: not stored); ``known`` when it is at the version read
    (the process's copy: not decoded again)."""
    state, v, owner, hidden, created, meta = fields
    if state is None or v is None or owner is None:
        return None
    if known is not None and known.v == int(v):
        return known
    game = decode_state(state)
    return Stored(
        game_id,
        game,
        int(v),
        owner.decode(),
        hidden == b"1",
        int(created or 0),
        json.loads(meta) if meta else {},
        history_text(game),
        str(game.code),
    )
