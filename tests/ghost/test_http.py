"""``GET /api/ghosts…`` over a real server and Redis, tried as a second identity would: a ghost holds the
code and the stock, so while a ranked race is on nobody gets one of its seats (``code_hidden``), the racer
who finished included; once it is over anyone does, with each move's time."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from golfrace.accounts.sessions import COOKIE
from golfrace.races.daily import day_start_ms
from golfrace.store import friend_keys
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from ..races.test_fair_play import attempt, resign
from ..races.test_hidden import assert_nothing_early, stock_of
from ..races.test_second_identity import finalized
from ..races.test_wire import T, join, new_race, open_seat, play_out, start, wait_start

pytestmark = pytest.mark.timeout(120)


async def _get(
    http: httpx.AsyncClient, path: str, token: str | None = None, session: str | None = None
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if session:  # an account's own data: its session, not its token alone
        headers["Cookie"] = f"{COOKIE}={session}"
    return await http.get(path, headers=headers)


def _refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status and answer.json()["error"] == code, answer.text
    assert set(answer.json()) <= {"error", "message", "params"}


async def test_no_ghost_of_a_ranked_race_still_on_then_anyone_races_it(
    server: Any, make_client: Any, server_clock: MovableClock
) -> None:
    ann, bob, eve = (
        await make_client(name="Ann"),
        await make_client(name="Bob"),
        await make_client(name="Eve"),
    )
    sessions = {}
    for client in (ann, bob):  # a random deal is ranked for accounts
        sessions[client] = await sign_in_client(server.ctx.redis, client)
    await server.ctx.redis.sadd(friend_keys.following(str(eve.player)), str(ann.player))
    lobby = await new_race(ann, name="Ann")
    rid = lobby["race"]
    assert lobby["ranked"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    code, stock = await stock_of(server, rid)
    game = await open_seat(bob, rid, 2)
    await wait_start(view, server_clock)
    await play_out(bob, rid, game["state"], 0)
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][1]["status"] != "playing")
    answers = []
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        for token in (bob.token, eve.token, ann.token, None):
            refused = await _get(http, f"/api/ghosts/{rid}-2", token)
            _refused(refused, 409, "code_hidden")
            answers.append(refused.json())
            listing = await _get(http, f"/api/ghosts?code={code}", token)
            assert listing.status_code == 200 and listing.json() == {"ghosts": []}, listing.text
        burst = await asyncio.gather(*(_get(http, f"/api/ghosts/{rid}-2", eve.token) for _ in range(100)))
        for refused in burst:  # a burst of 100 at once: the same refusal for every one
            _refused(refused, 409, "code_hidden")
        answers += [r.json() for r in burst[:3]]
        assert_nothing_early(answers, code, stock)
        _refused(await _get(http, "/api/ghosts?code=nonsense"), 400, "bad_code")
        _refused(await _get(http, "/api/ghosts"), 400, "bad_code")
        _refused(await _get(http, "/api/ghosts/nosuchgame00"), 404, "game_not_found")
        await ann.send({"t": "race_resign", "race": rid})
        await bob.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
        await finalized(server, rid)
        shown = await _get(http, f"/api/ghosts/{rid}-2", eve.token)
        assert shown.status_code == 200, shown.text
        body = shown.json()
        assert body["code"] == code and body["name"] == "Bob" and body["steps"]
        times = [s["t_ms"] for s in body["steps"]]
        assert times == sorted(times) and times == [ms for _tok, ms in body["log"]]
        listed = {}
        for who in (bob, eve, None):
            token = who.token if who else None
            answer = await _get(http, f"/api/ghosts?code={code}", token, sessions.get(who))
            assert answer.status_code == 200, answer.text
            listed[who] = [(g["kind"], g["game"]) for g in answer.json()["ghosts"]]
        # one game once: Bob's best is the board's best; Eve follows Ann, whose resignation ranks below
        assert listed[bob] == [("mine", f"{rid}-2")], listed
        assert listed[eve] == [("best", f"{rid}-2"), ("friend", f"{rid}-1")], listed
        assert listed[None] == [("best", f"{rid}-2")], listed


DAY = date(2031, 8, 14)


async def test_the_days_leader_is_a_ghost_only_once_no_attempt_of_its_day_can_count(
    clocked: RunningServer, clock: MovableClock
) -> None:
    server = clocked
    clock.set(day_start_ms(DAY) + 3_600_000)
    dee, spy = Client(server.ws, name="Dee"), Client(server.ws, name="Spy")
    try:
        for c in (dee, spy):
            await c.start()
        await sign_in_client(server.ctx.redis, dee)  # the day's deal and its board: accounts only
        await dee.send({"t": "daily_play"})
        first = await attempt(dee)
        assert first["ranked"]
        done = await resign(dee, first["race"])
        assert done["phase"] == "finished" and done["code"] is None
        game = f"{first['race']}-1"
        await finalized(server, first["race"])
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            for token in (dee.token, spy.token, None):
                _refused(await _get(http, f"/api/ghosts?day={DAY}", token), 409, "code_hidden")
                _refused(await _get(http, f"/api/ghosts/{game}", token), 409, "code_hidden")
            _refused(await _get(http, "/api/ghosts?day=2031-8-14"), 400, "bad_date")
            _refused(await _get(http, f"/api/ghosts?day={DAY + timedelta(days=1)}"), 400, "bad_date")
            clock.set(day_start_ms(DAY + timedelta(days=1)) + 600_000)  # the day and its grace are over
            listed = await _get(http, f"/api/ghosts?day={DAY}", spy.token)
            assert listed.status_code == 200, listed.text
            assert [(g["kind"], g["game"]) for g in listed.json()["ghosts"]] == [("daily", game)]
            shown = await _get(http, f"/api/ghosts/{game}", spy.token)
            assert shown.status_code == 200 and shown.json()["daily"] == DAY.isoformat(), shown.text
    finally:
        for c in (dee, spy):
            await c.close()
