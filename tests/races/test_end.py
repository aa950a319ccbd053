"""The end of a race is idempotent and completed by whoever touches the race next: an instance that dies
right after the write that ended a race leaves records, leaderboards, personal bests and the daily result
to the next instance (or HTTP request) that reads it — exactly once."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from golfrace.races import leaderboard as lb
from golfrace.races.daily import day_of
from golfrace.races.ending import COMPLETE_AFTER_SWEEPS
from golfrace.races.followers import RaceWire
from golfrace.races.race import Race, Seats
from golfrace.races.service import RaceService
from golfrace.settings import Settings
from golfrace_testkit.servers import running_server

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from ..waiting import until, until_async
from .test_wire import T, new_race, start

pytestmark = pytest.mark.timeout(60)


def die_after_the_end(service: RaceService, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The instance dies just after writing a race's end: its aftermath never runs (a fault injected into
    the real service; nothing else is replaced)."""
    ended: list[str] = []

    async def dead(race: Race, seats: Seats) -> Race:
        ended.append(race.id)
        return race

    monkeypatch.setattr(service.ending, "finish", dead)
    return ended


async def died_at_the_end(ended: list[str], rid: str) -> None:
    """Until the instance reached the aftermath of ``rid`` (and died there). The end's event, relayed by a
    subscriber, can reach a client before the coroutine that wrote the end resumes from that write. (Any
    later touch of the race on the dead instance reaches the dead aftermath again: no other race does.)"""
    await until(lambda: rid in ended, f"the instance reached the aftermath of {rid} and died there")
    assert set(ended) == {rid}


def another_instance(service: RaceService) -> RaceService:
    """A second race service on the same Redis, as another server process has."""
    return RaceService(service.redis, service.store, service.settings, service.daily, clock=service.clock)


async def test_a_daily_end_whose_aftermath_died_is_completed_once_by_another_instance(
    make_client: Any, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    service: RaceService = server.ctx.get(RaceWire).service
    ended = die_after_the_end(service, monkeypatch)
    dee = await make_client(name="Dee")
    await sign_in_client(server.ctx.redis, dee, "Dee")  # public boards take accounts only
    await dee.send({"t": "daily_play"})
    race = await dee.expect("race", T, where=lambda m: m.get("daily") is not None)
    rid, day = race["race"], day_of(service.clock())
    assert race["ranked"]
    await dee.send({"t": "race_resign", "race": rid})
    await dee.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    await died_at_the_end(ended, rid)
    game = f"{rid}-1"
    assert await service.records.load(game) is None  # what the dead instance left: no aftermath at all
    assert await service.daily.result(day, dee.player) is None

    monkeypatch.undo()  # (the dead instance's own service is not used again below)
    for _ in range(2):  # the next touch completes it; any later touch changes nothing
        other = another_instance(service)
        try:
            touched = await other.load(rid)
        finally:
            await other.close()
        assert touched is not None and touched.finalized
        record = await other.records.load(game)
        assert record is not None and record.status == "resigned" and record.daily == day.isoformat()
        _, entries = await other.boards.page(lb.daily_board(day.isoformat()), 0, 100)
        assert [e["game"] for e in entries if e["player"] == dee.player] == [game]
        _, bests = await other.boards.page(lb.bests_board(dee.player), 0, 100)
        assert [e["game"] for e in bests] == [game]
        result = await other.daily.result(day, dee.player)
        assert result is not None and result["game"] == game
        streak = await other.daily.streak(dee.player)
        assert streak.current(day) == 1 and streak.best == 1


async def test_the_daily_status_asked_before_the_aftermath_gives_the_result(
    make_client: Any, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Daily tab opened as an attempt ends (its aftermath not run yet, or its instance dead) shows the
    result and the share text, not "Continue" for an attempt that is over."""
    service: RaceService = server.ctx.get(RaceWire).service
    ended = die_after_the_end(service, monkeypatch)
    eve = await make_client(name="Eve")
    await sign_in_client(server.ctx.redis, eve, "Eve")
    await eve.send({"t": "daily_play"})
    rid = (await eve.expect("race", T, where=lambda m: m.get("daily") is not None))["race"]
    await eve.send({"t": "race_resign", "race": rid})
    await eve.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    await died_at_the_end(ended, rid)
    assert await service.daily.result(day_of(service.clock()), eve.player) is None
    monkeypatch.undo()
    await eve.send({"t": "daily", "rid": "d1"})
    status = await eve.expect("daily", T, where=lambda m: m.get("rid") == "d1")
    assert status["played"] and status["result"] is not None, status
    assert status["result"]["game"] == f"{rid}-1" and status["share"].startswith("Golf Race daily")


async def test_a_race_game_record_is_served_even_when_its_end_was_cut_short(
    make_client: Any, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    service: RaceService = server.ctx.get(RaceWire).service
    ended = die_after_the_end(service, monkeypatch)
    ann = await make_client(name="Ann")
    await sign_in_client(server.ctx.redis, ann, "Ann")  # public boards take accounts only
    rid = (await new_race(ann, name="Ann", seats=1))["race"]
    await start(ann, rid)
    await ann.send({"t": "race_resign", "race": rid})
    await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    await died_at_the_end(ended, rid)
    assert await service.records.load(f"{rid}-1") is None
    monkeypatch.undo()
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        resp = await http.get(f"/api/games/{rid}-1")  # once answered 409 forever
        assert resp.status_code == 200, resp.text
        assert resp.json()["status"] == "resigned" and resp.json()["score"] == 0
    code = str((await service.load(rid)).code)  # type: ignore[union-attr]
    _, entries = await service.boards.page(lb.code_board(code), 0, 100)
    assert [e["game"] for e in entries if e["player"] == ann.player] == [f"{rid}-1"]


async def test_an_instance_that_saw_the_end_completes_it_when_the_ending_one_died(
    settings: Settings, make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = MovableClock()  # both instances on one clock: B's wait before it completes the end is moved on
    own = settings.with_(port=0)
    async with running_server(own, clock=clock) as a, running_server(own, clock=clock) as b:
        ended = die_after_the_end(a.ctx.get(RaceWire).service, monkeypatch)
        ann = await make_client(a.ws, name="Ann")
        eve = await make_client(b.ws, name="Eve")
        rid = (await new_race(ann, name="Ann", seats=1))["race"]
        await eve.send({"t": "watch", "race": rid})  # B follows the race: it sees the end's event
        await eve.expect("race_watch", T)
        await start(ann, rid)
        await ann.send({"t": "race_resign", "race": rid})
        await eve.expect("race", T, where=lambda m: m["phase"] == "finished")
        await died_at_the_end(ended, rid)  # A wrote the end and "died" before its aftermath
        # B saw the end's event (Eve's message came after it): a few sweeps later, it completes the end
        await clock.advance(COMPLETE_AFTER_SWEEPS * own.races.sweep_interval_s)
        records = b.ctx.get(RaceWire).service.records  # a plain read: it touches no race

        async def completed() -> bool:
            return await records.load(f"{rid}-1") is not None

        await until_async(completed, "B completed the end", T)
        record = await records.load(f"{rid}-1")
        assert record is not None and record.status == "resigned"
