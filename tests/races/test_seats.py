"""What a seat's move event carries (``races/seats.py``): a race nobody has watched gets its racers'
progress only; from its first ``watch`` on, every move carries the watchers' board, held back by fair play
as before, even when the instance that describes the move has not heard of that watcher yet."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from golfrace.races.followers import RaceWire
from golfrace.races.service import RaceService
from golfrace.races.storage import race_channel
from golfrace.settings import Settings
from golfrace.store.pubsub import Envelope
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from .test_peek import count_race_reads, move
from .test_wire import T, open_seat, two_racers

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[RunningServer]:
    """No countdown, a peek that stays fresh for the whole test (only events refresh it), no par search."""
    races = replace(settings.races, countdown_ms=0, peek_s=600.0, solver_budget_s=0)
    async with running_server(settings.with_(races=races)) as running:
        yield running


class MoveEvents:
    """The race channel's move events as this instance's followers get them."""

    def __init__(self) -> None:
        self.moves: list[dict[str, Any]] = []

    def deliver(self, envelope: Envelope) -> None:
        if envelope.message.get("k") == "move":
            self.moves.append(envelope.message)


async def running_race(server: RunningServer, make_client: Any) -> tuple[str, Client, Client, MoveEvents]:
    """Ann and Bob racing (seats 1 and 2, both open), the race's move events recorded."""
    rid, ann, bob = await two_racers(make_client)
    events = MoveEvents()
    await server.ctx.hub.subscribe(race_channel(rid), events)
    await open_seat(ann, rid, 1)
    await open_seat(bob, rid, 2)
    return rid, ann, bob, events


async def test_an_unwatched_race_sends_progress_only_and_its_first_watcher_gets_every_later_board(
    server: RunningServer, make_client: Any
) -> None:
    rid, ann, bob, events = await running_race(server, make_client)
    await move(ann, f"{rid}-1", 1, {"a": "draw"})
    line = await bob.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 1)
    assert line["racer"]["moves"] == 1  # the racers' progress is there
    assert len(events.moves) == 1
    assert "board" not in events.moves[0] and "diff" not in events.moves[0]  # nobody to show a board

    carl = await make_client(name="Carl")
    await carl.send({"t": "watch", "race": rid})
    watch = await carl.expect("race_watch", T, where=lambda m: m["race"] == rid)
    assert [b["moves"] for b in watch["boards"]] == [1, 0]  # the move before the watch is in its boards
    assert (await server.ctx.get(RaceWire).service.load(rid)).watched

    await move(ann, f"{rid}-1", 2, {"a": "draw"})
    board = await carl.expect("race_board", T, where=lambda m: m["board"]["seat"] == 1 and m["diff"])
    assert board["board"]["moves"] == 2
    assert board["board"]["hidden"] is True and board["board"]["discard"] is None  # Bob has drawn nothing
    assert board["diff"] is not None and board["diff"].get("discard") is None
    assert "board" in events.moves[-1]
    await move(bob, f"{rid}-2", 1, {"a": "draw"})  # Bob catches up with Ann's first draw
    bobs = await carl.expect("race_board", T, where=lambda m: m["board"]["seat"] == 2 and m["diff"])
    assert bobs["board"]["moves"] == 1


async def test_the_first_watch_sends_the_racers_nothing(server: RunningServer, make_client: Any) -> None:
    """Marking a race watched changes nothing a racer sees, so no ``race`` view goes to them: a page learns
    the server's clock from every message, and a view sent for nothing when a racer who resigned looked on
    came to the other racer's page at a time of its own (the idle warning's browser test saw it)."""
    rid, ann, bob, _ = await running_race(server, make_client)
    ann.drain()
    bob.drain()
    carl = await make_client(name="Carl")
    await carl.send({"t": "watch", "race": rid})
    await carl.expect("race_watch", T, where=lambda m: m["race"] == rid)
    assert (await server.ctx.get(RaceWire).service.load(rid)).watched
    await move(ann, f"{rid}-1", 1, {"a": "draw"})  # its event comes after any of the watch's on the channel
    await bob.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 1)
    for racer in (ann, bob):
        assert [m for m in racer.drain() if m["t"] == "race"] == []


async def test_a_move_described_before_a_watcher_arrived_on_another_instance_is_described_again(
    server: RunningServer, settings: Settings, make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carl's first watch is served by instance B, and instance A (the racers') misses its event: A's peek
    still says nobody watches, but the commit of Ann's move finds another revision in the gate, so A reads
    the race again and describes the move with the watchers' board, which reaches Carl through B."""
    service: RaceService = server.ctx.get(RaceWire).service
    rid, ann, bob, events = await running_race(server, make_client)
    await move(ann, f"{rid}-1", 1, {"a": "draw"})
    await bob.expect("race_progress", T, where=lambda m: m["racer"]["moves"] == 1)
    monkeypatch.setattr(service, "forget", lambda race_id, rev=None: None)  # the race's events are lost on A
    races = replace(settings.races, countdown_ms=0, solver_budget_s=0)
    async with running_server(settings.with_(port=0, races=races)) as b:
        carl = await make_client(b.ws, name="Carl")
        await carl.send({"t": "watch", "race": rid})
        await carl.expect("race_watch", T, where=lambda m: m["race"] == rid)
        assert (await b.ctx.get(RaceWire).service.load(rid)).watched
        assert not (await service.peek(rid)).watched  # type: ignore[union-attr]  # A's peek is stale

        reads = count_race_reads(service)
        await move(ann, f"{rid}-1", 2, {"a": "draw"})
        board = await carl.expect("race_board", T, where=lambda m: m["board"]["seat"] == 1 and m["diff"])
        assert board["board"]["moves"] == 2 and board["board"]["hidden"] is True  # Bob has drawn nothing
        assert reads == [rid]  # read again once, because the commit found another revision in the gate
        assert "board" in events.moves[-1] and events.moves[-1]["v"] == 2


async def test_a_racer_may_watch_their_own_race_once_their_game_is_over_and_not_before(
    server: RunningServer, make_client: Any
) -> None:
    """A racer still playing is refused (``own_race``); one whose game is over gets the others' boards
    live, as any watcher does (fair play 11.4: a draw the others have not reached stays hidden, the random
    code too), and keeps getting their own racer's view of the race (their seat in ``you``) until the
    results. Once every racer is done, the race's replay, with the code then public."""
    rid, ann, bob, _ = await running_race(server, make_client)
    await bob.send({"t": "watch", "race": rid})
    refused = await bob.expect("error", T, where=lambda m: m.get("ref") == "watch")
    assert refused["code"] == "own_race"  # Bob still plays
    await move(ann, f"{rid}-1", 1, {"a": "draw"})
    await ann.send({"t": "race_resign", "race": rid})
    await bob.expect("race", T, where=lambda m: m["racers"][0]["status"] == "resigned")
    await ann.send({"t": "watch", "race": rid})
    live = await ann.expect("race_watch", T, where=lambda m: m["race"] == rid)
    assert live["phase"] == "running" and live["code"] is None  # nothing early: the code waits for Bob
    assert [b["seat"] for b in live["boards"]] == [1, 2]
    assert live["watchers"] == 0  # a racer looking on is no spectator
    await move(bob, f"{rid}-2", 1, {"a": "draw"})
    board = await ann.expect("race_board", T, where=lambda m: m["board"]["seat"] == 2 and m["diff"])
    assert board["board"]["moves"] == 1
    line = await ann.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 2)
    assert line["racer"]["moves"] == 1
    await bob.send({"t": "race_resign", "race": rid})
    done = await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    assert done["you"]["seat"] == 1  # still the racer's view: the results mark Ann's row
    await ann.send({"t": "watch", "race": rid})
    replay = await ann.expect("race_watch", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    assert replay["code"] is not None


async def test_a_held_back_draw_shows_to_watchers_as_soon_as_the_racer_behind_stops(
    server: RunningServer, make_client: Any
) -> None:
    """Ann has drawn twice, Bob not at all: watchers see no drawn card of Ann's. Bob resigns: nobody still
    playing is behind Ann, and the race's change itself brings her whole board, not her next move."""
    rid, ann, bob, _ = await running_race(server, make_client)
    carl = await make_client(name="Carl")
    await carl.send({"t": "watch", "race": rid})
    await carl.expect("race_watch", T, where=lambda m: m["race"] == rid)
    for seq in (1, 2):
        await move(ann, f"{rid}-1", seq, {"a": "draw"})
    held = await carl.expect("race_board", T, where=lambda m: m["board"]["moves"] == 2)
    assert held["board"]["hidden"] is True and held["board"]["discard"] is None
    await bob.send({"t": "race_resign", "race": rid})
    shown = await carl.expect(
        "race_board",
        T,
        where=lambda m: m["board"]["seat"] == 1 and m["board"]["moves"] == 2 and not m["board"]["hidden"],
    )
    assert shown["board"]["moves"] == 2 and shown["diff"] is None  # the race's change, not a move
    assert shown["board"]["discard"] is not None
