"""The last move of a Play game is acknowledged at once, whatever the shard of the player's own keys does
(issue 20.15): on a Redis Cluster the open-games index (``player:{P}:games``) and the history (``hist:{P}``)
live on the player's slot, the game on its own; with the player's shard in a failover the stored move was
answered ``unavailable``. Here a real Redis refuses those keys (an ACL: the server's user may not touch
``player:*`` nor ``hist:*``): the ``ack`` comes at once, and once Redis takes them again, what follows the
move (the index, the history) is written by retry, without another request."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from golfrace.settings import Settings
from golfrace.store.embedded import RedisServer
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from ..own_server import private_redis
from .helpers import WIN_CODE, WIN_MOVES

T = 10.0
NOT_THE_PLAYERS = ["resetkeys", "~[^ph]*", "~p[^l]*", "~pl[^a]*", "~h[^i]*", "~hi[^s]*"]
"""Every key but ``player:*`` and ``hist:*`` (Redis 6.2 has only allow-patterns)."""


@pytest.fixture
def fresh_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis(tmp_path) as server:
        yield server


async def test_the_last_move_is_acked_at_once_and_what_follows_it_is_written_by_retry(
    settings: Settings, fresh_redis: RedisServer
) -> None:
    admin = aioredis.Redis.from_url(fresh_redis.url)
    await admin.execute_command("ACL", "SETUSER", "admin", "on", ">admin-pass", "~*", "&*", "+@all")
    await admin.aclose()
    admin = aioredis.Redis.from_url(fresh_redis.url.replace("redis://", "redis://admin:admin-pass@"))
    async with running_server(settings.with_(port=0, redis_url=fresh_redis.url)) as server:
        client = await Client(server.ws, name="Ann").start(T)
        try:
            view = await client.new(WIN_CODE, timeout=T)
            game, tokens = view.game, WIN_MOVES.split()
            for tok in tokens[:-1]:
                move = {"a": "draw"} if tok == "d" else {"a": "tap", "col": int(tok)}
                assert (await client.act(game, **move, timeout=T))["t"] == "ack"
            player = client.player
            assert await admin.zscore(f"player:{{{player}}}:games", game) is not None
            await admin.execute_command("ACL", "SETUSER", "default", *NOT_THE_PLAYERS)
            last = tokens[-1]
            move = {"a": "draw"} if last == "d" else {"a": "tap", "col": int(last)}
            loop = asyncio.get_running_loop()
            began = loop.time()
            seq = 1_000  # sent by hand: the first answer counts (Client.act resends an "unavailable")
            await client.send({"t": "act", "game": game, "seq": seq, **move})
            answer = await client.expect(None, T, where=lambda m: m.get("seq") == seq or m.get("ref") == seq)
            took = loop.time() - began
            assert answer["t"] == "ack", answer  # stored: acknowledged, not "unavailable"
            assert took < 1.0, f"the ack took {took:.2f} s"
            await client.wait_version(game, answer["v"], T)
            assert client.views[game].status == "won"
            assert not await admin.exists(f"hist:{{{player}}}:g")  # refused so far
            await admin.execute_command("ACL", "SETUSER", "default", "resetkeys", "~*")
            deadline = loop.time() + T
            while await admin.zscore(
                f"player:{{{player}}}:games", game
            ) is not None or not await admin.exists(f"hist:{{{player}}}:g"):
                assert loop.time() < deadline, "what follows the last move was not written"
                await asyncio.sleep(0.05)
        finally:
            await client.close()
            await admin.aclose()


async def test_what_follows_the_last_move_is_kept_durably_and_completed_after_a_kill(
    settings: Settings, fresh_redis: RedisServer, tmp_path: Path
) -> None:
    """The server is killed -9 while the player's keys are still refused: the durable "to follow" record
    (``follow:{n}``, written before the ack) is completed by the restarted server, without any request."""
    from golfrace.live.solo_follow import BUCKETS, bucket_key
    from golfrace_testkit.servers import start_process, stop_process

    admin = aioredis.Redis.from_url(fresh_redis.url)
    await admin.execute_command("ACL", "SETUSER", "admin", "on", ">admin-pass", "~*", "&*", "+@all")
    await admin.aclose()
    admin = aioredis.Redis.from_url(fresh_redis.url.replace("redis://", "redis://admin:admin-pass@"))
    running = await asyncio.to_thread(
        start_process, settings.with_(port=0, redis_url=fresh_redis.url), log=tmp_path / "serve.log"
    )
    client = await Client(running.ws, name="Ann").start(T)
    try:
        view = await client.new(WIN_CODE, timeout=T)
        game, tokens = view.game, WIN_MOVES.split()
        for tok in tokens:
            if tok == tokens[-1] and client.views[game].v == len(tokens) - 1:
                await admin.execute_command("ACL", "SETUSER", "default", *NOT_THE_PLAYERS)
            move = {"a": "draw"} if tok == "d" else {"a": "tap", "col": int(tok)}
            assert (await client.act(game, **move, timeout=T))["t"] == "ack"
        player = client.player
        kept = [await admin.zrange(bucket_key(n), 0, -1) for n in range(BUCKETS)]
        assert any(m.decode().startswith(f"{game}|{player}|") for ms in kept for m in ms), kept
        assert running.process is not None
        running.process.kill()  # SIGKILL: its retrying task dies with it
        running.process.wait(T)
        await client.close()
        await admin.execute_command("ACL", "SETUSER", "default", "resetkeys", "~*")
        running = await asyncio.to_thread(start_process, running.settings, log=tmp_path / "serve.log")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 8
        while not await admin.exists(f"hist:{{{player}}}:g"):
            assert loop.time() < deadline, "the restarted server did not complete what followed the end"
            await asyncio.sleep(0.1)
        assert await admin.zscore(f"player:{{{player}}}:games", game) is None
    finally:
        await client.close()
        await asyncio.to_thread(stop_process, running)
        await admin.aclose()
