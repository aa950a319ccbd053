"""Races across two server instances on one Redis (two processes, or two apps of this process on one test
clock): racers and a watcher on different instances, and a time limit or an idle racer's forfeit that still
ends the race when the instance that started it is gone."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from golfrace.races.presence import live_watchers, watchers_key
from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server, start_process, stop_process

from ..clock import MovableClock
from ..server.helpers import fail_once
from .test_wire import (
    T,
    act,
    apply_diff,
    greedy,
    join,
    new_race,
    open_seat,
    play_out,
    start,
    swept,
    until,
    wait_start,
)

pytestmark = pytest.mark.timeout(120)


LOBBY_GRACE_S = 0.5
STALE_MS = 1_500
WATCHER_TIMING = {
    "GOLFRACE_RACE_WATCHER_REFRESH_S": "0.3",
    "GOLFRACE_RACE_WATCHER_STALE_S": str(STALE_MS / 1000),
    "GOLFRACE_RACE_LOBBY_GRACE_S": str(LOBBY_GRACE_S),
}


IDLE_FORFEIT_S = 4  # longer than Ann needs to play a whole game, so the forfeit comes after A is frozen


COUNTDOWN = {"GOLFRACE_RACE_COUNTDOWN_MS": "500"}  # processes keep real time: a short countdown, waited for


async def _pair(settings: Settings, tmp_path: Any, env: dict[str, str]) -> list[RunningServer]:
    env = {**COUNTDOWN, **env}
    return list(
        await asyncio.gather(
            *(
                asyncio.to_thread(start_process, settings.with_(port=0), env=env, log=tmp_path / f"{n}.log")
                for n in "ab"
            )
        )
    )


@pytest.fixture
async def instances(settings: Settings, tmp_path: Any) -> AsyncIterator[list[RunningServer]]:
    servers = await _pair(settings, tmp_path, WATCHER_TIMING)
    yield servers
    await asyncio.gather(*(asyncio.to_thread(stop_process, s) for s in servers))


@pytest.fixture
async def idle_instances(settings: Settings, tmp_path: Any) -> AsyncIterator[list[RunningServer]]:
    servers = await _pair(settings, tmp_path, {"GOLFRACE_RACE_IDLE_FORFEIT_S": str(IDLE_FORFEIT_S)})
    yield servers
    for server in servers:  # a frozen process must be thawed to stop
        if server.process is not None and server.process.poll() is None:
            os.kill(server.process.pid, signal.SIGCONT)
    await asyncio.gather(*(asyncio.to_thread(stop_process, s) for s in servers))


async def test_race_with_racers_and_a_watcher_on_two_instances(
    instances: list[RunningServer], make_client: Any
) -> None:
    a, b = instances
    ann = await make_client(a.ws, name="Ann")
    bob = await make_client(b.ws, name="Bob")
    eve = await make_client(b.ws, name="Eve")
    rid = (await new_race(ann, name="Ann"))["race"]
    assert [r["name"] for r in (await join(bob, rid, name="Bob"))["racers"]] == ["Ann", "Bob"]
    await ann.expect("race", T, where=lambda m: len(m["racers"]) == 2)  # Bob's join, seen on A
    await eve.send({"t": "watch", "race": rid})
    await eve.expect("race_watch", T)
    assert (await ann.expect("watchers", T))["n"] == 1  # a watcher on B, counted on A

    view = await start(ann, rid, bob)
    ann_game = await open_seat(ann, rid, 1)
    bob_game = await open_seat(bob, rid, 2)
    await wait_start(view)

    # Bob (on B) makes two moves; Ann (on A) sees his progress, Eve (on B) his board
    state_b = json.loads(json.dumps(bob_game["state"]))
    for seq in (1, 2):
        move = greedy(state_b)
        assert move is not None
        assert (await act(bob, rid, seq, move))["t"] == "ack"
        apply_diff(state_b, await bob.expect("diff", T, where=lambda m, v=seq: m["v"] == v))
    await ann.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 2 and m["racer"]["moves"] == 2)
    await eve.expect("race_board", T, where=lambda m: m["board"]["seat"] == 2 and m["board"]["moves"] == 2)

    await bob.send({"t": "race_resign", "race": rid})
    await play_out(ann, rid, ann_game["state"], 0)
    finals = [await c.expect("race", T, where=lambda m: m["phase"] == "finished") for c in (ann, bob, eve)]
    assert all(f["results"] == finals[0]["results"] for f in finals)
    results = {r["player"]: r for r in finals[0]["results"]}
    assert set(results) == {ann.player, bob.player}
    assert results[bob.player]["status"] == "resigned" and results[bob.player]["moves"] == 2
    assert results[ann.player]["status"] in ("won", "stuck")
    # Eve saw Ann's moves (made on A) on B, each once, in order
    ann_moves = [
        f["board"]["moves"] for f in eve.frames if f.get("t") == "race_board" and f["board"]["seat"] == 1
    ]
    # (a race change, Bob's resignation here, shows the boards again: the same board twice is no new move)
    assert ann_moves == sorted(ann_moves), ann_moves
    assert sorted(set(ann_moves)) == list(range(1, results[ann.player]["moves"] + 1)), ann_moves


async def ann_on_a_bob_on_b(
    a: RunningServer, b: RunningServer, make_client: Any, **options: Any
) -> tuple[Client, Client, str, dict[str, Any]]:
    """Ann hosts a race on A, Bob joins it on B, Ann starts it: (ann, bob, race id, Ann's countdown view)."""
    ann = await make_client(a.ws, name="Ann")
    bob = await make_client(b.ws, name="Bob")
    rid = (await new_race(ann, name="Ann", **options))["race"]
    await join(bob, rid, name="Bob")
    return ann, bob, rid, await start(ann, rid, bob)


async def test_time_limit_ends_the_race_when_the_starting_instance_is_gone(
    instances: list[RunningServer], make_client: Any
) -> None:
    a, b = instances
    _ann, bob, _rid, view = await ann_on_a_bob_on_b(a, b, make_client, limit=1, undo=False)
    await asyncio.to_thread(stop_process, a)  # the instance that started the race, and its timer, go away
    await wait_start(view)  # nobody moves: only a timer on B can end the race
    done = await bob.expect("race", T, where=lambda m: m["phase"] == "finished")
    assert done["ended_at"] == view["deadline"]
    assert {r["status"] for r in done["results"]} == {"timeout"}


def test_watcher_shares_count_only_while_stamped() -> None:
    shares = {b"i1": b"2:10000", b"i2": b"3:8500", b"i3": b"4:8499", b"i4": b"junk", b"i5": b"-1:10000"}
    assert live_watchers(shares, now=10_000, stale_ms=1_500) == 5  # i3 is stale, i4 unreadable, i5 none
    assert live_watchers({}, now=10_000, stale_ms=1_500) == 0


async def restamped_past_stale(redis_url: str, rid: str) -> None:
    """Until both instances re-stamped their watcher share twice once its first stamp was stale: a refresh
    round that ran past the stale time has published whatever total it found (the rounds run in turn)."""
    redis = aioredis.from_url(redis_url)
    stamps: dict[bytes, set[int]] = {}  # each instance's share: the stamps seen, the first one included

    def late(field: bytes) -> int:
        return sum(1 for stamp in stamps[field] if stamp > min(stamps[field]) + STALE_MS)

    try:
        deadline = asyncio.get_running_loop().time() + T
        while len(stamps) < 2 or any(late(field) < 2 for field in stamps):
            assert asyncio.get_running_loop().time() < deadline, f"the shares were not re-stamped: {stamps}"
            for field, raw in (await redis.hgetall(watchers_key(rid))).items():
                stamps.setdefault(field, set()).add(int(raw.decode().partition(":")[2]))
            await asyncio.sleep(0.02)
    finally:
        await redis.aclose()


async def test_watchers_of_a_dead_instance_stop_counting(
    instances: list[RunningServer], make_client: Any, redis_url: str
) -> None:
    a, b = instances
    ann = await make_client(b.ws, name="Ann")
    eve = await make_client(a.ws, name="Eve")
    zed = await make_client(b.ws, name="Zed")
    rid = (await new_race(ann, name="Ann"))["race"]
    for watcher in (eve, zed):
        await watcher.send({"t": "watch", "race": rid})
        await watcher.expect("race_watch", T)
    await ann.expect("watchers", T, where=lambda m: m["n"] == 2)
    await restamped_past_stale(redis_url, rid)  # the live shares were re-stamped: they still count
    async with httpx.AsyncClient(timeout=T) as http:
        for server in (a, b):
            assert (await http.get(f"{server.http}/api/races/{rid}")).json()["watchers"] == 2
    bob = await make_client(b.ws, name="Bob")
    await join(bob, rid, name="Bob")  # an event after any total B published meanwhile, on the same channel
    await ann.expect("race", T, where=lambda m: m["race"] == rid and len(m["racers"]) == 2)
    assert [m["n"] for m in ann.frames if m.get("t") == "watchers"][-1] == 2
    assert a.process is not None
    a.process.kill()  # Eve's instance dies without a word: no one says her watching ended
    gone = await ann.expect("watchers", T, where=lambda m: m["n"] == 1)
    assert gone["race"] == rid
    await zed.send({"t": "unwatch", "race": rid})
    await ann.expect("watchers", T, where=lambda m: m["n"] == 0)


async def test_race_events_missed_during_a_pubsub_reconnect_are_caught_up(
    settings: Settings, make_client: Any
) -> None:
    async with running_server(settings.with_(port=0)) as a, running_server(settings.with_(port=0)) as b:
        ann = await make_client(a.ws, name="Ann")
        bob = await make_client(a.ws, name="Bob")
        eve = await make_client(b.ws, name="Eve")
        rid = (await new_race(ann, name="Ann"))["race"]
        await eve.send({"t": "watch", "race": rid})
        await eve.expect("race_watch", T)
        hub = b.ctx.hub
        reconnect = hub.side.link.read_reconnecting
        slow = {"first": True}
        published = asyncio.Event()

        async def slow_reconnect(*args: Any, **kwargs: Any) -> Any:
            if slow["first"]:
                slow["first"] = False
                await asyncio.wait_for(published.wait(), T)  # B stays away from its channels until then
            return await reconnect(*args, **kwargs)

        hub.side.link.read_reconnecting = slow_reconnect
        await a.ctx.redis.execute_command("CLIENT", "KILL", "ADDR", hub.side.link.local_address())
        await until(lambda: not slow["first"], "B lost its subscriber connection and reconnects (slowly)")
        await join(bob, rid, name="Bob")  # published while B is not subscribed
        published.set()
        caught_up = await eve.expect(None, T, where=lambda m: len(m.get("racers", ())) == 2)
        assert not slow["first"] and caught_up["t"] == "race_watch" and caught_up["race"] == rid


async def test_a_watch_whose_subscription_failed_can_be_tried_again(
    settings: Settings, make_client: Any
) -> None:
    async with running_server(settings.with_(port=0)) as a, running_server(settings.with_(port=0)) as b:
        ann = await make_client(a.ws, name="Ann")
        bob = await make_client(a.ws, name="Bob")
        eve = await make_client(b.ws, name="Eve")
        rid = (await new_race(ann, name="Ann"))["race"]
        await b.ctx.redis.set(f"race:{{{rid}}}:w", "3")  # a counter left by an older server: ignored
        fail_once(b.ctx.hub.side.link, "subscribe", RedisConnectionError("a blip"))
        await eve.send({"t": "watch", "race": rid})
        assert (await eve.expect("error", T))["code"] == "unavailable"
        await eve.send({"t": "watch", "race": rid})  # tried again: really subscribed, counted once
        assert (await eve.expect("race_watch", T))["race"] == rid
        assert (await ann.expect("watchers", T))["n"] == 1
        await join(bob, rid, name="Bob")
        await eve.expect("race", T, where=lambda m: len(m["racers"]) == 2)
        await eve.send({"t": "unwatch", "race": rid})
        assert (await ann.expect("watchers", T, where=lambda m: m["n"] != 1))["n"] == 0


async def test_an_idle_racer_is_out_even_when_the_instance_that_saw_the_finish_is_frozen(
    idle_instances: list[RunningServer], make_client: Any
) -> None:
    a, b = idle_instances
    ann, bob, rid, view = await ann_on_a_bob_on_b(a, b, make_client)
    ann_game = await open_seat(ann, rid, 1)
    await wait_start(view)
    await play_out(ann, rid, ann_game["state"], 0)  # Ann finishes through A; Bob (on B) never moves
    assert a.process is not None
    os.kill(a.process.pid, signal.SIGSTOP)  # A's timer can no longer fire: only B's, armed by the event
    done = await bob.expect("race", T + IDLE_FORFEIT_S, where=lambda m: m["phase"] == "finished")
    results = {r["player"]: r for r in done["results"]}
    assert results[ann.player]["status"] in ("won", "stuck")
    assert results[bob.player]["status"] == "abandoned" and results[bob.player]["moves"] == 0
    assert done["ended_at"] >= view["starts_at"] + IDLE_FORFEIT_S * 1000


async def test_a_lobby_racer_with_a_tab_on_each_instance_stays_until_both_are_closed(
    settings: Settings, make_client: Any
) -> None:
    clock = MovableClock()  # two instances in this process on one clock that the test moves
    races = replace(settings.races, lobby_grace_s=5.0)  # well within watcher_stale_s: the stamps stay fresh
    own = settings.with_(port=0, races=races)
    async with running_server(own, clock=clock) as a, running_server(own, clock=clock) as b:
        ann = await make_client(a.ws, name="Ann")
        bob_a = await make_client(a.ws, name="Bob")
        rid = (await new_race(ann, name="Ann"))["race"]
        await join(bob_a, rid, name="Bob")
        bob_b = await make_client(b.ws, token=bob_a.token)  # Bob's second tab, on the other instance
        await join(bob_b, rid)
        sweep = races.sweep_interval_s  # the sweepers sleep this long on the clock: not a grace timer
        await bob_a.close()  # A has no connection of Bob's left, but B has: he keeps his seat
        await swept(a, bob_a)
        await until(lambda: clock.sleeping(longer_than=sweep) == 1, "A's grace timer for Bob is armed")
        await clock.advance(races.lobby_grace_s + 1)  # A's timer has run: it found Bob present on B
        async with httpx.AsyncClient(base_url=a.http, timeout=T) as http:
            assert len((await http.get(f"/api/races/{rid}")).json()["racers"]) == 2
        await bob_b.close()
        await swept(b, bob_b)
        await until(lambda: clock.sleeping(longer_than=sweep) == 1, "B's grace timer for Bob is armed")
        await clock.advance(races.lobby_grace_s + 1)
        left = await ann.expect("race", T, where=lambda m: len(m["racers"]) == 1)
        assert left["racers"][0]["player"] == ann.player


async def test_a_lobby_racer_whose_instance_died_leaves_after_the_grace(
    instances: list[RunningServer], make_client: Any
) -> None:
    a, b = instances
    ann = await make_client(b.ws, name="Ann")
    bob = await make_client(a.ws, name="Bob")
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid, name="Bob")
    await ann.expect("race", T, where=lambda m: len(m["racers"]) == 2)
    assert a.process is not None
    a.process.kill()  # Bob's only connection dies with its instance: nobody there takes him out
    left = await ann.expect("race", T, where=lambda m: len(m["racers"]) == 1)
    assert left["racers"][0]["player"] == ann.player and left["host"] == ann.player


DEATH_GRACE_S = 6.0
DEATH_TIMING = {
    "GOLFRACE_RACE_WATCHER_REFRESH_S": "0.5",
    "GOLFRACE_RACE_WATCHER_STALE_S": "2",
    "GOLFRACE_RACE_LOBBY_GRACE_S": str(DEATH_GRACE_S),
}


@pytest.fixture
async def death_instances(settings: Settings, tmp_path: Any) -> AsyncIterator[list[RunningServer]]:
    servers = await _pair(settings, tmp_path, DEATH_TIMING)
    yield servers
    await asyncio.gather(*(asyncio.to_thread(stop_process, s) for s in servers))


async def test_a_lobby_racer_whose_instance_died_leaves_within_the_grace_of_its_death(
    death_instances: list[RunningServer], make_client: Any
) -> None:
    """Issue 20.18: the documented ``lobby_grace_s`` counts from the death (the racer's last presence stamp),
    not from when another instance first found that stamp stale (which came ``watcher_stale_s`` and a
    refresh later: 32–45 s with the defaults' 20 s grace)."""
    a, b = death_instances
    ann = await make_client(b.ws, name="Ann")
    bob = await make_client(a.ws, name="Bob")
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid, name="Bob")
    await ann.expect("race", T, where=lambda m: len(m["racers"]) == 2)
    assert a.process is not None
    loop = asyncio.get_running_loop()
    a.process.kill()
    died = loop.time()
    left = await ann.expect("race", T + DEATH_GRACE_S, where=lambda m: len(m["racers"]) == 1)
    took = loop.time() - died
    assert left["racers"][0]["player"] == ann.player
    assert took <= DEATH_GRACE_S + 0.5, f"Bob left {took:.1f} s after his instance died"
