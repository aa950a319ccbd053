"""A frozen Redis (a real redis-server under SIGSTOP): every request is answered within its deadline
(`request_timeout_s`) with `unavailable`, the connection's other frames (ping) do not wait behind a pending
move, and a move answered `unavailable` that Redis then applied is resent with the same seq and lands once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from golfrace.live.ordering import keys_of
from golfrace.races.timers import retrying
from golfrace.store.embedded import RedisServer, start_test_server
from golfrace.wire.errors import cause
from golfrace_client.bot import run as run_bot
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from .helpers import WIN_CODE

pytestmark = pytest.mark.timeout(90)
DEADLINE_S = 0.5


@contextlib.contextmanager
def frozen(redis: RedisServer) -> Iterator[None]:
    assert redis.process is not None
    os.kill(redis.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(redis.process.pid, signal.SIGCONT)


async def test_a_frozen_redis_gets_a_timely_unavailable(settings: Any, tmp_path: Path) -> None:
    redis = start_test_server(tmp_path / "redis")
    own = settings.with_(port=0, redis_url=redis.url, request_timeout_s=DEADLINE_S, health_timeout_s=0.5)
    try:
        async with running_server(own) as server:
            player = Client(server.ws)
            await player.start()
            view = await player.new(WIN_CODE)
            move = view.legal()[0]
            loop = asyncio.get_running_loop()
            with frozen(redis):
                started = loop.time()
                await player.send({"t": "act", "game": view.game, "seq": 100, "rid": "m", **move})
                pong = await player.ping(timeout=DEADLINE_S)  # not behind the pending move
                assert pong["t"] == "pong"
                answer = await player.expect("error", 5, where=lambda m: m.get("rid") == "m")
                assert (answer["code"], answer["ref"]) == ("unavailable", 100)
                assert loop.time() - started < DEADLINE_S + 1.0
                # a new game and a new connection's hello: the same deadline
                await player.send({"t": "new", "rid": "n"})
                late_new = await player.expect(None, 5, where=lambda m: m.get("rid") == "n")
                assert (late_new["t"], late_new["code"]) == ("error", "unavailable")
                newcomer = Client(server.ws)
                await newcomer.connect()
                await newcomer.send({"t": "hello", "rid": "h"})
                late_hello = await newcomer.expect(None, 5, where=lambda m: m.get("rid") == "h")
                assert (late_hello["t"], late_hello["code"]) == ("error", "unavailable")
                await newcomer.close()
                async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
                    health = await http.get("/healthz")
                assert health.status_code == 503 and health.json()["redis"] == "TimeoutError"
            # unknown outcome: the same seq again (Client.act resends it until it has the move's answer)
            again = await player.act(view.game, seq=100, timeout=20, **move)
            assert again["t"] == "ack", again
            await player.wait_version(view.game, again["v"])
            assert again["v"] == 1  # applied once, whether or not the frozen commit had reached Redis
            fresh = Client(server.ws, token=player.token)
            await fresh.start()
            assert (await fresh.open(view.game, "watcher")).v == 1
            await fresh.close()
            await player.close()
    finally:
        redis.stop()


async def test_the_bot_plays_more_games_than_a_connection_may_follow(settings: Any) -> None:
    """`golfrace bot --games 20` stopped at game 17 (too_many_games): it now closes each finished game."""
    async with running_server(settings.with_(port=0, max_open_games=2)) as server:
        results = await asyncio.wait_for(run_bot(server.ws, 5, "easy", seed=3), 60)
    assert len(results) == 5 and all(r.status in ("won", "stuck") for r in results)


async def test_a_routine_retry_logs_one_line_with_its_cause(caplog: pytest.LogCaptureFixture) -> None:
    """A race resend retried while Redis restarts: a warning naming the cause, no traceback."""
    calls: list[int] = []

    async def attempt() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    with caplog.at_level(logging.WARNING, logger="golfrace.races"):
        await asyncio.wait_for(retrying(attempt, (0.0,), (), "resending race r1"), 5)
    assert len(calls) == 2
    [record] = [r for r in caplog.records if "resending race r1" in r.getMessage()]
    assert not record.exc_info and "ConnectionError: Error 111" in record.getMessage()


def test_a_logged_cause_says_what_happened() -> None:
    try:
        try:
            raise TimeoutError
        except TimeoutError as exc:
            raise RedisConnectionError("Redis batch failed") from exc
    except RedisConnectionError as exc:
        assert cause(exc) == "ConnectionError: Redis batch failed <- TimeoutError"


def test_what_waits_for_what() -> None:
    assert keys_of({"t": "ping"}) == frozenset()
    assert keys_of({"t": "act", "game": "g1"}) == frozenset({"g1"})
    seat = {"t": "act", "game": "rabcdefghijk-2"}
    assert keys_of(seat) == keys_of({"t": "race_act", "race": "rabcdefghijk"})  # a race and its seats
    for t in ("hello", "new", "open", "close", "watch", "daily", "race_new", "board_watch"):
        assert keys_of({"t": t, "game": "g1", "race": "r1", "board": "b"}) is None  # waits for everything


async def test_a_stalled_game_holds_up_only_itself(settings: Any, make_client: Any) -> None:
    async with running_server(settings.with_(port=0, request_timeout_s=10.0)) as server:
        player = await make_client(server.ws)
        slow, fast = await player.new(WIN_CODE), await player.new(WIN_CODE)
        release = asyncio.Event()
        store = server.ctx.store
        real_commit = store.commit

        async def commit(stored: Any, *args: Any, **kwargs: Any) -> Any:
            if stored.id == slow.game:
                await release.wait()
            return await real_commit(stored, *args, **kwargs)

        store.commit = commit
        move = slow.legal()[0]
        await player.send({"t": "act", "game": slow.game, "seq": 1, "rid": "slow", **move})
        await player.send({"t": "act", "game": fast.game, "seq": 1, "rid": "fast", **move})
        assert (await player.expect(None, 5, where=lambda m: m.get("rid") == "fast"))["t"] == "ack"
        assert (await player.ping())["t"] == "pong"
        await player.send({"t": "new", "rid": "after"})  # waits for every earlier request
        await player.send({"t": "act", "game": slow.game, "seq": 2, "a": "draw", "rid": "next"})
        release.set()
        order = [
            (await player.expect(None, 5, where=lambda m, r=rid: m.get("rid") == r), rid)
            for rid in ("slow", "after", "next")
        ]
        assert [m["t"] for m, _ in order] == ["ack", "snapshot", "ack"]
        rids = [f.get("rid") for f in player.frames if f.get("rid") in ("slow", "after", "next", "fast")]
        assert rids == ["fast", "slow", "after", "next"]  # in the order each one's turn came
