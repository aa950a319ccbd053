"""A seat's move describes its racer from the race as read lately on this instance (``RaceService.peek``):
another seat's move does not make the next move read the race again, nor does the event of a change
written here (its revision is the peek's); a change this instance missed is caught by the commit, which
checks the race's revision in the gate. Counted on the real service's reads of the real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from golfrace.races.followers import RaceWire
from golfrace.races.race import Race
from golfrace.races.service import RaceService
from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from .test_wire import T, open_seat, two_racers

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[RunningServer]:
    """No countdown, a peek that stays fresh for the whole test (only events refresh it), and no par search
    (its write would land at a time of its own)."""
    races = replace(settings.races, countdown_ms=0, peek_s=600.0, solver_budget_s=0)
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
    service: RaceService = server.ctx.get(RaceWire).service
    rid, ann, bob = await two_racers(make_client)
    ann_game, bob_game = f"{rid}-1", f"{rid}-2"
    await open_seat(ann, rid, 1)
    await open_seat(bob, rid, 2)
    reads = count_race_reads(service)

    # eight moves, each one's event reaching the other racer: no read (the start was written here: the peek
    # is the race as written, and the start's event carries its revision); a read per move event would be
    # eight
    for n in range(1, 5):
        await move(ann, ann_game, n, {"a": "draw"})
        await bob.expect(
            "race_progress", T, where=lambda m, n=n: m["racer"]["seat"] == 1 and m["racer"]["moves"] == n
        )
        await move(bob, bob_game, n, {"a": "draw"})
        await ann.expect(
            "race_progress", T, where=lambda m, n=n: m["racer"]["seat"] == 2 and m["racer"]["moves"] == n
        )
    assert reads == [], reads

    # a change of the race written here: the peek is the race as written (its event, of that revision,
    # keeps it), so the next move reads nothing and already tells the idle deadline that the resign started
    await ann.send({"t": "race_resign", "race": rid})
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][0]["status"] == "resigned")
    await move(bob, bob_game, 5, {"a": "draw"})
    progress = await ann.expect(
        "race_progress", T, where=lambda m: m["racer"]["seat"] == 2 and m["racer"]["moves"] == 5
    )
    assert progress["racer"]["out_at"] is not None
    assert reads == [], reads


async def test_a_move_after_a_race_change_this_instance_missed_is_described_from_the_stored_race(
    server: RunningServer, make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The peek is checked inside the commit: the gate carries the race record's revision, so a move made
    from a race that changed meanwhile (its event lost here) is not stored with a stale event; the server
    reads the race again and the event tells the idle deadline that Ann's resign started for Bob."""
    service: RaceService = server.ctx.get(RaceWire).service
    rid, ann, bob = await two_racers(make_client)
    bob_game = f"{rid}-2"
    await open_seat(bob, rid, 2)
    await move(bob, bob_game, 1, {"a": "draw"})
    first = await ann.expect("race_progress", T, where=lambda m: m["racer"]["moves"] == 1)
    assert first["racer"]["out_at"] is not None  # idle from the last move, before anyone finished (20.3)

    reads = count_race_reads(service)
    monkeypatch.setattr(service, "forget", lambda race_id: None)  # the race's events are lost here
    other = RaceService(service.redis, service.store, service.settings, service.daily, clock=service.clock)
    try:  # another instance: Ann resigns there
        resigned = await other.resign(rid, ann.player)
    finally:
        await other.close()
    assert resigned.rev > (await service.peek(rid)).rev  # type: ignore[union-attr]  # the peek is stale
    await move(bob, bob_game, 2, {"a": "draw"})
    second = await ann.expect("race_progress", T, where=lambda m: m["racer"]["moves"] == 2)
    ann_done = resigned.racers[0].finished_at
    assert ann_done is not None  # Bob is out if idle from his last move (after Ann's resign) on:
    assert second["racer"]["out_at"] >= ann_done + resigned.idle_s * 1000
    assert reads == [rid]  # read again once, because the commit found another revision in the gate
