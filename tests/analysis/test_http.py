"""``GET /api/games/{id}/analysis`` over a real server and Redis, tried as a second identity would: a
watcher, the racer who finished first, another player (an account's token too), plain HTTP without a
token. A seat's analysis holds the code and shows stock cards, so it opens for nobody while its race or its
day is on (``code_hidden``); a solo game's is its player's only."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from golfrace.analysis.service import Analyses, analysis_key
from golfrace.engine import Draw, Game, GameCode, Status, token
from golfrace.races.daily import day_start_ms
from golfrace.settings.analysis import AnalysisSettings
from golfrace.wire.errors import ProtocolError
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..accounts.helpers import make_account_record
from ..clock import MovableClock
from ..engine.test_seeds import MOVE_35, TO_MOVE_35, TO_THE_WIN
from ..races.test_fair_play import attempt, resign
from ..races.test_hidden import assert_nothing_early, stock_of
from ..races.test_second_identity import finalized
from ..races.test_wire import T, join, new_race, open_seat, play_out, start, wait_start

pytestmark = pytest.mark.timeout(120)
WIN = [*TO_MOVE_35.split(), MOVE_35, *TO_THE_WIN.split()]
BURST_S = 60.0
"""How long the burst's slowest request may take: 100 requests (each loads the race and replays its record)
on an in-process server that shares this test's event loop, on a machine shared with other test runs."""


def _act(token: str) -> dict[str, Any]:
    return {"a": "draw"} if token == "d" else {"a": "tap", "col": int(token)}


async def _get(http: httpx.AsyncClient, game: str, token: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return await http.get(f"/api/games/{game}/analysis", headers=headers)


def _refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status and answer.json()["error"] == code, answer.text
    assert set(answer.json()) <= {"error", "message", "params"}


async def test_a_solo_game_is_analysed_for_its_player_only_once_it_is_over(
    server: Any, make_client: Any
) -> None:
    ann, eve = await make_client(name="Ann"), await make_client(name="Eve")
    view = await ann.new(code="GO1-E-AAAAAAB")
    analyses: Analyses = server.ctx.get(Analyses)
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        for tok in WIN[:10]:
            assert (await ann.act(view.game, **_act(tok)))["t"] == "ack"
        _refused(await _get(http, view.game, ann.token), 409, "game_not_ended")
        for tok in WIN[10:]:
            assert (await ann.act(view.game, **_act(tok)))["t"] == "ack"
        await ann.wait_version(view.game, len(WIN))
        assert ann.views[view.game].status == "won"
        _refused(await _get(http, view.game, eve.token), 403, "not_player")
        _refused(await _get(http, view.game), 403, "not_player")
        _refused(await _get(http, "nosuchgame00"), 404, "game_not_found")
        computed = analyses.computed
        answer = await _get(http, view.game, ann.token)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert (body["game"], body["code"], body["par"], body["score"]) == (
            view.game,
            "GO1-E-AAAAAAB",
            350,
            350,
        )
        assert body["mistakes"] == [] and len(body["moves"]) == len(WIN) and body["complete"]
        assert analyses.computed == computed + 1
        again = await _get(http, view.game, ann.token)
        assert again.json() == body and analyses.computed == computed + 1, "the second comes from the cache"


async def test_a_seat_is_analysed_by_nobody_while_its_race_is_on_then_by_anyone(
    server: Any, make_client: Any, server_clock: MovableClock
) -> None:
    """Bob plays his seat to the end while Ann is still racing: neither he (his token, a second identity,
    a watcher's) nor plain HTTP gets his analysis, or Ann's, until the race is over."""
    ann, bob, eve = (
        await make_client(name="Ann"),
        await make_client(name="Bob"),
        await make_client(name="Eve"),
    )
    await make_account_record(server.ctx.redis, str(eve.player), "eve" + str(eve.player)[1:7])
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    code, stock = await stock_of(server, rid)
    await eve.send({"t": "watch", "race": rid})
    await eve.expect("race_watch", T)
    game = await open_seat(bob, rid, 2)
    await wait_start(view, server_clock)
    await play_out(bob, rid, game["state"], 0)
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][1]["status"] != "playing")
    bob2 = await make_client(token=bob.token)  # the finished racer's second tab
    answers = []
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        for token in (bob.token, bob2.token, eve.token, ann.token, None):
            refused = await _get(http, f"{rid}-2", token)
            _refused(refused, 409, "code_hidden")
            answers.append(refused.json())
            still = await _get(http, f"{rid}-1", token)
            assert still.status_code == 409 and still.json()["error"] in ("game_not_ended", "code_hidden")
            answers.append(still.json())
        assert_nothing_early(answers, code, stock)
        await ann.send({"t": "race_resign", "race": rid})
        await bob.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
        analyses: Analyses = server.ctx.get(Analyses)
        computed = analyses.computed
        async with httpx.AsyncClient(base_url=server.http, timeout=BURST_S) as many:  # 100 at once, over HTTP
            burst = await asyncio.gather(*(_get(many, f"{rid}-2") for _ in range(100)))
        assert {a.status_code for a in burst} == {200} and len({a.text for a in burst}) == 1
        assert analyses.computed == computed + 1, "one computation for the burst"
        for token in (eve.token, None):
            shown = await _get(http, f"{rid}-2", token)
            assert shown.status_code == 200, shown.text
            body = shown.json()
            assert body["code"] == code and body["race"] == rid and body["name"] == "Bob"
            assert body["complete"] and len(body["boards"]) == len(body["moves"]) + 1
    await finalized(server, rid)


DAY = date(2031, 8, 14)


async def test_a_daily_attempt_is_analysed_once_no_attempt_of_its_day_can_count(
    clocked: RunningServer,
    clock: MovableClock,
) -> None:
    server = clocked
    clock.set(day_start_ms(DAY) + 3_600_000)
    dee = Client(server.ws, name="Dee")
    spy = Client(server.ws, name="Spy")
    try:
        for c in (dee, spy):
            await c.start()
        await dee.send({"t": "daily_play"})
        first = await attempt(dee)
        done = await resign(dee, first["race"])
        assert done["phase"] == "finished" and done["code"] is None
        game = f"{first['race']}-1"
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            for token in (dee.token, spy.token, None):
                _refused(await _get(http, game, token), 409, "code_hidden")
            clock.set(day_start_ms(DAY + timedelta(days=1)) + 600_000)  # the day and its grace are over
            shown = await _get(http, game, spy.token)
            assert shown.status_code == 200, shown.text
            assert shown.json()["daily"] == DAY.isoformat() and shown.json()["code"].startswith("GO1-")
    finally:
        for c in (dee, spy):
            await c.close()


async def test_a_burst_computes_each_game_once_and_turns_away_what_the_queue_cannot_hold(server: Any) -> None:
    """100 requests at once for one game: one computation. Then 20 different games at once against one slot
    and two waiting: three are made, the others get ``analysis_busy`` at once (no thread each)."""
    analyses = Analyses(server.ctx.redis, AnalysisSettings(concurrent=1, waiting=2))
    code = GameCode.parse("GO1-E-AAAAAAB")
    stamp = time.monotonic_ns()
    one = analysis_key(f"burst{stamp}", "1")
    results = await asyncio.gather(*(analyses.get(one, code, WIN, 350) for _ in range(100)))
    assert analyses.computed == 1 and all(r == results[0] for r in results)
    assert json.loads(await server.ctx.redis.get(one))["analysis"] == results[0]
    keys = [analysis_key(f"burst{stamp}-{i}", "1") for i in range(20)]
    outcomes = await asyncio.gather(
        *(analyses.get(k, code, WIN[:5], 50) for k in keys), return_exceptions=True
    )
    busy = [o for o in outcomes if isinstance(o, ProtocolError)]
    assert len(busy) == 17 and all(b.code == "analysis_busy" for b in busy)
    assert analyses.computed == 4
    await server.ctx.redis.delete(one, *keys)


async def test_a_stuck_solo_game_undone_and_played_on_is_analysed_again(
    server: Any, make_client: Any
) -> None:
    """A stuck solo game may be undone: its analysis is cached per version, so the game played on to a new
    end gets a new one, never the old end's."""
    ann = await make_client(name="Ann")
    view = await ann.new(code="GO1-E-AAAAAAB")
    game, played = Game.new("GO1-E-AAAAAAB"), []
    while game.status is Status.PLAYING:  # the stock first, then the engine's first removal
        action = Draw() if game.stock_count else game.legal_actions()[0]
        assert (await ann.act(view.game, **_act(token(action))))["t"] == "ack"
        game, played = game.apply(action), [*played, token(action)]
    assert game.status is Status.STUCK
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        first = (await _get(http, view.game, ann.token)).json()
        assert [m["token"] for m in first["moves"]] == played
        assert (await ann.act(view.game, "undo"))["t"] == "ack"
        _refused(await _get(http, view.game, ann.token), 409, "game_not_ended")
        assert (await ann.act(view.game, **_act(played[-1])))["t"] == "ack"  # the same end again
        second = (await _get(http, view.game, ann.token)).json()
        assert [m["token"] for m in second["moves"]] == [*played, "u", played[-1]]
        assert second["moves"][-2]["mark"] is None and second["removed"] == first["removed"]
