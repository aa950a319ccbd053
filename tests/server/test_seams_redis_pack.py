"""``redis_wire.pack`` writes, for every batch, the very bytes redis-py's ``pack_commands`` writes (it packs
once for the whole batch instead of joining its buffer again per argument), and refuses what redis-py's
encoder refuses."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import DataError

from golfrace.seams import redis_wire

BATCHES: list[list[tuple[Any, ...]]] = [
    [("PING",)],
    [("GET", "race:{r1}"), ("HMGET", "g:{a}", "state", "v", "meta"), ("LINDEX", "g:{a}:log", -1)],
    [("SCRIPT LOAD", "return 1"), (b"CONFIG GET", b"maxmemory")],  # a first word with a space: split
    [("EVALSHA", "ab" * 20, 2, "k1", "k2", b"\x00" * 7000, 1.5, -3, 2**70, "é ü", b"")],  # past the cutoff
    [("HSET", "h", memoryview(b"abc"), bytearray(b"zz")), ("MULTI",), ("EXPIRE", "h", 60), ("EXEC",)],
    [("SET", "k", "x" * 5999), ("SET", "k", "y" * 6001), ("PUBLISH", "c", b"\x00" + b"m" * 9000)],
]


def _client(**options: Any) -> aioredis.Redis:
    return aioredis.Redis.from_url("redis://127.0.0.1:1/0", **options)  # never connected


@pytest.mark.parametrize("batch", BATCHES)
def test_a_batch_is_packed_as_redis_py_packs_it(batch: list[tuple[Any, ...]]) -> None:
    conn = redis_wire.connection(_client())
    theirs = b"".join(bytes(part) for part in conn.pack_commands(batch))
    assert b"".join(redis_wire.pack(conn, batch)) == theirs


def test_a_client_with_another_encoding_packs_text_with_it() -> None:
    conn = redis_wire.connection(_client(encoding="latin-1"))
    batch: list[tuple[Any, ...]] = [("SET", "clé", "été")]
    packed = b"".join(redis_wire.pack(conn, batch))
    assert packed == b"".join(bytes(part) for part in conn.pack_commands(batch))
    assert "été".encode("latin-1") in packed


@pytest.mark.parametrize("bad", [True, None, 1j, ["a"], {"a": 1}])
def test_an_argument_redis_py_cannot_encode_is_refused(bad: Any) -> None:
    conn = redis_wire.connection(_client())
    with pytest.raises(DataError):
        conn.pack_commands([("SET", "k", bad)])
    with pytest.raises(DataError):
        redis_wire.pack(conn, [("SET", "k", bad)])
