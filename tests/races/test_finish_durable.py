"""A race's results are written whatever fails at its end, without anyone touching the race (issue 20.14):
one ``golfrace serve`` process on a Redis of its own; the end's aftermath is refused by Redis (the server's
user may not write a record, ``rec:*``: an ACL), then the server is killed -9 (or Redis is), restarted, and
nobody sends a request. The results must be there within seconds: the durable "to finish" record is
completed by the restarted instance at start-up, or by the running one once Redis is back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.races import finishing
from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer, free_port
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server, start_process, stop_process

from .test_wire import T, join, new_race, start, wait_start

pytestmark = pytest.mark.timeout(120)

ENV = {"GOLFRACE_RACE_COUNTDOWN_MS": "500"}
LIMIT_S = 3  # the race's time limit: its end, with nobody connected
ADMIN = "redis://admin:admin-pass@127.0.0.1:{port}/0"
NO_RECORDS = ["resetkeys", "~[^r]*", "~r[^e]*", "~re[^c]*"]
"""The server's (default) user may use every key but a record, ``rec:{…}`` (Redis 6.2 has no write-only
key patterns)."""


class Deployment:
    def __init__(self, tmp: Path, settings: Settings) -> None:
        self.tmp = tmp
        self.port = free_port()
        self.redis = RedisServer(tmp / "redis", port=self.port, persist=True)
        self.settings = settings.with_(port=0, redis_url=f"redis://127.0.0.1:{self.port}/0")
        self.server: RunningServer | None = None
        self.admin: aioredis.Redis | None = None
        self.log = tmp / "serve.log"

    async def start_redis(self) -> aioredis.Redis:
        await asyncio.to_thread(self.redis.start)
        plain = aioredis.Redis.from_url(self.settings.redis_url)
        await plain.execute_command("ACL", "SETUSER", "admin", "on", ">admin-pass", "~*", "&*", "+@all")
        await plain.aclose()
        self.admin = aioredis.Redis.from_url(ADMIN.format(port=self.port))
        return self.admin

    async def start_server(self) -> RunningServer:
        settings = self.settings if self.server is None else self.server.settings  # the same port again
        self.server = await asyncio.to_thread(start_process, settings, env=ENV, log=self.log)
        return self.server

    def kill_server(self) -> None:
        assert self.server is not None and self.server.process is not None
        self.server.process.kill()  # SIGKILL: no shutdown, no aftermath
        self.server.process.wait(T)

    async def logged(self, text: str, times: int = 1) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + T
        while self.log.read_text(errors="replace").count(text) < times:
            assert loop.time() < deadline, f"not {times} × {text!r} in the server's log"
            await asyncio.sleep(0.05)


@pytest.fixture
async def deployment(settings: Settings, tmp_path: Path) -> AsyncIterator[Deployment]:
    d = Deployment(tmp_path, settings)
    await d.start_redis()
    try:
        yield d
    finally:
        if d.server is not None:
            await asyncio.to_thread(stop_process, d.server)
        if d.admin is not None:
            await d.admin.aclose()
        await asyncio.to_thread(d.redis.stop)


async def connections(server: RunningServer) -> int:
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        return int((await http.get("/healthz")).json()["connections"])


async def race_ended_while_records_are_refused(d: Deployment) -> tuple[str, list[str]]:
    """A race of two with a time limit, its racers' tabs closed before it (nothing follows it any more on
    the server); the limit ends it, and its end's aftermath is refused (seen in the log)."""
    server = d.server
    assert server is not None and d.admin is not None
    ann = await Client(server.ws, name="Ann").start(T)
    bob = await Client(server.ws, name="Bob").start(T)
    rid = (await new_race(ann, name="Ann", limit=LIMIT_S))["race"]
    await join(bob, rid, name="Bob")
    await wait_start(await start(ann, rid, bob))
    players = [c.player for c in (ann, bob) if c.player]
    for client in (ann, bob):
        await client.close()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + T
    while await connections(server):
        assert loop.time() < deadline, "the server kept the closed connections"
        await asyncio.sleep(0.05)
    await d.admin.execute_command("ACL", "SETUSER", "default", *NO_RECORDS)
    await d.logged(f"finishing race {rid} failed")  # the time limit's write ended it, the aftermath failed
    assert not await d.admin.exists(f"rec:{{{rid}-1}}")
    return rid, players


async def results_written(admin: aioredis.Redis, rid: str, players: list[str], within: float) -> None:
    keys = [f"rec:{{{rid}-1}}", f"rec:{{{rid}-2}}"] + [f"hist:{{{p}}}:g" for p in players]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        try:
            there = [bool(await admin.exists(k)) for k in keys]
            noted = [await admin.zscore(k, rid) for k in finishing.KEYS]
        except (OSError, aioredis.ConnectionError):
            there, noted = [False], []
        if all(there) and not any(n is not None for n in noted):
            return
        assert loop.time() < deadline, f"after {within} s: {dict(zip(keys, there, strict=False))}"
        await asyncio.sleep(0.1)


async def test_a_race_ended_by_a_server_killed_at_its_end_is_finished_by_the_restarted_one(
    deployment: Deployment,
) -> None:
    d = deployment
    await d.start_server()
    rid, players = await race_ended_while_records_are_refused(d)
    d.kill_server()
    assert d.admin is not None
    await d.admin.execute_command("ACL", "SETUSER", "default", "resetkeys", "~*")  # Redis takes writes again
    await d.start_server()  # and nobody touches the race
    await results_written(d.admin, rid, players, within=5.0)


async def test_a_race_ended_while_redis_was_killed_is_finished_once_redis_is_back(
    deployment: Deployment,
) -> None:
    d = deployment
    await d.start_server()
    rid, players = await race_ended_while_records_are_refused(d)
    assert d.admin is not None and d.redis.process is not None
    await d.admin.aclose()
    d.redis.process.kill()  # SIGKILL: its append-only file has the race's end (written before each reply)
    d.redis.process.wait(T)
    d.redis.process = None
    admin = await d.start_redis()  # a fresh process: its default user writes every key again
    await results_written(admin, rid, players, within=10.0)


def refusing(prefix: str, but: str) -> list[str]:
    """ACL key patterns for every key but those starting with ``prefix``, and ``but`` (Redis 7.0 has no
    patterns that refuse: each character of the prefix is refused in turn)."""
    return ["resetkeys", *(f"~{prefix[:i]}[^{c}]*" for i, c in enumerate(prefix)), f"~{but}"]


async def test_a_race_ends_and_is_completed_while_its_to_finish_key_is_refused(
    deployment: Deployment,
) -> None:
    """Issue 20.14/20.15: the "to finish" record is written before the race's end; while the shard of its
    key refuses it (here every such key but one is refused by an ACL), the record goes to another key, the
    race ends all the same, and its results are written and the record dropped."""
    d = deployment
    assert d.admin is not None
    spare = finishing.bucket_key(finishing.BUCKETS // 2)
    await d.admin.execute_command("ACL", "SETUSER", "default", *refusing("races:{finish", but=spare))
    async with running_server(d.settings) as server:
        ann = await Client(server.ws, name="Ann").start(T)
        try:
            rid = (await new_race(ann, name="Ann"))["race"]
            await wait_start(await start(ann, rid))
            await ann.send({"t": "race_resign", "race": rid})
            view = await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
            assert [r["status"] for r in view["racers"]] == ["resigned"]
        finally:
            await ann.close()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + T  # the aftermath at once; the sweep drops the spare key's record later
        while not (await d.admin.exists(f"rec:{{{rid}-1}}") and await d.admin.zscore(spare, rid) is None):
            assert loop.time() < deadline, "the race's results or its to-finish record"
            await asyncio.sleep(0.1)
        assert all([await d.admin.zscore(k, rid) is None for k in finishing.KEYS])
