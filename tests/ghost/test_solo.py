"""The ghosts of casual play over a real server and Redis (issue 22): a player's finished solo games on a deal
are their own ghost there (the best by score, then time), with each move's time; a friend's (a follow both
ways) only on a deal the caller finished too; nobody else's; and a sealed game (a daily course hole) is
nobody's ghost before its code is public."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from golfrace.engine import GameCode
from golfrace.store import friend_keys
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from ..course.helpers import T, end_of, line, play
from .test_http import _get, _refused

pytestmark = pytest.mark.timeout(120)
CODE = GameCode.parse("GO1-E-GHOSTLY")


async def _until(check: Callable[[], Awaitable[Any]]) -> Any:
    """``check()`` once it answers something true (what follows a game's end is written after its ack)."""
    deadline = asyncio.get_running_loop().time() + T
    while True:
        found = await check()
        if found or asyncio.get_running_loop().time() > deadline:
            return found
        await asyncio.sleep(0.05)


async def _listed(http: httpx.AsyncClient, who: Client, session: str) -> list[tuple[str, str, bool]]:
    answer = await _get(http, f"/api/ghosts?code={CODE}", who.token, session)
    assert answer.status_code == 200, answer.text
    return [(g["kind"], g["game"], g["casual"]) for g in answer.json()["ghosts"]]


async def _solo(client: Client, draw_first: bool = False) -> str:
    view = await client.new(str(CODE))
    await play(client, view.game, line(CODE, draw_first=draw_first))
    await client.close_game(view.game)
    return view.game


async def test_own_and_friends_solo_games_are_ghosts_and_nobody_elses(
    clocked: RunningServer, clock: MovableClock
) -> None:
    server = clocked
    better, worse = end_of(CODE), end_of(CODE, draw_first=True)
    assert better.score > worse.score
    clients = {name: Client(server.ws, name=name) for name in ("Ann", "Bob", "Cy", "Eve")}
    try:
        sessions = {}
        for name, client in clients.items():
            await client.start()
            sessions[name] = await sign_in_client(server.ctx.redis, client, display=name)
        ann, bob, cy, eve = clients.values()
        redis = server.ctx.redis
        for a, b in ((ann, bob), (bob, ann), (ann, cy), (cy, ann), (eve, ann)):  # Eve follows one way
            await redis.sadd(friend_keys.following(str(a.player)), str(b.player))
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            best = await _solo(ann)
            mine = [("mine", best, True)]
            assert await _until(lambda: _listed(http, ann, sessions["Ann"])) == mine
            await _solo(ann, draw_first=True)  # a worse game later: the best stays
            assert await _listed(http, ann, sessions["Ann"]) == mine
            shown = await _get(http, f"/api/ghosts/{best}", ann.token, sessions["Ann"])
            assert shown.status_code == 200, shown.text
            body = shown.json()
            assert (body["code"], body["name"], body["status"], body["ranked"]) == (
                str(CODE),
                "Ann",
                better.status.value,
                False,
            )
            times = [s["t_ms"] for s in body["steps"]]
            assert len(times) == len(line(CODE)) and times == sorted(times)
            # Bob follows Ann and she follows him back, but he has not had the deal: no ghost of hers
            assert await _listed(http, bob, sessions["Bob"]) == []
            _refused(
                await _get(http, f"/api/ghosts/{best}", bob.token, sessions["Bob"]), 404, "game_not_found"
            )
            bobs = await _solo(bob, draw_first=True)
            listed = await _until(lambda: _listed(http, bob, sessions["Bob"]))
            assert listed == [("mine", bobs, True), ("friend", best, True)], listed
            assert (await _get(http, f"/api/ghosts/{best}", bob.token, sessions["Bob"])).status_code == 200
            # Eve had the deal too, but Ann does not follow her back; no token at all: nothing either
            await _solo(eve)
            eves = await _until(lambda: _listed(http, eve, sessions["Eve"]))
            assert [k for k, _g, _c in eves] == ["mine"], eves
            _refused(
                await _get(http, f"/api/ghosts/{best}", eve.token, sessions["Eve"]), 404, "game_not_found"
            )
            _refused(await _get(http, f"/api/ghosts/{best}"), 404, "game_not_found")
            assert (await _get(http, f"/api/ghosts?code={CODE}")).json() == {"ghosts": []}
            # Cy, a friend who never had the deal: nothing
            assert await _listed(http, cy, sessions["Cy"]) == []
    finally:
        for client in clients.values():
            await client.close()


async def test_a_sealed_game_is_nobodys_ghost_before_its_code_is_public(
    clocked: RunningServer, clock: MovableClock
) -> None:
    server = clocked
    dee = Client(server.ws, name="Dee")
    try:
        await dee.start()
        session = await sign_in_client(server.ctx.redis, dee, display="Dee")
        public_at = clock() + 3_600_000
        meta = {"sealed": public_at, "course": "daily", "day": "2031-01-04", "hole": 1}
        stored = await server.ctx.store.create(str(dee.player), CODE, True, meta, draws_final=True)
        await dee.open(stored.id)
        await play(dee, stored.id, line(CODE, draws_final=True))
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            await _until(lambda: server.ctx.redis.hget(f"sb:{{{dee.player}}}", str(CODE)))
            for _ in range(2):  # the listing and the ghost: code_hidden, for its own player too
                assert await _listed(http, dee, session) == []
                refused = await _get(http, f"/api/ghosts/{stored.id}", dee.token, session)
                _refused(refused, 409, "code_hidden")
            burst = await asyncio.gather(
                *(_get(http, f"/api/ghosts/{stored.id}", dee.token, session) for _ in range(100))
            )
            for answer in burst:
                _refused(answer, 409, "code_hidden")
            clock.set(public_at + 1)
            assert await _listed(http, dee, session) == [("mine", stored.id, True)]
            assert (await _get(http, f"/api/ghosts/{stored.id}", dee.token, session)).status_code == 200
    finally:
        await dee.close()
