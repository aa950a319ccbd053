"""Whole games over real websockets and Redis: a win, a stuck end, undo, refusals in the client's language,
and no hidden information in any frame."""

from __future__ import annotations

import pytest

from golfrace.engine import Draw, Game, Tap, Undo, parse_moves
from golfrace.engine.i18n import refusal_message

from .helpers import WIN_CODE, WIN_MOVES, assert_no_leak

pytestmark = pytest.mark.timeout(60)

STUCK_TRIES = 10


def _args(action: object) -> dict[str, object]:
    if isinstance(action, Tap):
        return {"a": "tap", "col": action.column}
    return {"a": "draw"} if isinstance(action, Draw) else {"a": "undo"}


async def test_win_over_the_wire_json_and_msgpack(make_client) -> None:
    for codec in ("golfrace.msgpack", "golfrace.json"):
        client = await make_client(codec=codec)
        view = await client.new(WIN_CODE)
        assert view.state["code"] == WIN_CODE  # a typed code is no secret
        engine = Game.new(WIN_CODE)
        for action in parse_moves(WIN_MOVES):
            answer = await client.act(view.game, **_args(action))
            assert answer["t"] == "ack", answer
            engine = engine.apply(action)
            await client.wait_version(view.game, answer["v"])
            assert view.state["columns"] == [[c.code for c in col] for col in engine.columns]
            assert view.state["stock_count"] == engine.stock_count
        assert view.status == "won" and view.state["score"] == 350
        refused = await client.act(view.game, "draw")
        assert refused["t"] == "refused" and refused["code"] == "game_over"
        assert assert_no_leak(client, {view.game: WIN_CODE}) > 50


async def test_random_game_to_stuck_hides_code_until_the_end(make_client) -> None:
    client = await make_client()
    watcher = await make_client()
    # the first tap that fits, else a draw: on a random Classic deal this nearly always ends stuck, but now
    # and then it wins; every end shows the code, and a won game is dealt again until one ends stuck
    codes: dict[str, str] = {}
    for _ in range(STUCK_TRIES):
        view = await client.new(rules="classic")
        assert view.state["code"] is None and view.state["rules"] == "classic"
        await watcher.open(view.game, "watcher")
        while view.status == "playing":
            assert view.state["code"] is None
            legal = view.legal()
            action = ([a for a in legal if a["a"] == "tap"] or legal)[0]
            answer = await client.act(view.game, **action)
            assert answer["t"] == "ack"
            await client.wait_version(view.game, answer["v"])
        code = view.state["code"]
        assert code and code.startswith("GO1-C-")
        codes[view.game] = code
        wview = await watcher.wait_version(view.game, view.v)
        assert wview.state == view.state
        if view.status == "stuck":
            break
        assert view.status == "won"
    assert view.status == "stuck"
    assert assert_no_leak(client, codes, hidden=set(codes))
    assert assert_no_leak(watcher, codes, hidden=set(codes))


async def test_undo_and_localized_refusals(make_client, server) -> None:
    client = await make_client(lang="ro")
    view = await client.new(WIN_CODE)
    answer = await client.act(view.game, "undo")
    assert answer["t"] == "refused" and answer["code"] == "nothing_to_undo"
    assert answer["message"] == refusal_message("nothing_to_undo", "ro")
    before = [list(c) for c in view.state["columns"]]
    assert (await client.act(view.game, "tap", col=5))["t"] == "ack"
    assert (await client.act(view.game, "draw"))["t"] == "ack"
    ack = await client.act(view.game, "undo")
    assert ack["t"] == "ack"
    await client.wait_version(view.game, ack["v"])
    diff = view.applied[-1]
    assert diff["a"] == "undo" and diff["undrawn"] is True
    ack = await client.act(view.game, "undo")
    await client.wait_version(view.game, ack["v"])
    assert view.applied[-1]["restored"]["col"] == 5
    assert view.state["columns"] == before and view.state["undos"] == 2 and view.state["moves"] == 2
    blocked = await client.act(view.game, "tap", col=1, row=1)
    assert blocked["code"] == "blocked" and blocked["params"] == {"column": 1, "row": 1}
    assert blocked["message"] == refusal_message("blocked", "ro")
    engine = Game.new(WIN_CODE).apply(Tap(5)).apply(Draw()).apply(Undo()).apply(Undo())
    assert view.state["discard"] == engine.discard.code
    log = await server.ctx.store.log(view.game)
    assert [entry.split()[0] for entry in log] == ["5", "d", "u", "u"]
