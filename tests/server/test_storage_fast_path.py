"""The hot path's own pieces: the compact stored state (and reading the older JSON form), the pipelined
Redis connection and the pub/sub connection, including losing and regaining Redis."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from golfrace.engine import Draw, Game, Undo
from golfrace.redis_server import RedisServer, start_test_server
from golfrace.resp import Pipe, Subscription
from golfrace.store import Stored, decode_state, encode_state, history_text, next_history

pytestmark = pytest.mark.timeout(60)


def test_state_round_trips_and_history_grows_incrementally() -> None:
    rng = random.Random(7)
    for n in range(60):
        game = Game.new(("GO1-E-AAAAAAB", "GO1-C-AAAAAAC", "GO1-E-AAAAAAB-SJ2")[n % 3])
        stored = Stored("g", game, 0, "p", False, 0, {}, "")
        while game.legal_actions() and game.moves < 200:
            options = game.legal_actions() + ([Undo()] if game.history and rng.random() < 0.3 else [])
            after = game.apply(rng.choice(options))
            hist = next_history(stored, after)
            assert hist == history_text(after)
            assert decode_state(encode_state(after, hist)) == after
            stored, game = Stored("g", after, 0, "p", False, 0, {}, hist), after
        assert game.moves > 0


def test_older_json_state_is_read() -> None:
    game = Game.new("GO1-E-AAAAAAB").apply(Draw())
    assert decode_state(json.dumps(game.to_state()).encode()) == game


async def test_pipe_and_subscription_survive_a_redis_restart(tmp_path) -> None:
    server = start_test_server(str(tmp_path / "a"))
    got: list[tuple[str, bytes]] = []
    pipe = Pipe(server.url)
    sub = Subscription(server.url, lambda channel, data: got.append((channel, data)))
    try:
        sha = pipe.script("return {KEYS[1], ARGV[1]}")
        results = await asyncio.wait_for(
            asyncio.gather(*(pipe.evalsha(sha, [f"k{i}"], [i]) for i in range(200))), 5
        )
        assert results == [[f"k{i}".encode(), str(i).encode()] for i in range(200)]  # in order, pipelined
        await asyncio.wait_for(sub.start(), 5)
        await sub.subscribe("chan", 5)
        assert await asyncio.wait_for(pipe.call("PUBLISH", "chan", b"one"), 5) == 1
        await asyncio.wait_for(_until(lambda: got == [("chan", b"one")]), 5)

        port = server.port
        server.stop()
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(pipe.call("PING"), 5)
        server = RedisServer(tmp_path / "b", port=port, persist=False).start()
        assert await asyncio.wait_for(pipe.call("PING"), 5) == b"PONG"  # reconnected on next use
        assert await asyncio.wait_for(pipe.evalsha(sha, ["x"], [1]), 5) == [b"x", b"1"]  # NOSCRIPT → EVAL
        await asyncio.wait_for(_until(lambda: "chan" in sub.confirmed), 10)  # subscribed again
        await pipe.call("PUBLISH", "chan", b"two")
        await asyncio.wait_for(_until(lambda: got[-1:] == [("chan", b"two")]), 5)
    finally:
        await sub.stop()
        await pipe.aclose()
        server.stop()


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.01)


async def test_pipe_selects_the_database_of_the_url(redis_url) -> None:
    base = redis_url.rsplit("/", 1)[0] if redis_url.count("/") > 2 else redis_url
    pipe = Pipe(base + "/5")
    other = aioredis.from_url(base + "/5")
    try:
        await asyncio.wait_for(pipe.call("SET", "golfrace:test:db", "five"), 5)
        assert await other.get("golfrace:test:db") == b"five"
    finally:
        await other.delete("golfrace:test:db")
        await other.aclose()
        await pipe.aclose()
