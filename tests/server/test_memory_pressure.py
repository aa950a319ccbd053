"""Nothing of another player is forgotten under memory pressure (issue 19.5): a real Redis with a small
``maxmemory``, flooded from one address until it is full. Afterwards a bystander account's session, daily
claim, daily result and daily-board entry are all still there, it still has exactly one ranked daily
attempt, and the flood's own requests are refused with the documented ``storage_full``."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.accounts import sessions
from golfrace.races.daily import day_of
from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer, start_test_server
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from ..accounts.conftest import FAST_HASHES
from ..clock import MovableClock
from ..races.test_daily_wire import play_daily
from ..waiting import until_async

T = 10.0
ROOM = 400 * 1024
"""Bytes the flood finds free above what the bystander's state takes."""
RETRY = {"unavailable", "busy"}
"""Answers that say "not now" (storage slow, not full): the flood sends again."""
FLOOD_GAMES = 3_000
"""The flood gives up after this many games (~4 MB: it fills ``ROOM`` long before, unless Redis evicts)."""


@pytest.fixture
def small_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = start_test_server(tmp_path, maxmemory="64mb")
    try:
        yield server
    finally:
        server.stop()


async def _bystander(server: RunningServer, clock: MovableClock) -> tuple[Client, str, dict[str, Any]]:
    """An account that signed up, signed in over the websocket and played today's ranked daily."""
    guest = await Client(server.ws, name="Bea").start(T)
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        body = {"username": "BeaStands", "password": "a long and rare phrase", "token": guest.token}
        r = await http.post("/api/account/signup", json=body)
        assert r.status_code == 201, r.text
        cookie = r.cookies[sessions.COOKIE]
    await guest.close()
    bea = Client(server.ws)
    await bea.connect(T)
    await bea.send({"t": "hello", "session": cookie, "lang": "en"})
    welcome = await bea.expect("welcome", T)
    assert welcome["account"] is not None
    bea.token, bea.player = welcome["token"], welcome["player"]
    ranked = await play_daily(bea, resign=False, clock=clock)
    assert ranked["ranked"]
    return bea, cookie, ranked


async def _what_bea_has(
    server: RunningServer, rds: aioredis.Redis, player: str, cookie: str
) -> dict[str, Any]:
    day = day_of(int(time.time() * 1000)).isoformat()
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        me = (await http.get("/api/account", headers={"cookie": f"{sessions.COOKIE}={cookie}"})).json()
        board = (await http.get(f"/api/leaderboards/daily/{day}")).json()
    return {
        "account": (me.get("account") or {}).get("player"),
        "claim": await rds.hget(f"daily:{{{day}}}:first", player) is not None,
        "result": await rds.hget(f"daily:{{{day}}}:done", player) is not None,
        "board": [e["player"] for e in board.get("entries", [])],
    }


async def _flood(server: RunningServer, token: str, connections: int = 8) -> tuple[int, list[str]]:
    """New solo games from ``connections`` websockets of one guest (one address) until Redis refuses; the
    games made and the error codes met."""
    made, codes = 0, []
    stop = asyncio.Event()

    async def one() -> None:
        nonlocal made
        client = await Client(server.ws, token=token, name="Flo").start(T)
        try:
            while not stop.is_set() and made < FLOOD_GAMES:
                await client.send({"t": "new", "rid": "n"})
                answer = await client.expect(None, T, where=lambda m: m.get("t") in ("snapshot", "error"))
                if answer["t"] == "error":
                    codes.append(answer["code"])
                    if answer["code"] in RETRY:  # a slow moment (a loaded machine): the flood goes on
                        continue
                    stop.set()
                    return
                made += 1
                await client.send({"t": "close", "game": answer["game"]})
        finally:
            await client.close()

    await asyncio.wait_for(asyncio.gather(*(one() for _ in range(connections))), 120)
    return made, codes


async def test_a_flood_until_redis_is_full_forgets_nothing_of_another_player(
    settings: Settings, small_redis: RedisServer
) -> None:
    clock = MovableClock()
    ours = settings.with_(port=0, redis_url=small_redis.url)
    ours = ours.with_(accounts=dataclasses.replace(ours.accounts, **FAST_HASHES))
    rds = aioredis.Redis.from_url(small_redis.url, socket_timeout=5)
    async with running_server(ours, clock=clock) as server:
        bea, cookie, _ranked = await _bystander(server, clock)
        whole = {"account": bea.player, "claim": True, "result": True, "board": [bea.player]}

        async def written() -> bool:  # the race's end answers Bea before its aftermath has written it all
            return await _what_bea_has(server, rds, bea.player, cookie) == whole  # (the board entry first)

        await until_async(written, "Bea's account, claim, daily result and board entry")
        before = await _what_bea_has(server, rds, bea.player, cookie)
        assert before == whole
        used = int((await rds.info("memory"))["used_memory"])
        await rds.config_set("maxmemory", used + ROOM)

        flooder = await Client(server.ws, name="Flo").start(T)
        made, codes = await _flood(server, str(flooder.token))
        after = await _what_bea_has(server, rds, bea.player, cookie)
        assert after == before, (made, after)
        assert "storage_full" in codes and set(codes) <= {"storage_full", *RETRY}, (made, codes)
        # the refusals are counted
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            scraped = (await http.get("/metrics")).text
        assert 'golfrace_storage_full_total{kind="ws"}' in scraped

        assert await _what_bea_has(server, rds, bea.player, cookie) == before
        # once there is room again, Bea's next daily attempt is practice: one ranked attempt a day
        await rds.config_set("maxmemory", 0)
        again = await play_daily(bea, resign=True, clock=clock)
        assert not again["ranked"]
        await bea.close()
        await flooder.close()
    await rds.aclose()


async def test_a_full_redis_is_refused_storage_full_over_http_and_websocket(
    settings: Settings, small_redis: RedisServer
) -> None:
    ours = settings.with_(port=0, redis_url=small_redis.url)
    ours = ours.with_(accounts=dataclasses.replace(ours.accounts, **FAST_HASHES))
    rds = aioredis.Redis.from_url(small_redis.url, socket_timeout=5)
    async with running_server(ours) as server:
        client = await Client(server.ws).start(T)
        try:
            used = int((await rds.info("memory"))["used_memory"])
            await rds.config_set("maxmemory", used // 2)  # below what it holds: every write is refused
            await client.send({"t": "new", "rid": "full"})
            answer = await client.expect(None, T, where=lambda m: m.get("rid") == "full")
            assert answer["t"] == "error" and answer["code"] == "storage_full", answer
            async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
                body = {"username": "FullHouse", "password": "a long and rare phrase"}
                r = await http.post("/api/account/signup", json=body)
                assert r.status_code == 503 and r.json()["error"] == "storage_full", r.text
                scraped = (await http.get("/metrics")).text
            assert 'golfrace_storage_full_total{kind="http"}' in scraped
            await rds.config_set("maxmemory", 0)
            assert (await client.new()).game  # room again: the same connection goes on
        finally:
            await client.close()
    await rds.aclose()
