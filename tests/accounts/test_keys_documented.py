"""Keys and persistence as documented (issue 20.17), checked against the real Redis: ``CONFIG GET`` of the
embedded Redis, and the TTL of the keys a deletion and a race leave behind."""

from __future__ import annotations

import time
from fnmatch import fnmatch
from pathlib import Path

import httpx
import redis as redis_sync
import redis.asyncio as aioredis

from golfrace.races.leaderboard import Entry, Leaderboards
from golfrace.races.live import LIVE_KEY
from golfrace.store.embedded import PERMANENT_KEYS, PERMANENT_PATTERNS, RedisServer
from golfrace_testkit.servers import RunningServer

from .conftest import PASSWORD, TIMEOUT, new_name, sign_up, ws_client


def permanent(key: str) -> bool:
    return key in PERMANENT_KEYS or any(fnmatch(key, p) for p in PERMANENT_PATTERNS)


def test_the_embedded_redis_takes_rdb_snapshots(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "data").start()
    try:
        client = redis_sync.Redis(unix_socket_path=str(server.socket_path), decode_responses=True)
        assert client.config_get("save") == {"save": "60 1"}
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        client.close()
    finally:
        server.stop()


def test_a_throwaway_redis_saves_nothing(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "data", port=0, persist=False)
    server.port = None  # a unix socket, without persistence
    server.start()
    try:
        client = redis_sync.Redis(unix_socket_path=str(server.socket_path), decode_responses=True)
        assert client.config_get("save") == {"save": ""}
        assert client.config_get("appendonly") == {"appendonly": "no"}
        client.close()
    finally:
        server.stop()


async def test_deleting_the_only_entry_of_a_board_keeps_its_ttl(
    http: httpx.AsyncClient, acct_server: RunningServer, rds: aioredis.Redis
) -> None:
    name = new_name("Only")
    player = (await sign_up(http, name))["account"]["player"]
    board = f"code:test-{new_name()}"  # a board of its own: the account holds its only entry
    boards = Leaderboards(rds, ttl_s=3_600)
    entry = Entry(player, name, 300, 60_000, 40, int(time.time() * 1000), "g-1")
    assert await boards.submit(board, player, entry)
    await rds.sadd(f"acct:{{{player}}}:boards", board)
    base = f"lb:{{{board}}}"
    assert await rds.ttl(base + ":z") > 0 and await rds.ttl(base + ":e") > 0
    r = await http.post("/api/account/delete", json={"confirm": name.lower(), "password": PASSWORD})
    assert r.status_code == 200, r.text
    assert await rds.zcard(base + ":z") == 1  # the deleted player's entry stays on the board
    for suffix in (":z", ":e"):
        assert 0 < await rds.ttl(base + suffix) <= 3_600, suffix
    assert not await rds.exists(base + ":p")


async def test_the_live_index_of_races_expires(acct_server: RunningServer, rds: aioredis.Redis) -> None:
    ann = await ws_client(acct_server)
    try:
        await ann.send({"t": "race_new", "name": "Ann", "seats": 2})
        race = (await ann.expect("race", TIMEOUT))["race"]
        await ann.send({"t": "race_start", "race": race})
        await ann.expect("race", TIMEOUT, where=lambda m: m.get("phase") == "countdown")
        assert race.encode() in await rds.zrange(LIVE_KEY, 0, -1)
        assert permanent(LIVE_KEY) or await rds.ttl(LIVE_KEY) > 0
    finally:
        await ann.close()
