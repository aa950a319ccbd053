"""The commit script (``commit.py``) on a real Redis through a real ``Store``: a move is written, published
behind the process's origin and answered once (``dup`` gives the first answer, an older seq is ``stale``, an
old version a ``conflict``, a game that is not stored ``nogame``); a race seat's move also needs its race
gate, and every refusal of the gate (and ``regate``, another revision of the race) records nothing."""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from golfrace.engine import Draw
from golfrace.settings import Settings
from golfrace.store.commit import COMMIT, COMMIT_BODY, Also, CommitArgs, Gate, Outcome, lua_args, pack_args
from golfrace.store.games import Store
from golfrace.store.keys import channel, game_key, gate_key, seat_id
from golfrace.store.stored_game import FIELDS, Stored, from_fields
from golfrace.wire.ids import new_game_id as new_id
from golfrace.wire.protocol import pack, unpack

pytestmark = pytest.mark.timeout(30)
T = 10.0
CODE = "GO1-E-AAAAAAB"
NOW = 1_700_000_000_000


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[Store]:
    rds = aioredis.Redis.from_url(settings.redis_url or "", socket_timeout=5)
    store = Store(rds, settings, clock=lambda: NOW)
    try:
        yield store
    finally:
        await store.batch.aclose()
        await rds.aclose()


async def _published(pubsub: Any) -> bytes:
    async with asyncio.timeout(T):
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is not None:
                return bytes(message["data"])


async def _subscribed(store: Store, *names: str) -> Any:
    pubsub = store.redis.pubsub()
    await pubsub.subscribe(*names)
    async with asyncio.timeout(T):  # confirmed before anything is published
        for _ in names:
            while await pubsub.get_message(timeout=1.0) is None:
                pass
    return pubsub


async def test_a_move_is_written_published_and_answered_once(store: Store) -> None:
    rds = store.redis
    stored = await store.create("p-commit", CODE, hidden=False)
    key = game_key(stored.id)
    after = stored.game.apply(Draw())
    diff = {"t": "diff", "game": stored.id, "v": 1}
    ack = {"t": "ack", "game": stored.id, "seq": 1, "v": 1}
    stream = "p-commit/" + secrets.token_hex(4)
    pubsub = await _subscribed(store, channel(stored.id))
    try:
        first = await store.commit(stored, stream, 1, ack, after, diff, f"d {NOW}")
        assert (first.outcome, first.answer, first.diff) == (Outcome.OK, None, pack(diff))
        assert await _published(pubsub) == store.origin + pack(diff)
    finally:
        await pubsub.aclose()
    assert from_fields(stored.id, await rds.hmget(key, FIELDS)) == stored.moved(after)
    assert await rds.hget(key, "updated") == str(NOW).encode()
    assert await rds.lrange(key + ":log", 0, -1) == [f"d {NOW}".encode()]
    assert await rds.lrange(key + ":diffs", 0, -1) == [pack(diff)]
    for sub in ("", ":log", ":diffs", ":seq"):
        assert 0 < await rds.ttl(key + sub) <= store.settings.idle_game_ttl

    other = {"t": "ack", "game": stored.id, "seq": 1, "v": 99}
    again = await store.commit(stored, stream, 1, other, after, diff, f"d {NOW}")
    assert again.outcome is Outcome.DUP and again.answer is not None and unpack(again.answer) == ack
    assert (await store.commit(stored.moved(after), stream, 0, ack)).outcome is Outcome.STALE
    conflict = await store.commit(stored, stream, 2, ack, after, diff, f"d {NOW}")  # still at v0: moved on
    assert (conflict.outcome, conflict.answer) == (Outcome.CONFLICT, None)
    assert await rds.hget(key, "v") == b"1" and await rds.llen(key + ":log") == 1

    gone = Stored(new_id(), stored.game, 0, "p-commit", False, 0, {})
    assert (await store.commit(gone, stream, 3, ack, after, diff, "d")).outcome is Outcome.NOGAME
    assert not await rds.exists(game_key(gone.id) + ":seq")


OPEN = {"starts_at": NOW - 1_000, "deadline": NOW + 60_000, "undo": 1, "rev": 4}


@pytest.mark.parametrize(
    ("gate", "status", "undo", "rev", "outcome", "refusal"),
    [
        (None, "playing", False, None, Outcome.GATE, "race_not_started"),  # no gate: the race has not started
        ({**OPEN, "starts_at": NOW + 1}, "playing", False, None, Outcome.GATE, "race_not_started"),
        ({**OPEN, "ended": 1}, "playing", False, None, Outcome.GATE, "race_over"),
        ({**OPEN, "deadline": NOW}, "playing", False, None, Outcome.GATE, "race_over"),
        ({**OPEN, "out:1": "resigned"}, "playing", False, None, Outcome.GATE, "game_ended"),
        (OPEN, "won", False, None, Outcome.GATE, "game_ended"),
        ({**OPEN, "undo": 0}, "playing", True, None, Outcome.GATE, "undo_disabled"),
        (OPEN, "playing", False, 3, Outcome.REGATE, ""),  # the move was described from another race revision
        ({**OPEN, "out:2": "resigned", "deadline": 0}, "playing", True, 4, Outcome.OK, ""),
        ({**OPEN, "undo": 0}, "playing", False, None, Outcome.OK, ""),  # not an undo, revision not checked
    ],
)
async def test_a_seat_move_needs_its_race_gate(
    store: Store,
    gate: dict[str, int | str] | None,
    status: str,
    undo: bool,
    rev: int | None,
    outcome: Outcome,
    refusal: str,
) -> None:
    rds = store.redis
    race = "r" + secrets.token_hex(6)[:11]
    stored, fields = store.new_game(seat_id(race, 1), "p-seat", CODE, True, {"race": race, "seat": 1})
    key = game_key(stored.id)
    await rds.hset(key, mapping={**fields, "status": status})
    if gate is not None:
        await rds.hset(gate_key(race), mapping=gate)
    event = {"t": "race_progress", "race": race}
    also = Also(f"race:{{{race}}}", pack(event), event)
    pubsub = await _subscribed(store, channel(stored.id), also.channel)
    try:
        result = await store.commit(
            stored,
            "p-seat/" + secrets.token_hex(4),
            1,
            {"t": "ack"},
            stored.game.apply(Draw()),
            {"t": "diff", "game": stored.id, "v": 1},
            f"d {NOW}",
            gate=Gate(gate_key(race), 1, rev),
            also=also,
            undo=undo,
        )
        assert (result.outcome, result.refusal) == (outcome, refusal)
        if outcome is Outcome.OK:
            assert await _published(pubsub) == store.origin + result.diff
            assert await _published(pubsub) == store.origin + also.raw  # the race's event, right after
            assert await rds.hget(key, "v") == b"1"
        else:  # nothing recorded: no version, no log, no answer
            assert await rds.hget(key, "v") == b"0"
            assert not await rds.exists(key + ":log", key + ":diffs", key + ":seq")
    finally:
        await pubsub.aclose()


def test_the_script_reads_each_argument_by_its_name_in_commit_args() -> None:
    """The order of the script's arguments is ``CommitArgs``'s alone: the script's first line names them in
    its field order, and the rest reads each by that name, never by a position."""
    fields = CommitArgs._fields
    first, _, rest = COMMIT.partition("\n")
    assert first == f"local {', '.join(fields)} = unpack(cmsgpack.unpack(ARGV[1]))"
    assert rest == COMMIT_BODY
    code = re.sub(r"--[^\n]*", "", COMMIT_BODY)  # without its comments
    assert "ARGV" not in code
    assert [f for f in fields if not re.search(rf"\b{f}\b", code)] == []  # each one is read
    assert set(re.findall(r"\blocal (\w+)", code)) & set(fields) == set()  # and none is hidden by a local


async def test_the_script_gets_each_argument_under_its_name(store: Store) -> None:
    """On a real Redis: the arguments' line gives each Lua local the value of its field."""
    fields = CommitArgs._fields
    args = CommitArgs(*(f"<{name}>" for name in fields))
    echo = lua_args(fields) + f"return {{{', '.join(fields)}}}"
    reply = await store.redis.eval(echo, 0, pack_args(args))
    assert [value.decode() for value in reply] == [f"<{name}>" for name in fields]
