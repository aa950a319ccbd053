"""Hints over real websockets and Redis: following them wins a winnable deal, the frame names a column or
the stock and never a card, only the game's player may ask, and one hint per connection at a time."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
import redis.asyncio as aioredis

from golfrace.engine import Draw, Game, Status, Tap
from golfrace.engine.solver import par
from golfrace.store.game_codec import decode_state
from golfrace.store.keys import game_key
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from .helpers import WIN_CODE, _is_card, _strings, assert_no_leak

pytestmark = pytest.mark.timeout(60)
HINT_TIMEOUT = 10.0


async def ask(client: Any, game: str) -> dict[str, Any]:
    await client.send({"t": "hint", "game": game})
    return await client.expect(
        None,
        HINT_TIMEOUT,
        where=lambda m: (m.get("t") == "hint" and m.get("game") == game) or m.get("ref") == "hint",
    )


def action_of(move: dict[str, Any]) -> Tap | Draw:
    return Tap(move["col"]) if move["a"] == "tap" else Draw()


async def test_following_the_hints_wins_a_winnable_deal(make_client) -> None:
    client = await make_client()
    view = await client.new(WIN_CODE)
    engine = Game.new(WIN_CODE)
    while engine.status is Status.PLAYING:
        answer = await ask(client, view.game)
        assert answer["t"] == "hint", answer
        assert answer["v"] == engine.moves + engine.undos and answer["winnable"] is True
        assert set(answer["move"]) <= {"a", "col"}
        action = action_of(answer["move"])
        assert action in engine.legal_actions(), (answer, engine.legal_actions())
        engine = engine.apply(action)
        reply = await client.act(view.game, **answer["move"])
        assert reply["t"] == "ack", reply
        await client.wait_version(view.game, reply["v"])
    assert engine.status is Status.WON and view.status == "won"
    done = await ask(client, view.game)
    assert done["move"] is None and done["winnable"] is True
    hint_frames = [f for f in client.frames if f.get("t") == "hint"]
    assert len(hint_frames) > 30
    for frame in hint_frames:  # a column or the stock: never a card, and no code
        assert not [s for s in _strings(frame) if _is_card(s)], frame
        assert WIN_CODE not in _strings(frame)


async def test_random_game_hint_leaks_nothing_hidden(make_client, redis_url: str) -> None:
    client = await make_client()
    view = await client.new(rules="easy")
    assert view.state["code"] is None
    for _ in range(3):
        answer = await ask(client, view.game)
        assert answer["t"] == "hint" and answer["move"] is not None, answer
        reply = await client.act(view.game, **answer["move"])
        assert reply["t"] == "ack", reply
        await client.wait_version(view.game, reply["v"])
    # the hidden code, read from the server's own record, appears in no frame (hints included)
    redis = aioredis.Redis.from_url(redis_url)
    try:
        state = await asyncio.wait_for(redis.hget(game_key(view.game), "state"), HINT_TIMEOUT)
    finally:
        await redis.aclose()
    assert state is not None
    code = str(decode_state(state).code)
    assert assert_no_leak(client, {view.game: code}, hidden={view.game}) > 3


async def test_only_the_player_and_one_at_a_time(make_client, settings) -> None:
    owner = await make_client()
    other = await make_client()
    view = await owner.new(WIN_CODE)
    await other.open(view.game, "watcher")
    error = await ask(other, view.game)
    assert error["t"] == "error" and error["code"] == "not_player", error
    missing = await ask(owner, "nosuchgame")
    assert missing["t"] == "error" and missing["code"] == "no_game", missing
    no_hints = settings.with_(port=0, hints=replace(settings.hints, in_flight=0))
    async with running_server(no_hints) as server:
        client = Client(server.ws)
        try:
            await client.connect()
            await client.hello()
            mine = await client.new(WIN_CODE)
            busy = await ask(client, mine.game)
        finally:
            await client.close()
    assert busy["t"] == "error" and busy["code"] == "hint_busy", busy


async def test_a_hint_says_the_best_score_left_and_a_stuck_games_the_deals_par(make_client) -> None:
    """Issue 20, 9: the stuck dialog gives the best score the deal allowed (its par), which the hint knows:
    ``best`` is the best score reachable from the position asked, or from the deal for a game over."""
    code = "GO1-C-AAAAAAB"  # the rules' example deal under Classic rules: drawing first gets it stuck
    client = await make_client()
    view = await client.new(code)
    first = await ask(client, view.game)
    assert first["best"] == par(code)
    engine = Game.new(code)
    while engine.status is Status.PLAYING:
        action = Draw() if engine.stock_count else Tap(engine.playable_columns()[0] + 1)
        engine = engine.apply(action)
        move = {"a": "draw"} if isinstance(action, Draw) else {"a": "tap", "col": action.column}
        reply = await client.act(view.game, **move)
        assert reply["t"] == "ack", reply
        await client.wait_version(view.game, reply["v"])
    assert engine.status is Status.STUCK
    stuck = await ask(client, view.game)
    assert stuck["move"] is None and stuck["winnable"] is False
    assert stuck["best"] == par(code) > engine.score  # what the deal allowed, not what this game made
