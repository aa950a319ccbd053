"""A racer gets the other racers' progress coalesced (``races.progress_lines.ProgressLines``): at most one
line a seat per ``progress_interval_ms``, the latest state always (a trailing send), and a racer's end and the
race's own news at once. Over real websockets and a real Redis."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest

from golfrace.engine import Draw, Tap, parse_token
from golfrace.races.followers import RaceWire
from golfrace.races.presence import presence_key
from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from .helpers import stuck_line, won_deal
from .test_peek import move
from .test_wire import T, join, new_race, open_seat

pytestmark = pytest.mark.timeout(60)

LONG_MS = 60_000
"""An interval no test waits out: a line that comes is not the trailing send."""
SHORT_MS = 300


@pytest.fixture(params=[LONG_MS], ids=["interval"])
async def server(settings: Settings, request: pytest.FixtureRequest) -> AsyncIterator[RunningServer]:
    """No countdown, no par search, progress lines at most every ``request.param`` ms."""
    races = replace(settings.races, countdown_ms=0, solver_budget_s=0, progress_interval_ms=request.param)
    async with running_server(settings.with_(races=races)) as running:
        yield running


async def two_racers(make_client: Any, code: str) -> tuple[Client, Client, str]:
    """Ann and Bob in a running race on ``code``, each with their seat open (Ann seat 1, Bob seat 2)."""
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann", seats=2, code=code))["race"]
    await join(bob, rid, name="Bob")
    await ann.send({"t": "race_start", "race": rid})
    for c in (ann, bob):
        await c.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "running")
    await open_seat(ann, rid, 1)
    await open_seat(bob, rid, 2)
    return ann, bob, rid


def lines_of(seat: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("t") == "race_progress" and m["racer"]["seat"] == seat


def inbox(client: Client, where: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    return [m for m in client._inbox if where(m)]


async def test_lines_within_an_interval_wait_and_a_racers_end_comes_at_once_with_the_latest_state(
    server: RunningServer, make_client: Any
) -> None:
    code, _ = won_deal()
    line = stuck_line(code)
    assert len(line) > 4, line
    ann, bob, rid = await two_racers(make_client, code)
    bob_game = f"{rid}-2"

    # the first line after a quiet spell comes at once
    await move(bob, bob_game, 1, _act(line[0]))
    first = await ann.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 2)
    assert first["racer"]["moves"] == 1 and first["racer"]["status"] == "playing", first

    # more moves within the interval: acked to Bob at once, nothing to Ann yet (her ping's answer came later)
    for seq in range(2, len(line)):
        await move(bob, bob_game, seq, _act(line[seq - 1]))
    await ann.ping()
    assert inbox(ann, lines_of(2)) == [], inbox(ann, lines_of(2))

    # Bob's last move ends his game (stuck): Ann gets it at once, long before the interval is up, with the
    # final state; the lines it replaced never come
    await move(bob, bob_game, len(line), _act(line[-1]))
    end = await ann.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 2)
    assert end["racer"]["status"] != "playing" and end["racer"]["moves"] == len(line), end
    await ann.ping()
    assert inbox(ann, lines_of(2)) == [], inbox(ann, lines_of(2))


async def test_a_race_event_comes_after_the_lines_it_follows(server: RunningServer, make_client: Any) -> None:
    code, _ = won_deal()
    ann, bob, rid = await two_racers(make_client, code)
    bob_game = f"{rid}-2"
    for seq in (1, 2, 3):
        await move(bob, bob_game, seq, {"a": "draw"})
    await ann.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 2 and m["racer"]["moves"] == 1)
    # Bob resigns (a race event): Ann's waiting line (3 moves) comes first, then the race
    await bob.send({"t": "race_resign", "race": rid})
    news = await ann.expect(
        "race", T, where=lambda m: m["race"] == rid and m["racers"][1]["status"] == "resigned"
    )
    assert news["racers"][1]["moves"] == 3, news
    lines = inbox(ann, lines_of(2))
    assert [m["racer"]["moves"] for m in lines] == [3], lines


@pytest.mark.parametrize("server", [SHORT_MS], indirect=True, ids=["short"])
async def test_at_most_one_line_an_interval_and_always_the_last(
    server: RunningServer, make_client: Any
) -> None:
    code, _ = won_deal()
    ann, bob, rid = await two_racers(make_client, code)
    bob_game = f"{rid}-2"
    moves = 8
    began = time.monotonic()
    for seq in range(1, moves + 1):
        await move(bob, bob_game, seq, {"a": "draw"})
    burst_s = time.monotonic() - began
    # the trailing send: the last state arrives without another move
    last = await ann.expect(
        "race_progress", T, where=lambda m: m["racer"]["seat"] == 2 and m["racer"]["moves"] == moves
    )
    assert last["racer"]["stock_count"] == 16 - moves, last
    lines = [*inbox(ann, lines_of(2)), last]
    # the first at once, then one an interval at most while the moves went on, then the trailing one
    assert len(lines) <= 1 + math.ceil(burst_s * 1000 / SHORT_MS) + 1, (lines, burst_s)
    assert [m["racer"]["moves"] for m in lines] == sorted({m["racer"]["moves"] for m in lines}), lines
    # Bob's own board is never delayed: every move's diff came with its ack (``move`` waited for the ack)
    for v in range(1, moves + 1):
        await bob.expect("diff", T, where=lambda m, v=v: m["game"] == bob_game and m["v"] == v)


def _act(tok: str) -> dict[str, Any]:
    """A move token (``d``, ``N``: the engine's) as an ``act`` message's fields."""
    action = parse_token(tok)
    if isinstance(action, Draw):
        return {"a": "draw"}
    assert isinstance(action, Tap) and action.row is None, tok
    return {"a": "tap", "col": action.column}


@pytest.fixture
async def quick_sweep(settings: Settings) -> AsyncIterator[RunningServer]:
    """Presence stamps re-stamped every 0.2 s (the sweeper's round), no countdown."""
    races = replace(settings.races, countdown_ms=0, solver_budget_s=0, watcher_refresh_s=0.2)
    async with running_server(settings.with_(races=races)) as running:
        yield running


async def test_only_lobbies_have_their_racers_presence_restamped(quick_sweep: RunningServer) -> None:
    """A connection keeps every race it joined; presence matters to lobbies only (``lobby.py``), so a race
    that has started is not re-stamped each round while a lobby beside it is."""
    service = quick_sweep.ctx.get(RaceWire).service
    redis = service.presence.redis
    ann, bob = Client(quick_sweep.ws), Client(quick_sweep.ws)
    try:
        for c in (ann, bob):
            await c.connect()
            await c.hello()
        started = (await new_race(ann, name="Ann", seats=2))["race"]
        await join(bob, started, name="Bob")
        await ann.send({"t": "race_start", "race": started})
        await ann.expect("race", T, where=lambda m: m["race"] == started and m["phase"] == "running")
        await ann.send({"t": "race_new", "name": "Ann", "seats": 2, "rid": "lobby"})
        lobby = (await ann.expect("race", T, where=lambda m: m.get("rid") == "lobby"))["race"]
        assert lobby != started

        async def stamps() -> tuple[bytes | None, bytes | None]:
            a = await redis.hgetall(presence_key(started))
            b = await redis.hgetall(presence_key(lobby))
            return _ann_stamp(a, ann.player), _ann_stamp(b, ann.player)

        async def next_round(lobby_was: bytes | None) -> tuple[bytes | None, bytes | None]:
            """Until the lobby's stamp moves on (a sweeper round re-stamped it): the positive marker."""
            deadline = asyncio.get_running_loop().time() + T
            while asyncio.get_running_loop().time() < deadline:
                now = await stamps()
                if now[1] is not None and now[1] != lobby_was:
                    return now
                await asyncio.sleep(0.05)
            raise TimeoutError(f"the lobby's presence stamp was not renewed: {now}")

        first = await next_round((await stamps())[1])
        second = await next_round(first[1])
        third = await next_round(second[1])
        assert first[0] is not None and first[0] == second[0] == third[0], (first, second, third)
    finally:
        await ann.close()
        await bob.close()


def _ann_stamp(shares: dict[bytes, bytes], player: str | None) -> bytes | None:
    found = [v for k, v in shares.items() if k.decode().startswith(f"{player}|")]
    return found[0] if found else None
