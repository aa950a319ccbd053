"""The hot path's own pieces: the compact stored state (and reading the older JSON form), the batcher on
redis-py and the hub's pub/sub listener, including losing and regaining Redis."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from golfrace.engine import Draw, Game, Undo
from golfrace.store.batcher import Batcher, batch_client
from golfrace.store.embedded import RedisServer, start_test_server
from golfrace.store.game_codec import decode_state, encode_state, history_text, next_history
from golfrace.store.pubsub import classic_hub
from golfrace.store.stored_game import Stored
from golfrace.wire.protocol import pack

pytestmark = pytest.mark.timeout(60)


def test_state_round_trips_and_history_grows_incrementally() -> None:
    rng = random.Random(7)
    for n in range(60):
        game = Game.new(("GO1-E-AAAAAAB", "GO1-C-AAAAAAC", "GO1-E-AAAAAAB-SJ2")[n % 3])
        stored = Stored("g", game, 0, "p", False, 0, {}, "")
        while game.legal_actions() and game.moves < 200:
            options = game.legal_actions() + ([Undo()] if game.history and rng.random() < 0.3 else [])
            after = game.apply(rng.choice(options))
            hist = next_history(stored.game, stored.hist, after)
            assert hist == history_text(after)
            assert decode_state(encode_state(after, hist)) == after
            stored, game = Stored("g", after, 0, "p", False, 0, {}, hist), after
        assert game.moves > 0


def test_older_json_state_is_read() -> None:
    game = Game.new("GO1-E-AAAAAAB").apply(Draw())
    assert decode_state(json.dumps(game.to_state()).encode()) == game


class _Collector:
    def __init__(self) -> None:
        self.got: list[tuple[str, dict]] = []

    def deliver(self, envelope) -> None:
        self.got.append((envelope.channel, envelope.message))


async def test_batcher_and_hub_survive_a_redis_restart(tmp_path) -> None:
    server = start_test_server(str(tmp_path / "a"))
    batch = Batcher(batch_client(server.url, 2, 5.0), 2, 5.0)
    plain = aioredis.from_url(server.url)
    hub = classic_hub(plain, server.url, origin=b"\x00ourself!")
    sub = _Collector()
    try:
        sha = batch.script("return {KEYS[1], ARGV[1]}")
        results = await asyncio.wait_for(
            asyncio.gather(*(batch.evalsha(sha, [f"k{i}"], [i]) for i in range(200))), 5
        )
        assert results == [[f"k{i}".encode(), str(i).encode()] for i in range(200)]  # each its own reply
        good, bad = await asyncio.wait_for(  # one batch: the error goes to its caller only
            asyncio.gather(
                batch.call("INCR", "n"), batch.call("HGET", "n", "x", "y"), return_exceptions=True
            ),
            5,
        )
        assert good == 1 and isinstance(bad, ResponseError)
        good, bad = await asyncio.wait_for(  # a command that cannot even be encoded fails only its caller
            asyncio.gather(batch.call("INCR", "n"), batch.call("SET", "s", "\ud800"), return_exceptions=True),
            5,
        )
        assert good == 2 and isinstance(bad, UnicodeEncodeError)
        assert await asyncio.wait_for(batch.transaction([("SET", "t", "1"), ("INCR", "t")]), 5) == [b"OK", 2]
        await asyncio.wait_for(hub.start(), 5)
        await asyncio.wait_for(hub.subscribe("chan", sub), 5)
        await batch.call("PUBLISH", "chan", pack({"n": 1}))
        await batch.call("PUBLISH", "chan", b"\x00ourself!" + pack({"n": 0}))  # our own echo: skipped
        await batch.call("PUBLISH", "chan", b"\x00another!" + pack({"n": 2}))  # another's: prefix stripped
        await asyncio.wait_for(_until(lambda: len(sub.got) == 2), 5)
        assert sub.got == [("chan", {"n": 1}), ("chan", {"n": 2})]

        port = server.port
        server.stop()
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(batch.call("PING"), 5)
        await asyncio.wait_for(_until(lambda: "chan" not in hub.confirmed), 5)
        server = RedisServer(tmp_path / "b", port=port, persist=False).start()
        assert await asyncio.wait_for(batch.call("PING"), 5) is True  # reconnected on next use
        assert await asyncio.wait_for(batch.evalsha(sha, ["x"], [1]), 5) == [b"x", b"1"]  # NOSCRIPT: loaded
        await asyncio.wait_for(_until(lambda: "chan" in hub.confirmed), 10)  # subscribed again
        await batch.call("PUBLISH", "chan", pack({"n": 3}))
        await asyncio.wait_for(_until(lambda: sub.got[-1:] == [("chan", {"n": 3})]), 5)
    finally:
        await hub.stop()
        await batch.aclose()
        await plain.aclose()
        server.stop()


async def _until(condition, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_batcher_selects_the_database_of_the_url(redis_url) -> None:
    base = redis_url.rsplit("/", 1)[0] if redis_url.count("/") > 2 else redis_url
    batch = Batcher(batch_client(base + "/5", 2, 5.0), 2, 5.0)
    other = aioredis.from_url(base + "/5")
    try:
        await asyncio.wait_for(batch.call("SET", "golfrace:test:db", "five"), 5)
        assert await other.get("golfrace:test:db") == b"five"
    finally:
        await other.delete("golfrace:test:db")
        await other.aclose()
        await batch.aclose()


async def test_batcher_times_out_a_silent_redis() -> None:
    """A Redis that accepts and never answers: the callers get redis-py's TimeoutError after the batch
    timeout (and its retries), not a hang; the batch is timed as a whole."""
    held: list[asyncio.StreamWriter] = []

    async def silent(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    batch = Batcher(batch_client(f"redis://127.0.0.1:{port}/0", 2, 0.2), 2, 0.2)
    try:
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisTimeoutError):
            await asyncio.wait_for(batch.call("PING"), 5)
        assert asyncio.get_running_loop().time() - started < 3
        assert held  # it did connect
    finally:
        await batch.aclose()
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()
