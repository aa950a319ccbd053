"""A stored game as ``stored.py`` makes and reads it: a new game's hash fields read back (as Redis answers
them, bytes) give the same game; the process's copy is kept when the version read is the one it holds; a
missing game is None; a commit of ours moves it to the next version with its history extended."""

from __future__ import annotations

from typing import Any

from golfrace.engine import Draw, Game
from golfrace.store.game_codec import history_text
from golfrace.store.stored_game import FIELDS, Stored, from_fields, new_stored

CODE = "GO1-E-AAAAAAB"


def _as_read(mapping: dict[str, Any]) -> list[bytes | None]:
    """``HMGET game:{ID} FIELDS`` of a hash written from ``mapping``."""
    return [None if mapping.get(f) is None else _bytes(mapping[f]) for f in FIELDS]


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def test_a_new_games_fields_read_back_as_the_same_game() -> None:
    meta = {"race": "rabcdefghijk", "seat": 2, "undo": False}
    for hidden, draws_final in [(False, False), (True, True)]:
        stored, mapping = new_stored("g1", "p1", CODE, hidden, meta, draws_final, created=1234)
        assert (stored.v, stored.created, stored.code, stored.hist) == (0, 1234, str(stored.game.code), "")
        assert mapping["status"] == "playing" and mapping["updated"] == 1234
        read = from_fields("g1", _as_read(mapping))
        assert read == stored
        assert read is not None and read.game.draws_final is draws_final and read.hidden is hidden


def test_the_known_copy_is_kept_only_at_its_version() -> None:
    stored, mapping = new_stored("g1", "p1", CODE, False, {}, False, created=1)
    fields = _as_read(mapping)
    assert from_fields("g1", fields, known=stored) is stored
    moved = stored.moved(stored.game.apply(Draw()))
    again = from_fields("g1", fields, known=moved)  # Redis holds v0, the copy v1: decoded afresh
    assert again is not moved and again == stored


def test_a_missing_game_is_none() -> None:
    assert from_fields("g1", [None] * len(FIELDS)) is None
    _, mapping = new_stored("g1", "p1", CODE, False, {}, False, created=1)
    fields = _as_read(mapping)
    fields[FIELDS.index("owner")] = None
    assert from_fields("g1", fields) is None


def test_a_move_of_ours_is_the_next_version_with_its_history_extended() -> None:
    game = Game.new(CODE)
    stored = Stored("g1", game, 4, "p1", True, 9, {"x": 1}, history_text(game), str(game.code))
    after = game.apply(Draw())
    moved = stored.moved(after)
    assert moved == Stored("g1", after, 5, "p1", True, 9, {"x": 1}, history_text(after), stored.code)
