"""The Redis names of ``keys.py``: a race seat's game id is recognised exactly, and its keys carry the race's
hash tag (one Redis Cluster slot for a race and its seats); every other game has its own tag."""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from golfrace.store.keys import channel, game_key, gate_key, player_key, seat_id, seat_of
from golfrace.wire.ids import ID_ALPHABET, new_race_id
from golfrace.wire.ids import new_game_id as new_id

RACE = "rabcdefghijk"


@pytest.mark.parametrize(
    ("game_id", "seat"),
    [
        (f"{RACE}-1", (RACE, 1)),
        (f"{RACE}-2", (RACE, 2)),
        (f"{RACE}-99", (RACE, 99)),
        (f"{RACE}-0", None),  # seats count from 1
        (f"{RACE}-01", None),
        (f"{RACE}-100", None),
        ("rabcdefghij-1", None),  # a race id is r + 11 characters
        ("rABCDEFGHIJK-1", None),
        (RACE, None),
        ("abcdefghijkm", None),  # an ordinary game id (new_id)
        (f"{RACE}-1 ", None),
    ],
)
def test_a_seat_id_is_recognised_exactly(game_id: str, seat: tuple[str, int] | None) -> None:
    assert seat_of(game_id) == seat


@pytest.mark.parametrize(
    ("game_id", "key"),
    [
        ("abcdefghijkm", "game:{abcdefghijkm}"),
        (f"{RACE}-3", f"game:{{{RACE}}}-3"),
        (f"{RACE}-0", f"game:{{{RACE}-0}}"),  # not a seat: a game of its own
    ],
)
def test_a_games_key_and_channel(game_id: str, key: str) -> None:
    assert game_key(game_id) == key
    assert channel(game_id) == key


def test_a_race_its_gate_and_its_seats_share_one_cluster_slot() -> None:
    slots = {key_slot(k.encode()) for k in (gate_key(RACE), f"race:{{{RACE}}}")}
    slots |= {key_slot(game_key(seat_id(RACE, s)).encode()) for s in (1, 2, 9, 42)}
    assert len(slots) == 1
    assert seat_of(seat_id(RACE, 7)) == (RACE, 7)


def test_new_ids_are_not_seats_and_differ() -> None:
    ids = {new_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(len(i) == 12 and seat_of(i) is None for i in ids)
    assert player_key("p1") == "player:{p1}"


def test_new_race_ids_name_their_seats_in_the_one_alphabet() -> None:
    races = {new_race_id() for _ in range(200)}
    assert len(races) == 200
    for race in races:
        assert race[0] == "r" and len(race) == 12 and set(race[1:]) <= set(ID_ALPHABET)
        assert seat_of(seat_id(race, 3)) == (race, 3) and seat_of(race) is None
    assert all(set(new_id()) <= set(ID_ALPHABET) for _ in range(50))
