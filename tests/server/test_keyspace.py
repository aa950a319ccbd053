"""Every transient key has a TTL (issue 11.8): a realistic session (solo games won and left, a race with a
watcher, a lobby left empty, a daily attempt, leaderboards over the websocket and HTTP) against a fresh
Redis, then a scan of the whole keyspace for keys without a TTL that are not on the documented list of
permanent keys (``redis_server.PERMANENT_KEYS``, docs/fair-play.md). Redis runs ``noeviction`` (issue
19.5), so a key without a TTL would be kept until the memory is full."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.live.limits import GENEROUS
from golfrace.settings import Settings
from golfrace.store.embedded import PERMANENT_KEYS, PERMANENT_PATTERNS, RedisServer
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from ..own_server import private_redis

T = 10.0


@pytest.fixture
def fresh_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis(tmp_path) as server:
        yield server


async def play_to_the_end(client: Client, game: str) -> None:
    """Greedy play from what the client sees (the first legal tap, else a draw) until the game is over."""
    view = client.views[game]
    while view.legal():
        action = view.legal()[0]
        ack = await client.act(game, action["a"], action.get("col"), timeout=T)
        assert ack["t"] == "ack", ack
        view = await client.wait_version(game, ack["v"], T)


async def race_view(client: Client, race: str, phase: str | None = None) -> dict[str, Any]:
    return await client.expect(
        "race", T, where=lambda m: m.get("race") == race and (phase is None or m.get("phase") == phase)
    )


async def session(server: RunningServer) -> None:
    ann, bob, eve = (
        Client(server.ws, name="Ann"),
        Client(server.ws, name="Bob"),
        Client(server.ws, name="Eve"),
    )
    for c in (ann, bob, eve):
        await c.start(T)
    try:
        # solo: one game played to its end, one left half-way, one with a typed code
        won = await ann.new()
        await play_to_the_end(ann, won.game)
        # Kim wins a game and signs up (the history comes along; her guest connection is closed by it); a
        # failed sign-in and a passkey ceremony leave their keys
        kim = await Client(server.ws, name="Kim").start(T)
        kims = await kim.new()
        await play_to_the_end(kim, kims.game)
        async with httpx.AsyncClient(base_url=server.site, timeout=T) as http:
            body = {"username": "KimKeys", "password": "a long and rare phrase", "token": kim.token}
            assert (await http.post("/api/account/signup", json=body)).status_code == 201
            wrong = {"username": "KimKeys", "password": "not the password"}
            assert (await http.post("/api/account/signin", json=wrong)).status_code == 401
            assert (await http.post("/api/account/passkey/signin/options", json={})).status_code == 200
        await kim.close()
        left = await ann.new(rules="classic")
        await ann.act(left.game, "draw", timeout=T)
        await bob.new(code="GO1-E-AAAAAAB")
        await eve.open(won.game, "watcher", T)

        # a lobby its only racer leaves
        await ann.send({"t": "race_new", "name": "Ann"})
        empty = (await ann.expect("race", T))["race"]
        await ann.send({"t": "race_leave", "race": empty})

        # a race of two with a watcher: started, both resign
        await ann.send({"t": "race_new", "name": "Ann", "seats": 2})
        rid = (await ann.expect("race", T, where=lambda m: m.get("race") != empty))["race"]
        await bob.send({"t": "race_join", "race": rid, "name": "Bob"})
        await race_view(bob, rid)
        await eve.send({"t": "watch", "race": rid})
        await eve.expect("race_watch", T)
        await ann.send({"t": "race_start", "race": rid})
        await race_view(ann, rid, "countdown")
        for c in (ann, bob):
            await c.send({"t": "race_resign", "race": rid})
        await race_view(ann, rid, "finished")

        # the daily challenge: one attempt, resigned; the status and its board
        await bob.send({"t": "daily_play", "name": "Bob"})
        daily = await bob.expect("race", T, where=lambda m: m.get("daily") is not None)
        await bob.send({"t": "race_resign", "race": daily["race"]})
        await race_view(bob, daily["race"], "finished")
        await bob.send({"t": "daily"})
        status = await bob.expect("daily", T)
        await eve.send({"t": "board_watch", "board": f"daily:{status['date']}"})
        await eve.expect("board", T)
        await eve.send({"t": "board_watch", "board": "code:GO1-E-AAAAAAB"})
        await eve.expect("board", T)

        headers = {"Authorization": f"Bearer {bob.token}"}
        async with httpx.AsyncClient(base_url=server.http, timeout=T, headers=headers) as http:
            for path in (
                f"/api/races/{rid}",
                f"/api/games/{won.game}",
                f"/api/leaderboards/daily/{status['date']}",
                "/api/leaderboards/code/GO1-E-AAAAAAB",
                "/api/players/me/bests",
                "/api/daily",
                "/healthz",
            ):
                assert (await http.get(path)).status_code < 500, path
    finally:
        for c in (ann, bob, eve):
            await c.close()


async def test_after_a_session_every_key_but_the_permanent_ones_has_a_ttl(
    settings: Settings, fresh_redis: RedisServer
) -> None:
    real_limits = {key: getattr(Settings(), key) for key in GENEROUS}  # buckets that live as in production
    async with running_server(settings.with_(port=0, redis_url=fresh_redis.url, **real_limits)) as server:
        await asyncio.wait_for(session(server), 120)
    redis = aioredis.Redis.from_url(fresh_redis.url, decode_responses=True)
    try:
        keys = [k async for k in redis.scan_iter(count=1000)]
        kinds = {k.split(":", 1)[0] for k in keys}
        assert {"game", "race", "daily", "limit", "acct", "uname", "hist", "thr", "wa"} <= kinds, kinds
        permanent = [k for k in keys if k in PERMANENT_KEYS or any(fnmatch(k, p) for p in PERMANENT_PATTERNS)]
        assert any(k.startswith("acct:") for k in permanent) and any(k.startswith("hist:") for k in permanent)
        forever = sorted([k for k in keys if await redis.ttl(k) == -1 and k not in permanent])
        assert forever == []
        # one record of finished games (accounts/history.py): kept for good only for an account's player
        assert "stats" not in kinds, kinds
        histories = {k: await redis.ttl(k) for k in keys if k.startswith("hist:")}
        for key, ttl in histories.items():
            player = key.split("{", 1)[1].split("}", 1)[0]
            assert ttl > 0 or await redis.exists(f"acct:{{{player}}}"), key
        assert max(histories.values()) > 0  # a guest's history expires
    finally:
        await redis.aclose()
