"""Fair play in races and the daily challenge (issue 11.3, 11.5, 11.7, and 11.8's empty lobbies), over real
websockets and a real Redis: one ranked daily attempt however many tabs ask at once, its code hidden from its
own player until it ends, the grace after the day, a draw that stays drawn, and results no human can produce
kept off the boards."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from golfrace.engine import GameCode
from golfrace.races.daily import day_start_ms
from golfrace.races.followers import RaceWire
from golfrace.races.leaderboard import code_board, daily_board
from golfrace.races.storage import race_key
from golfrace.settings import Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock as Clock
from ..own_server import own_server
from .test_wire import T, act, apply_diff, greedy, join, new_race, open_seat, start, wait_start

DAY = date(2031, 5, 20)
HOUR_MS = 3_600_000
REVIEW_T = 60.0
"""Seconds a result near the top of a board may wait for its knowledge review (a worker process starts)."""


async def settled(probe: Callable[[], Awaitable[Any]], timeout: float = T) -> Any:
    """``await probe()`` once it is not None: a race's results are stored just after its end is published."""
    deadline = time.monotonic() + timeout
    while (value := await probe()) is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing from {probe} within {timeout} s")
        await asyncio.sleep(0.02)
    return value


async def tabs(server: RunningServer, token: str | None, n: int, made: list[Client]) -> list[Client]:
    out = []
    for _ in range(n):
        client = Client(server.ws, token=token, name="Dee")
        made.append(client)
        await client.start(T)
        token = client.token
        out.append(client)
    return out


async def account(server: RunningServer, client: Client) -> None:
    """Make the client's player a signed-in account (its connection says hello again with a live session):
    public boards take accounts only, a ranked race seats accounts only, and only an account's daily attempt
    deals the day's deal (fair play 19.1, 19.2)."""
    await sign_in_client(server.ctx.redis, client)  # type: ignore[union-attr]


@pytest.fixture
async def made() -> Any:
    clients: list[Client] = []
    yield clients
    for client in clients:
        await client.close()


async def attempt(client: Client) -> dict[str, Any]:
    return await client.expect("race", T, where=lambda m: m.get("daily") is not None)


async def resign(client: Client, rid: str) -> dict[str, Any]:
    await client.send({"t": "race_resign", "race": rid})
    return await client.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")


async def play(
    client: Client,
    rid: str,
    state: dict[str, Any],
    moves: int,
    pace_s: float = 0.0,
    clock: Clock | None = None,
) -> int:
    """Greedy moves as the racer sees them (``pace_s`` of ``clock``'s time apart), at most ``moves``; returns
    how many."""
    state = json.loads(json.dumps(state))
    for seq in range(1, moves + 1):
        move = greedy(state)
        if move is None or state["status"] != "playing":
            return seq - 1
        answer = await act(client, rid, seq, move)
        assert answer["t"] == "ack", answer
        apply_diff(state, await client.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v))
        if pace_s and clock is not None:
            await clock.advance(pace_s)  # a human's pace between moves, on the server's clock
    return moves


# --- 11.5: one ranked daily attempt, atomically ------------------------------------------------------------
async def test_eight_tabs_asking_at_once_get_one_ranked_attempt_and_no_practice(
    clocked: RunningServer, clock: Clock, made: list[Client]
) -> None:
    server = clocked
    clock.set(day_start_ms(DAY) + 12 * HOUR_MS)
    service = server.ctx.get(RaceWire).service
    await asyncio.wait_for(service.daily.code(DAY), 60)  # chosen once by the solver, before the rush
    eight = await tabs(server, None, 8, made)
    assert len({c.player for c in eight}) == 1
    session = await sign_in_client(server.ctx.redis, eight[0])  # type: ignore[union-attr]
    for tab in eight[1:]:  # every tab the account's (only an account is dealt the day's deal, 19.1)
        await tab.send({"t": "hello", "token": tab.token, "session": session})
        await tab.expect("welcome", T, where=lambda m: m.get("account") is not None)
    await asyncio.gather(*(c.send({"t": "daily_play", "name": "Dee"}) for c in eight))
    views = await asyncio.gather(*(attempt(c) for c in eight))
    assert {v["race"] for v in views} == {views[0]["race"]}  # one attempt for every tab
    assert all(v["ranked"] for v in views)
    assert await service.daily.first_game(DAY, eight[0].player) == f"{views[0]['race']}-1"
    # a ninth ask while it runs is the same attempt; only once it has ended is there practice
    await eight[3].send({"t": "daily_play"})
    assert (await attempt(eight[3]))["race"] == views[0]["race"]
    await resign(eight[0], views[0]["race"])
    await eight[5].send({"t": "daily_play"})
    practice = await eight[5].expect("race", T, where=lambda m: m["race"] != views[0]["race"])
    assert practice["daily"] == DAY.isoformat() and not practice["ranked"]


async def test_the_daily_code_stays_hidden_from_its_player_past_midnight_until_the_attempt_ends(
    clocked: RunningServer, clock: Clock, made: list[Client]
) -> None:
    server = clocked
    day = DAY + timedelta(days=1)
    clock.set(day_start_ms(day) + 24 * HOUR_MS - 2_000)  # 23:59:58 UTC
    [dee] = await tabs(server, None, 1, made)
    await account(server, dee)
    await dee.send({"t": "daily_play"})
    first = await attempt(dee)
    assert first["ranked"] and first["code"] is None and first["phase"] == "countdown"
    await open_seat(dee, first["race"], 1)
    clock.set(day_start_ms(day) + 24 * HOUR_MS + 1_000)  # 00:00:01: the day is over, the attempt is not
    await dee.send({"t": "race_join", "race": first["race"]})  # the racer's own view, as after a reconnect
    again = await dee.expect("race", T, where=lambda m: m["race"] == first["race"])
    assert again["phase"] != "finished" and again["code"] is None
    game = await open_seat(dee, first["race"], 1)
    assert game["state"]["code"] is None
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:  # anyone else's view
        assert (await http.get(f"/api/races/{first['race']}")).json()["code"] is None
    done = await resign(dee, first["race"])
    assert done["code"] is None  # other attempts of the day may still count (the grace after midnight)
    clock.set(day_start_ms(day) + 24 * HOUR_MS + 600_000)  # the grace is over: no attempt of it counts now
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        shown = (await http.get(f"/api/races/{first['race']}")).json()["code"]
    assert shown is not None and shown.startswith("GO1-E-") and len(shown) == 32


@pytest.mark.parametrize(("ends_after_midnight_s", "counts"), [(60, True), (601, False)])
async def test_an_attempt_counts_for_its_day_only_within_the_grace(
    clocked: RunningServer,
    clock: Clock,
    made: list[Client],
    ends_after_midnight_s: int,
    counts: bool,
) -> None:
    server = clocked
    day = DAY + timedelta(days=2 if counts else 3)
    clock.set(day_start_ms(day) + 24 * HOUR_MS - 10_000)
    [dee] = await tabs(server, None, 1, made)
    await account(server, dee)
    await dee.send({"t": "daily_play"})
    rid = (await attempt(dee))["race"]
    clock.set(day_start_ms(day) + 24 * HOUR_MS + ends_after_midnight_s * 1000)  # grace: 600 s
    await resign(dee, rid)
    service = server.ctx.get(RaceWire).service
    assert dee.player is not None
    result = await settled(lambda: service.daily.result(day, dee.player))
    assert result.get("late", False) is not counts

    async def finalized() -> bool | None:  # the end's aftermath (the streak after the result) is done
        race = await service.storage.read_race(rid)  # the record alone: reading it settles nothing
        return True if race is not None and race.finalized else None

    await settled(finalized)
    assert (await service.daily.streak(dee.player)).count == (1 if counts else 0)
    total, _ = await service.boards.page(daily_board(day.isoformat()), 0, 10)
    assert total == (1 if counts else 0)


# --- 11.3: a draw is final in ranked play -----------------------------------------------------------------
async def test_a_ranked_race_deals_a_long_code_and_refuses_to_undo_a_draw_and_a_casual_one_does_neither(
    server: RunningServer, server_clock: Clock, made: list[Client]
) -> None:
    [ann] = await tabs(server, None, 1, made)
    await account(server, ann)  # a ranked race seats accounts only (19.2)
    seen: set[str] = set()
    for typed, refused in ((None, "draw_final"), ("GO1-E-AAAAAAB", None)):
        await ann.send({"t": "race_new", "seats": 1, **({"code": typed} if typed else {})})
        lobby = await ann.expect("race", T, where=lambda m: m["race"] not in seen)
        rid = lobby["race"]
        seen.add(rid)
        assert lobby["ranked"] is (typed is None)
        view = await start(ann, rid)
        await open_seat(ann, rid, 1)
        await wait_start(view, server_clock)
        assert (await act(ann, rid, 1, {"a": "draw"}))["t"] == "ack"
        diff = await ann.expect("diff", T, where=lambda m, r=rid: m["game"] == f"{r}-1" and m["v"] == 1)
        assert diff["can_undo"] is (refused is None)
        undo = await act(ann, rid, 2, {"a": "undo"})
        if refused:
            assert undo["t"] == "refused" and undo["code"] == "draw_final", undo
        else:
            assert undo["t"] == "ack", undo
        final = await resign(ann, rid)
        # 11.1: a random ranked race deals a long code (26 letters); a typed one keeps its code
        code = GameCode.parse(final["code"])
        assert code.long if typed is None else str(code) == typed


# --- 11.8: lobbies without racers are deleted --------------------------------------------------------------
async def test_a_lobby_whose_last_racer_leaves_is_deleted(server: RunningServer, made: list[Client]) -> None:
    ann, bob = await tabs(server, None, 1, made) + await tabs(server, None, 1, made)
    rid = (await new_race(ann, seats=2))["race"]
    await join(bob, rid)
    redis = server.ctx.redis  # type: ignore[union-attr]
    await ann.send({"t": "race_leave", "race": rid})
    gone = str(ann.player)
    await bob.expect("race", T, where=lambda m: m["race"] == rid and gone not in str(m["racers"]))
    assert await redis.exists(race_key(rid))  # Bob is still in it
    await bob.send({"t": "race_leave", "race": rid})

    async def deleted() -> bool | None:
        return True if not await redis.exists(race_key(rid)) else None

    await settled(deleted)
    await ann.send({"t": "race_join", "race": rid})
    assert (await ann.expect("error", T))["code"] == "race_not_found"


# --- 11.7: humanly possible results only --------------------------------------------------------------------
@pytest.fixture
async def checked(settings: Settings, clock: Clock, tmp_path: Path) -> Any:
    """A server of its own with the real timing check (the shared one switches it off for fast test bots),
    on 10 moves so that a short greedy game is enough."""
    races = replace(settings.races, review_min_moves=10)
    async with own_server(settings, tmp_path / "redis", clock, races=races) as running:
        yield running


async def ranked_solo(client: Client, clock: Clock, moves: int, pace_s: float) -> tuple[str, int]:
    lobby = await new_race(client, seats=1)
    rid = lobby["race"]
    view = await start(client, rid)
    game = await open_seat(client, rid, 1)
    await wait_start(view, clock)
    if pace_s:
        await clock.advance(max(pace_s, 0.5))  # a person looks at the board before the first move
    played = await play(client, rid, game["state"], moves, pace_s, clock)
    if played == moves:
        await resign(client, rid)
    else:
        await client.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    return rid, played


async def held_or_none(service: Any, board: str) -> dict[str, Any] | None:
    return await service.boards.held_for_review(board) or None


async def board_or_none(service: Any, board: str) -> list[dict[str, Any]] | None:
    total, entries = await service.boards.page(board, 0, 10)
    return entries if total else None


async def test_a_bot_playing_faster_than_a_human_is_kept_for_review_off_the_boards(
    checked: RunningServer, clock: Clock, made: list[Client]
) -> None:
    [bot] = await tabs(checked, None, 1, made)
    await account(checked, bot)
    rid, played = await ranked_solo(bot, clock, 12, 0.0)
    assert played >= 10, "greedy play ended before the check applies"
    service = checked.ctx.get(RaceWire).service
    race = await service.load(rid)
    board = code_board(race.code)
    held = await settled(lambda: held_or_none(service, board))
    assert (await service.boards.page(board, 0, 10))[0] == 0
    assert (await service.boards.page(f"pb:{bot.player}", 0, 10))[0] == 0
    assert held[bot.player]["review"] == "too_fast" and held[bot.player]["game"] == f"{rid}-1"
    async with httpx.AsyncClient(base_url=checked.http, timeout=T) as http:
        record = (await http.get(f"/api/games/{rid}-1")).json()
    assert record["review"] == "too_fast" and record["ranked"]  # the player is told, and the move log kept


async def test_a_human_pace_goes_on_the_board(
    checked: RunningServer, clock: Clock, made: list[Client]
) -> None:
    [human] = await tabs(checked, None, 1, made)
    await account(checked, human)
    rid, played = await ranked_solo(human, clock, 11, 0.25)
    assert played >= 10
    service = checked.ctx.get(RaceWire).service
    race = await service.load(rid)
    entries = await settled(lambda: board_or_none(service, code_board(race.code)), REVIEW_T)
    assert len(entries) == 1 and entries[0]["player"] == human.player
    assert await service.boards.held_for_review(code_board(race.code)) == {}


async def test_a_too_fast_daily_attempt_is_told_and_counts_for_nothing(
    checked: RunningServer, clock: Clock, made: list[Client]
) -> None:
    day = DAY + timedelta(days=5)
    clock.set(day_start_ms(day) + 12 * HOUR_MS)
    [bot] = await tabs(checked, None, 1, made)
    await account(checked, bot)
    await bot.send({"t": "daily_play"})
    first = await attempt(bot)
    rid = first["race"]
    game = await open_seat(bot, rid, 1)
    await wait_start(first, clock)
    played = await play(bot, rid, game["state"], 12)
    assert played >= 10
    if played == 12:
        await resign(bot, rid)
    service = checked.ctx.get(RaceWire).service
    await settled(lambda: service.daily.result(day, bot.player))
    await bot.send({"t": "daily"})
    status = await bot.expect("daily", T)
    assert status["result"]["review"] == "too_fast" and status["streak"] == 0
    assert (await service.boards.page(daily_board(day.isoformat()), 0, 10))[0] == 0
