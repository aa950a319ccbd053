"""Games survive: a server restart against the same Redis, and the embedded Redis's own restart."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from golfrace.client import Client
from golfrace.redis_server import RedisServer
from golfrace.testing import running_server

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
