"""A seat's move describes its racer from the race as read lately on this instance (``RaceService.peek``):
another seat's move does not make the next move read the race again; an event that changes the race (a
start, a seat's end) does. Counted on the real service's reads of the real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from golfrace.client import Client
from golfrace.races.race import Race
from golfrace.races.service import RaceService
from golfrace.settings import Settings
from golfrace.testing import RunningServer, running_server

from .test_wire import T, join, new_race, open_seat

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[RunningServer]:
    """No countdown, and a peek that stays fresh for the whole test (only events refresh it)."""
    races = replace(settings.races, countdown_ms=0, peek_s=600.0)
    async with running_server(settings.with_(races=races)) as running:
        yield running


def count_race_reads(service: RaceService) -> list[str]:
    """Each read of a race record alone (what a peek does) is noted; the read itself is the real one."""
    reads: list[str] = []
    real = service.storage.read_race

    async def counted(race_id: str) -> Race | None:
        reads.append(race_id)
        return await real(race_id)

    service.storage.read_race = counted  # type: ignore[method-assign]
    return reads


async def move(client: Client, game: str, seq: int, a: dict[str, Any]) -> None:
    await client.send({"t": "act", "game": game, "seq": seq, **a})
    ack = await client.expect(None, T, where=lambda m: m.get("seq") == seq and m.get("game") == game)
    assert ack["t"] == "ack", ack


async def test_a_move_event_keeps_the_peeked_race_and_a_race_event_drops_it(
    server: RunningServer, make_client: Any
) -> None:
    service: RaceService = server.ctx.extras["races"].service
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann", seats=2))["race"]
    await join(bob, rid, name="Bob")
    await ann.send({"t": "race_start", "race": rid})
    for c in (ann, bob):  # the start's race event has reached this instance's followers
        await c.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "running")
    ann_game, bob_game = f"{rid}-1", f"{rid}-2"
    await open_seat(ann, rid, 1)
    await open_seat(bob, rid, 2)
    reads = count_race_reads(service)

    # eight moves, each one's event reaching the other racer: at most two reads (the first move since the
    # start's event, and one more if the par the race computes in the background lands meanwhile); a read
    # per move event would be eight
    for n in range(1, 5):
        await move(ann, ann_game, n, {"a": "draw"})
        await bob.expect(
            "race_progress", T, where=lambda m, n=n: m["racer"]["seat"] == 1 and m["racer"]["moves"] == n
        )
        await move(bob, bob_game, n, {"a": "draw"})
        await ann.expect(
            "race_progress", T, where=lambda m, n=n: m["racer"]["seat"] == 2 and m["racer"]["moves"] == n
        )
    assert 1 <= len(reads) <= 2 and set(reads) == {rid}, reads
    before = len(reads)

    await ann.send({"t": "race_resign", "race": rid})  # a change of the race: its event drops the peek
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][0]["status"] == "resigned")
    await move(bob, bob_game, 5, {"a": "draw"})
    assert len(reads) == before + 1 and set(reads) == {rid}, reads
