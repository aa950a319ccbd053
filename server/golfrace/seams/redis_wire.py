"""The store's batcher below redis-py's pipeline API: what a ``transaction=False`` pipeline does for one
batch, without the pipeline object and the pool checkout per batch.

A batch goes out on a connection the batcher holds (made by the client's pool, ``connection``): its
commands packed by redis-py (``pack``), written in one write and each reply read by the client's
``parse_response`` with its response callbacks, a Redis error being that command's reply (``exchange``),
the whole under redis-py's ``Retry`` of the connection (``with_retry``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection as AbstractConnection
from redis.asyncio.connection import Connection
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

T = TypeVar("T")


def connection(client: aioredis.Redis) -> AbstractConnection:
    """A new connection of ``client``'s pool kind (its URL, database, retry, timeouts), not checked out: the
    caller holds it (it connects on first use)."""
    return client.connection_pool.make_connection()  # type: ignore[no-untyped-call,no-any-return]


def pack(conn: AbstractConnection, commands: list[tuple[Any, ...]]) -> list[bytes]:
    """The commands encoded for the wire, as one buffer: the bytes redis-py's ``pack_commands`` writes (its
    encoder for each argument, a first argument with spaces split into words), but joined once for the
    whole batch; redis-py's own joins the buffer again for every argument, which at a commit's 23 arguments
    and a race's JSON was a tenth of a race seat's server CPU. Raises (``DataError``) for an argument
    redis-py cannot encode."""
    encoder = conn.encoder
    encode: Callable[[Any], bytes] = encoder.encode
    utf8 = encoder.encoding == "utf-8" and encoder.encoding_errors == "strict"  # str.encode()'s own
    parts: list[Any] = []
    add = parts.append
    for args in commands:
        first = args[0]
        if isinstance(first, str):
            if " " in first:
                args = (*first.encode().split(), *args[1:])
        elif b" " in first:
            args = (*first.split(), *args[1:])
        add(b"*%d\r\n" % len(args))
        for arg in args:
            kind = type(arg)
            data = arg if kind is bytes else arg.encode() if kind is str and utf8 else encode(arg)
            add(b"$%d\r\n" % len(data))
            add(data)
            add(b"\r\n")
    return [b"".join(parts)]


async def exchange(
    client: aioredis.Redis,
    conn: AbstractConnection,
    commands: list[tuple[Any, ...]],
    packed: list[bytes],
    timeout: float,
) -> list[Any]:
    """One write of every command, then each reply (a Redis error is that command's reply), parsed by
    redis-py as a pipeline would (its response callbacks included), all within ``timeout`` seconds; beyond
    it the connection is dropped and redis-py's ``TimeoutError`` raised. Connects on first use."""
    replies: list[Any] = []
    try:
        async with asyncio.timeout(timeout):
            await conn.send_packed_command(packed)
            for args in commands:
                try:
                    replies.append(await client.parse_response(cast(Connection, conn), args[0]))
                except ResponseError as error:
                    replies.append(error)
    except TimeoutError as exc:  # the builtin one: redis-py's, so that its retry treats it as lost
        await conn.disconnect(nowait=True)
        raise RedisTimeoutError(f"Redis batch took over {timeout} s") from exc
    return replies


async def with_retry(conn: AbstractConnection, attempt: Callable[[], Awaitable[T]]) -> T:
    """``attempt`` under the connection's redis-py ``Retry``: a lost connection is disconnected (it
    reconnects on the next attempt) and tried again as configured."""
    return await conn.retry.call_with_retry(attempt, lambda error: conn.disconnect(error=error))


async def drop(conn: AbstractConnection) -> None:
    """Disconnect at once, without waiting for the socket: whatever was on the wire is unknown now."""
    await conn.disconnect(nowait=True)


async def close(conn: AbstractConnection) -> None:
    """Disconnect an idle connection (the batcher is closing), waiting for the socket to close."""
    await conn.disconnect()
