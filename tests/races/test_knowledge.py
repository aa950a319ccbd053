"""Issue 19.3 over real websockets and a real Redis: a stock-knowing win is held, an honest one goes on the
board after its knowledge review, and a result near the top is pending meanwhile.

The attacks of the issue: a client that knows the stock (scouted by a second identity: a seat of the same race
that drew the whole stock and resigned, or an earlier look at the day's deal) plays the solver's winning line
at 125 ms a move (5.7 s for 45 moves), or alternating 122 ms and instant gaps (3.1 s)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from golfrace.engine import Card, Draw, Game, GameCode, Rules, Status, Tap, parse_token, token
from golfrace.engine.deal import Deal
from golfrace.engine.solver import solve
from golfrace.races import knowledge
from golfrace.races.daily import day_start_ms
from golfrace.races.followers import RaceWire
from golfrace.races.leaderboard import code_board, daily_board
from golfrace.races.replay import GameRecord
from golfrace.settings import Settings
from golfrace.settings.races import RaceSettings
from golfrace.strategy import move_delay_ms
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..clock import MovableClock as Clock
from ..own_server import own_server
from .test_fair_play import DAY, HOUR_MS, REVIEW_T, account, attempt, settled, tabs
from .test_wire import T, act, apply_diff, greedy, join, new_race, open_seat, start, wait_start

FIVE_SEVEN = [125]
"""The gaps (ms, repeated) of the 5.7 s win."""
THREE_ONE = [122, 0]
"""The gaps of the 3.1 s win: every other move at once."""


@pytest.fixture
async def made() -> Any:
    clients: list[Client] = []
    yield clients
    for client in clients:
        await client.close()


@pytest.fixture
async def clocked(settings: Settings, clock: Clock, tmp_path: Path) -> Any:
    """A server of its own with the real review (the shared one switches it off for fast test bots), on a
    Redis of its own (its pending reviews are no other server's)."""
    races = replace(settings.races, review_min_moves=RaceSettings().review_min_moves)
    async with own_server(settings, tmp_path / "redis", clock, races=races) as running:
        yield running


def move_of(action: Tap | Draw) -> dict[str, Any]:
    return {"a": "draw"} if isinstance(action, Draw) else {"a": "tap", "col": action.column}


async def play_line(
    client: Client, rid: str, line: list[Tap | Draw], gaps: list[int], clock: Clock, start_ms: int
) -> None:
    """Play ``line``, move ``n`` at ``start_ms`` plus the first ``n`` of ``gaps`` (cycled, ms) on the server's
    clock, whatever the time the test itself takes."""
    at = start_ms
    for seq, action in enumerate(line, 1):
        at += gaps[(seq - 1) % len(gaps)]
        clock.set(at)
        answer = await act(client, rid, seq, move_of(action))
        assert answer["t"] == "ack", answer


def known_line(state: dict[str, Any], stock: list[str]) -> tuple[list[Tap | Draw], int]:
    """The solver's line for the table of ``state`` once the stock's order is known: a win when the deal has
    one (a random ranked deal may have none; the daily's always has), else the best score there is."""
    columns = tuple(tuple(Card.parse(c) for c in col) for col in state["columns"])
    discard = Card.parse(state["discard"])
    deal = Deal(GameCode(Rules(state["rules"]), 0), columns, discard, tuple(Card.parse(c) for c in stock))
    result = solve(Game(deal, (5,) * 7, 0, discard))
    return [a for a in result.line if isinstance(a, Tap | Draw)], result.par


async def scout_by_seat(scout: Client, rid: str) -> list[str]:
    """A second seat draws the whole stock at once and resigns: the shared stock, card by card."""
    snap = await open_seat(scout, rid, 2)
    cards = []
    for seq in range(1, snap["state"]["stock_count"] + 1):
        answer = await act(scout, rid, seq, {"a": "draw"})
        assert answer["t"] == "ack", answer
        diff = await scout.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v)
        cards.append(diff["drawn"])
    await scout.send({"t": "race_resign", "race": rid})
    return cards


@pytest.mark.parametrize("gaps", [FIVE_SEVEN, THREE_ONE], ids=["5.7s", "3.1s"])
async def test_the_seat_scout_race_win_is_held(
    clocked: RunningServer, clock: Clock, made: list[Client], gaps: list[int]
) -> None:
    host, scout = await tabs(clocked, None, 1, made) + await tabs(clocked, None, 1, made)
    await account(clocked, host)
    await account(clocked, scout)  # a second identity of the host's (an account: ranked seats take accounts)
    lobby = await new_race(host, seats=2)
    rid = lobby["race"]
    assert lobby["ranked"]
    await join(scout, rid)
    view = await start(host, rid, scout)
    mine = await open_seat(host, rid, 1)
    await wait_start(view, clock)
    stock = await scout_by_seat(scout, rid)
    line, par = known_line(mine["state"], stock)
    await play_line(host, rid, line, gaps, clock, view["starts_at"])
    await host.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    service = clocked.ctx.get(RaceWire).service
    race = await service.load(rid)
    board = code_board(race.code)
    held = await settled(lambda: held_or_none(service, board))
    assert held[host.player]["review"] == "too_fast" and held[host.player]["score"] == par
    _, entries = await service.boards.page(board, 0, 10)
    assert [e["player"] for e in entries] == [scout.player]  # the scout's own 0 (a short game, unreviewed)


async def held_or_none(service: Any, board: str) -> dict[str, Any] | None:
    return await service.boards.held_for_review(board) or None


@pytest.mark.parametrize("gaps", [FIVE_SEVEN, THREE_ONE], ids=["5.7s", "3.1s"])
async def test_the_scouted_daily_win_is_held(
    clocked: RunningServer, clock: Clock, made: list[Client], gaps: list[int]
) -> None:
    day = DAY + timedelta(days=11 if gaps is FIVE_SEVEN else 12)
    clock.set(day_start_ms(day) + 12 * HOUR_MS)
    service = clocked.ctx.get(RaceWire).service
    # what the scout learned: however it was seen (a guest's attempt, a friend), the whole deal
    code = await service.daily.code(day)
    [cheat] = await tabs(clocked, None, 1, made)
    await account(clocked, cheat)
    await cheat.send({"t": "daily_play"})
    first = await attempt(cheat)
    rid = first["race"]
    mine = await open_seat(cheat, rid, 1)
    await wait_start(first, clock)
    game = Game.new(code)
    assert [[c.code for c in col] for col in game.columns] == mine["state"]["columns"]
    line, par = known_line(mine["state"], [c.code for c in game.deal.stock])
    assert par == 350  # the daily's deal can always be won
    await play_line(cheat, rid, line, gaps, clock, first["starts_at"])
    result = await settled(lambda: service.daily.result(day, cheat.player))
    assert result["score"] == 350 and result["review"] == "too_fast"
    await cheat.send({"t": "daily"})
    status = await cheat.expect("daily", T)
    assert status["result"]["review"] == "too_fast" and status["streak"] == 0
    assert (await service.boards.page(daily_board(day.isoformat()), 0, 10))[0] == 0
    assert cheat.player in await service.boards.held_for_review(daily_board(day.isoformat()))


async def play_honest_daily(server: Any, clock: Clock, made: list[Client], day: Any) -> tuple[str, str]:
    """An account's ranked daily, greedy, at the bots' human pace on the server's clock: (player, game id)."""
    [human] = await tabs(server, None, 1, made)
    await account(server, human)
    await human.send({"t": "daily_play"})
    first = await attempt(human)
    rid = first["race"]
    snap = await open_seat(human, rid, 1)
    await wait_start(first, clock)
    state = json.loads(json.dumps(snap["state"]))
    rng = random.Random(4)
    seq = 0
    while state["status"] == "playing" and (move := greedy(state)) is not None:
        seq += 1
        await clock.advance(move_delay_ms(rng, first=seq == 1) / 1000)
        answer = await act(human, rid, seq, move)
        assert answer["t"] == "ack", answer
        apply_diff(state, await human.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v))
    assert seq >= 20, "too short a game for the review"
    assert human.player is not None
    return human.player, f"{rid}-1"


async def test_an_honest_daily_at_a_human_pace_is_pending_then_on_the_board_with_its_streak(
    clocked: RunningServer, clock: Clock, made: list[Client]
) -> None:
    day = DAY + timedelta(days=13)
    clock.set(day_start_ms(day) + 12 * HOUR_MS)
    service = clocked.ctx.get(RaceWire).service
    player, game = await play_honest_daily(clocked, clock, made, day)
    board = daily_board(day.isoformat())
    result = await settled(lambda: service.daily.result(day, player))
    # the knowledge review may be over already; if not, the result is pending and on no board
    if result["review"] == "pending":
        assert (await service.boards.page(board, 0, 10))[0] == 0 or result["review"] is None

    async def on_board() -> list[dict[str, Any]] | None:
        total, entries = await service.boards.page(board, 0, 10)
        return entries if total else None

    entries = await settled(on_board, REVIEW_T)
    assert [e["player"] for e in entries] == [player]
    assert await service.boards.held_for_review(board) == {}
    assert await service.boards.pending(board) == {}
    final = await settled(lambda: service.daily.result(day, player))
    assert final["review"] is None

    async def streak() -> int | None:  # extended just after the verdict is written into the result
        count = (await service.daily.streak(player)).count
        return count or None

    assert await settled(streak) == 1
    assert await knowledge.verdict(service.redis, game) == knowledge.CLEAR


TELLING = "GO1-C-UMAGNAULAVUVGBYXBXMVDUWROH"
"""A Classic deal where the stock's order matters: the solver's line (from the whole deal) takes 330 points,
through choices the visible cards do not favour (its review scores 15.3 nats with the game id below)."""
TELLING_LINE = (
    "d 3 4 d d 5 d 6 7 4 d 4 d 1 1 4 6 d 4 5 d 2 5 d 2 5 d 6 6 1 2 2 1 d 7 1 d 5 d 3 7 2 7 d 6 d 3 3 d 3"
)


def paced_record(game_id: str, player: str, tokens: list[str], start_ms: int) -> GameRecord:
    """A ranked record of ``tokens`` at the bots' human pace."""
    rng = random.Random(1)
    at, log = start_ms, []
    for i, tok in enumerate(tokens):
        at += move_delay_ms(rng, first=i == 0, choices=2)
        log.append((tok, at - start_ms))
    game = Game.new(TELLING)
    for tok in tokens:
        game = game.apply(parse_token(tok))
    status, race = game.status.value, game_id.rsplit("-", 1)[0]
    return GameRecord(game_id, TELLING, player, "P", status, start_ms, at, tuple(log), ranked=True, race=race)


@pytest.mark.timeout(600)  # two reviews of some 50 moves: ~10 s of CPU, minutes on a loaded machine
async def test_a_stock_knowing_result_at_a_human_pace_is_pending_then_held_by_the_knowledge_review(
    clocked: RunningServer, clock: Clock, made: list[Client]
) -> None:
    service = clocked.ctx.get(RaceWire).service
    cheat, honest = await tabs(clocked, None, 1, made) + await tabs(clocked, None, 1, made)
    await account(clocked, cheat)
    await account(clocked, honest)
    greedy_game = Game.new(TELLING)
    greedy_tokens = []
    while greedy_game.status is Status.PLAYING:
        action = greedy_game.legal_actions()[0]
        greedy_tokens.append(token(action))
        greedy_game = greedy_game.apply(action)
    now = clock()
    informed = paced_record("rknowtest0001-1", str(cheat.player), TELLING_LINE.split(), now)
    plain = paced_record("rknowtest0002-1", str(honest.player), greedy_tokens, now)
    assert informed.log[-1][1] > 700 * len(informed.log)  # no timing floor applies
    board = code_board(TELLING)
    for record in (informed, plain):
        assert await service.boards.submit_record(record) == []  # near the top: pending, on no board yet
        assert await service.boards.review_of(record) == knowledge.PENDING
    assert set(await service.boards.pending(board)) == {cheat.player, honest.player}
    assert (await service.boards.page(board, 0, 10))[0] == 0
    for record in (informed, plain):
        assert service.reviews.schedule(record)

    async def verdicts() -> tuple[str | None, str | None] | None:
        got = (
            await knowledge.verdict(service.redis, informed.game),
            await knowledge.verdict(service.redis, plain.game),
        )
        return got if knowledge.PENDING not in got else None

    assert await settled(verdicts, 4 * REVIEW_T) == (knowledge.KNOWLEDGE, knowledge.CLEAR)

    async def moved() -> tuple[dict[str, Any], list[dict[str, Any]]] | None:  # just after the verdicts
        held, (_, entries) = (
            await service.boards.held_for_review(board),
            await service.boards.page(board, 0, 10),
        )
        return (held, entries) if held and entries else None

    held, entries = await settled(moved)
    assert held[cheat.player]["review"] == knowledge.KNOWLEDGE and held[cheat.player]["score"] == 330
    assert [e["player"] for e in entries] == [honest.player]
    assert await service.boards.pending(board) == {}
    assert await service.boards.review_of(informed) == knowledge.KNOWLEDGE
    assert await service.boards.review_of(plain) is None
    # a second run of the aftermath follows the stored verdicts
    assert await service.boards.submit_record(informed) == []
    assert (await service.boards.page(board, 0, 10))[0] == 1
