"""``races/storage.py`` on the session's server's real Redis: a race is written once (``exists`` after),
read back as written with its seats, changed only from the version read (``conflict`` otherwise), and its
write publishes its event on the race's channel in the same step; a lobby is deleted only unchanged."""

from __future__ import annotations

import secrets
from typing import Any

from golfrace.engine import GameCode, Rules
from golfrace.races.race import Race
from golfrace.races.storage import RaceStore, race_channel
from golfrace.store.pubsub import Envelope
from golfrace.wire.protocol import pack
from golfrace_testkit.servers import RunningServer

from ..waiting import until

CODE = GameCode(Rules.EASY, 11)


class Inbox:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def deliver(self, envelope: Envelope) -> None:
        self.messages.append(envelope.message)


def store_of(server: RunningServer) -> RaceStore:
    ctx = server.ctx
    return RaceStore(ctx.redis, ctx.store, 600)


def new_lobby(now: int) -> Race:
    return Race.create(f"t{secrets.token_hex(6)}", CODE, host="pann", name="Ann", now=now)


async def test_a_race_is_written_once_and_read_back(server: RunningServer) -> None:
    races, now = store_of(server), server.ctx.clock()
    race = new_lobby(now)
    assert await races.read(race.id) is None and not await races.exists(race.id)
    assert await races.write(None, race) == "ok"
    assert await races.write(None, race) == "exists"
    loaded = await races.read(race.id)
    assert loaded is not None and loaded.race == race and loaded.seats == {}  # a lobby: no seat games
    assert await races.read_race(race.id) == race and await races.exists(race.id)


async def test_a_change_goes_from_the_version_read_only(server: RunningServer) -> None:
    races, now = store_of(server), server.ctx.clock()
    race = new_lobby(now)
    assert await races.write(None, race) == "ok"
    first, second = await races.read(race.id), await races.read(race.id)
    assert first is not None and second is not None
    assert await races.write(first, race.join("pbob", "Bob", now)) == "ok"
    assert await races.write(second, race.join("peve", "Eve", now)) == "conflict"  # read before Bob's
    stored = await races.read_race(race.id)
    assert stored is not None and [r.name for r in stored.racers] == ["Ann", "Bob"]


async def test_a_write_publishes_its_event_on_the_race_channel(server: RunningServer) -> None:
    races, now, hub = store_of(server), server.ctx.clock(), server.ctx.hub
    race = new_lobby(now)
    inbox = Inbox()
    await hub.subscribe(race_channel(race.id), inbox)
    try:
        assert await races.write(None, race, pack({"k": "made", "race": race.id})) == "ok"
        await until(lambda: inbox.messages == [{"k": "made", "race": race.id}], "the race's event")
    finally:
        await hub.unsubscribe(race_channel(race.id), inbox)


async def test_a_lobby_is_deleted_only_as_it_was_read(server: RunningServer) -> None:
    races, now = store_of(server), server.ctx.clock()
    race = new_lobby(now)
    assert await races.write(None, race) == "ok"
    before = await races.read(race.id)
    assert before is not None
    assert await races.write(before, race.join("pbob", "Bob", now)) == "ok"
    assert await races.delete(before) == "conflict"  # Bob came meanwhile: it stays
    again = await races.read(race.id)
    assert again is not None
    assert await races.delete(again) == "ok"
    assert await races.read(race.id) is None
    assert await races.delete(again) == "gone"
