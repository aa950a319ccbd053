"""Fair play and the quick races' ratings, over real websockets and a real Redis, on a clock the tests move:
a rating change held while a result waits for its knowledge review (applied once on ``clear``, never on
``knowledge``), a player whose ranked result is held on any board paired only with the flagged, and a racer
who closes the tab after the start resigned after the grace and rated so (issue 21.1, 21.2)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from golfrace.pool.pairing import Group, Seeker
from golfrace.pool.service import PoolService
from golfrace.races.followers import RaceWire
from golfrace.races.knowledge import Outcome, verdict, verdict_key
from golfrace.races.race import Race
from golfrace.races.replay import GameRecord
from golfrace.races.service import RaceService
from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..clock import MovableClock
from ..races.test_wire import new_race, play_out
from .servers import pool_server
from .test_pool import T, _result, member, race_of, seat_state, seek

SHORT = 5
"""The fewest moves a result is checked by fair play here (``review_min_moves``)."""


@pytest.fixture(scope="module")
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture(scope="module")
async def reviewed(
    settings: Settings, clock: MovableClock, tmp_path_factory: Any
) -> AsyncIterator[RunningServer]:
    """A server whose results near the top of a board wait for their knowledge review with no worker to take
    them (``review_queue_max`` 0: the tests give the verdict, as a worker would), and whose timing floors are
    off (a test plays at wire speed and is never held as too fast)."""
    races = replace(
        settings.races,
        review_min_moves=SHORT,
        review_top=100,
        review_queue_max=0,
        review_median_gap_ms=0,
        review_first_move_ms=0,
        review_mean_gap_ms=0,
        review_fast_gap_ms=0,
        review_fast_share=1.0,
        watcher_stale_s=3_600.0,  # one instance: no share goes stale while the clock jumps
    )
    async with pool_server(settings, tmp_path_factory.mktemp("held-redis"), races, clock) as running:
        yield running


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        await client.close()


def services(server: RunningServer) -> tuple[PoolService, RaceService]:
    return server.ctx.get(PoolService), server.ctx.get(RaceWire).service


async def quick_race(server: RunningServer, *players: str) -> Race:
    """A ranked quick race of ``players``, made by the pool as a wave would make it."""
    pool, _ = services(server)
    now = server.ctx.clock()
    seekers = tuple(Seeker(p, 1500, f"n{i}", "ranked", now) for i, p in enumerate(players))
    return await pool.make_race("easy", Group(seekers, queue="ranked"))


async def record_of(races: RaceService, race_id: str, player: str) -> GameRecord:
    race = await races.load(race_id)
    assert race is not None
    racer = race.racer(player)
    assert racer is not None
    entries = await races.store.log(race.game_id(racer))
    return GameRecord.of(race, racer, [(tok, int(ms)) for tok, _, ms in (e.partition(" ") for e in entries)])


async def played_and_resigned(
    server: RunningServer, clock: MovableClock, made: list[Client]
) -> tuple[str, Client, Client]:
    """Ann plays her seat out at wire speed (a result that would top its fresh board: pending its knowledge
    review), Bob resigns: the race ends, and its aftermath has run."""
    ann, bob = await member(server, made), await member(server, made)
    race = await quick_race(server, str(ann.player), str(bob.player))
    view = await race_of(ann, race.id)
    await race_of(bob, race.id)
    assert race.starts_at is not None
    await clock.advance_to(race.starts_at)
    state = await seat_state(ann, race.id, view["you"]["seat"])
    assert await play_out(ann, race.id, state, 100) >= 100 + SHORT
    await bob.send({"t": "race_resign", "race": race.id})
    await ann.expect("race", T, where=lambda m: m["race"] == race.id and m["phase"] == "finished")
    return race.id, ann, bob


async def rated_races(pool: PoolService, player: Any) -> int:
    return (await pool.ratings.get(str(player), "easy")).races


async def test_a_result_pending_its_knowledge_review_holds_the_rating_until_it_is_cleared(
    reviewed: RunningServer, clock: MovableClock, clients: list[Client]
) -> None:
    pool, races = services(reviewed)
    race, ann, bob = await played_and_resigned(reviewed, clock, clients)
    record = await record_of(races, race, str(ann.player))
    assert await verdict(reviewed.ctx.redis, record.game) == "pending"
    assert (await _result(ann, race))["state"] == (await _result(bob, race))["state"] == "held"
    assert await rated_races(pool, ann.player) == await rated_races(pool, bob.player) == 0
    assert not await pool.ratings.flagged(str(ann.player))  # pending is no finding
    # the worker's verdict: clear. The race's changes apply now, once, however often the verdict is heard
    await races.reviews.settle(record, Outcome(0.0, 12, True, 0.1))
    got = await _result(ann, race)
    assert got["state"] == "rated" and got["delta"] > 0
    assert (await _result(bob, race))["state"] == "rated"
    await races.reviews.settle(record, Outcome(0.0, 12, True, 0.1))
    await pool.aftermath.rate_race(*(await races.load_with_seats(race) or ()))  # the aftermath again
    assert await rated_races(pool, ann.player) == await rated_races(pool, bob.player) == 1
    assert len(await pool.ratings.history(str(ann.player), "easy")) == 1
    assert not await pool.ratings.held(race) and not await pool.ratings.flagged(str(ann.player))


async def test_a_result_found_to_know_the_stock_never_changes_a_rating_and_flags_its_player(
    reviewed: RunningServer, clock: MovableClock, clients: list[Client]
) -> None:
    pool, races = services(reviewed)
    race, ann, bob = await played_and_resigned(reviewed, clock, clients)
    record = await record_of(races, race, str(ann.player))
    await races.reviews.settle(record, Outcome(50.0, 12, True, 0.1))  # the verdict: knowledge
    assert await pool.ratings.flagged(str(ann.player))
    assert not await pool.ratings.flagged(str(bob.player))
    assert (await _result(ann, race))["state"] == (await _result(bob, race))["state"] == "held"
    assert not await pool.ratings.clear(race, clock())  # refused: nothing left to clear
    await pool.aftermath.rate_race(*(await races.load_with_seats(race) or ()))  # the aftermath again
    assert await rated_races(pool, ann.player) == await rated_races(pool, bob.player) == 0
    await seek(ann)  # and from now on, paired only with the flagged
    assert b"|flagged|" in await reviewed.ctx.redis.get(f"pool:p:{{{ann.player}}}")


async def test_a_result_held_on_another_board_flags_the_player_for_the_pool(
    reviewed: RunningServer, clock: MovableClock, clients: list[Client]
) -> None:
    """A ranked lobby race (not a quick one) whose result the knowledge review holds: its player is flagged,
    and seeks in the flagged queue."""
    pool, races = services(reviewed)
    ann = await member(reviewed, clients)
    view = await new_race(ann, name="Ann", seats=1, ranked=True)
    race = view["race"]
    assert view["ranked"]
    await ann.send({"t": "race_start", "race": race})
    started = await ann.expect("race", T, where=lambda m: m["race"] == race and m["starts_at"])
    await clock.advance_to(started["starts_at"])
    state = await seat_state(ann, race, 1)
    assert await play_out(ann, race, state, 100) >= 100 + SHORT
    await ann.expect("race", T, where=lambda m: m["race"] == race and m["phase"] == "finished")
    record = await record_of(races, race, str(ann.player))
    assert not await pool.ratings.flagged(str(ann.player))
    await races.reviews.settle(record, Outcome(50.0, 12, True, 0.1))
    assert await pool.ratings.flagged(str(ann.player))
    await seek(ann)
    assert b"|flagged|" in await reviewed.ctx.redis.get(f"pool:p:{{{ann.player}}}")


async def test_a_racer_who_closes_the_tab_after_the_start_resigns_after_the_grace_and_is_rated_so(
    reviewed: RunningServer, clock: MovableClock, clients: list[Client]
) -> None:
    pool, races = services(reviewed)
    ann, bob = await member(reviewed, clients), await member(reviewed, clients)
    race = await quick_race(reviewed, str(ann.player), str(bob.player))
    mine = await race_of(ann, race.id)
    view = await race_of(bob, race.id)
    assert race.starts_at is not None
    await clock.advance_to(race.starts_at)
    await seat_state(bob, race.id, view["you"]["seat"])  # Bob has raced: a draw
    state = await seat_state(ann, race.id, mine["you"]["seat"])  # Ann too
    await bob.close()
    grace = races.settings.lobby_grace_s
    await clock.advance(grace / 2)  # within the grace: still racing (he may come back)
    loaded = await races.load(race.id)
    assert loaded is not None and loaded.racer(str(bob.player)).status == "playing"  # type: ignore[union-attr]
    await clock.advance(grace / 2 + 0.1)
    resigned = await ann.expect(
        "race",
        T,
        where=lambda m: any(r["player"] == bob.player and r["status"] == "resigned" for r in m["racers"]),
    )
    assert resigned["race"] == race.id
    await play_out(ann, race.id, state, 100)  # Ann plays her game out: the race ends
    await ann.expect("race", T, where=lambda m: m["race"] == race.id and m["phase"] == "finished")
    record = await record_of(races, race.id, str(ann.player))
    assert await verdict(reviewed.ctx.redis, record.game) == "pending"  # near the top of its fresh board
    await races.reviews.settle(record, Outcome(0.0, 12, True, 0.1))  # cleared, as a worker would
    got = await _result(ann, race.id)
    assert got["state"] == "rated" and got["delta"] > 0
    history = await pool.ratings.history(str(bob.player), "easy")
    assert [p["race"] for p in history] == [race.id] and history[0]["delta"] < 0


async def test_a_verdict_no_instance_heard_is_found_by_the_sweep(
    reviewed: RunningServer, clock: MovableClock, clients: list[Client]
) -> None:
    """The instance that ran a knowledge review died after writing its verdict, before telling the pool: a
    wave's leader finds the verdict (``sweep_held``) and applies the held change, once."""
    pool, races = services(reviewed)
    race, ann, _bob = await played_and_resigned(reviewed, clock, clients)
    record = await record_of(races, race, str(ann.player))
    assert race in await pool.ratings.waiting(1000)
    await pool.aftermath.sweep_held()  # no verdict yet: still held, at the back of the line
    assert await pool.ratings.held(race) and race in await pool.ratings.waiting(1000)
    await reviewed.ctx.redis.set(verdict_key(record.game), "clear")  # the verdict alone, no hook ran
    await pool.aftermath.sweep_held()
    await pool.aftermath.sweep_held()
    assert (await _result(ann, race))["state"] == "rated"
    assert await rated_races(pool, ann.player) == 1
    assert race not in await pool.ratings.waiting(1000)
