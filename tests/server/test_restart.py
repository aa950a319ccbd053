"""Games survive: a server restart against the same Redis, and the embedded Redis's own restart."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from golfrace.store.embedded import RedisServer
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from .helpers import WIN_CODE

pytestmark = pytest.mark.timeout(60)


async def test_server_restart_keeps_games(settings) -> None:
    async with running_server(settings.with_(port=0)) as first:
        client = await Client(first.ws).start()
        view = await client.new(WIN_CODE)
        await client.act(view.game, "tap", col=5, seq=1)
        await client.act(view.game, "draw", seq=2)
        state, token, sid = dict(view.state), client.token, client.sid
        await client.close()
    async with running_server(settings.with_(port=0)) as second:
        client = await Client(second.ws, token=token, sid=sid).start()
        try:
            assert view.game in client.welcome["games"]
            again = await client.open(view.game)
            assert again.v == 2 and again.state == state
            assert (await client.act(view.game, "draw", seq=2))["v"] == 2  # remembered across the restart
            assert (await client.act(view.game, "draw", seq=3))["v"] == 3
        finally:
            await client.close()


async def test_embedded_redis_persists_across_its_restart(tmp_path) -> None:
    short = tmp_path / "r"
    with RedisServer(short) as first:
        r = aioredis.from_url(first.url)
        await r.set("game:{x}", "kept")
        await r.aclose()
    assert (short / "appendonly.aof").exists() or (short / "appendonlydir").exists()
    with RedisServer(short) as second:
        r = aioredis.from_url(second.url)
        assert await r.get("game:{x}") == b"kept"
        await r.aclose()


async def test_serve_with_embedded_redis_keeps_games_across_restarts(settings, tmp_path) -> None:
    import asyncio

    import psutil

    from golfrace_testkit.servers import start_process, stop_process

    embedded = settings.with_(port=0, redis_url=None, data_dir=str(tmp_path / "var"))
    first = await asyncio.to_thread(start_process, embedded)
    try:
        client = await Client(first.ws).start()
        view = await client.new(WIN_CODE)
        assert (await client.act(view.game, "draw"))["t"] == "ack"
        await client.close()
    finally:
        await asyncio.to_thread(stop_process, first)
    assert not [
        p for p in psutil.process_iter(["cmdline"]) if str(tmp_path) in " ".join(p.info["cmdline"] or [])
    ]
    second = await asyncio.to_thread(start_process, embedded.with_(port=0))
    try:
        client = await Client(second.ws, token=client.token).start()
        assert view.game in client.welcome["games"]
        assert (await client.open(view.game)).v == 1
        await client.close()
    finally:
        await asyncio.to_thread(stop_process, second)
