"""A racer gets the other racers' progress coalesced (``races.followers.ProgressLines``): at most one line a
seat per ``progress_interval_ms``, the latest state always (a trailing send), and a racer's end and the
race's own news at once. Over real websockets and a real Redis."""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest

from golfrace.client import Client
from golfrace.engine import Draw, Tap, parse_token
from golfrace.settings import Settings
from golfrace.testing import RunningServer, running_server

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
    assert last["racer"]["stock"] == 16 - moves, last
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
