"""Small storage and wire rules around races: a player's list of unfinished games keeps its TTL, and
``too_many_games`` names the message it answers."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
import redis.asyncio as aioredis

from golfrace.settings import Settings
from golfrace.store.games import Store
from golfrace.store.keys import player_key

from .test_wire import T

pytestmark = pytest.mark.timeout(30)


async def test_the_unfinished_games_list_has_a_ttl_when_it_is_made_again(settings: Settings) -> None:
    rds = aioredis.Redis.from_url(settings.redis_url or "", socket_timeout=5)
    store = Store(rds, settings)
    player = "p-ttl-" + secrets.token_hex(4)
    key = player_key(player) + ":games"
    try:
        await store.set_open(player, "g1", True)
        await store.set_open(player, "g1", False)  # emptied: Redis drops the key
        assert not await rds.exists(key)
        await store.set_open(player, "g2", True)  # a ZADD makes it again, without TTL of its own
        assert 0 < await rds.ttl(key) <= settings.player_ttl
    finally:
        await store.batch.aclose()
        await rds.aclose()


async def test_too_many_games_answers_with_the_message_type(make_client: Any, server: Any) -> None:
    fan = await make_client(name="Fan")
    host = await make_client(name="Host")
    await host.send({"t": "race_new", "name": "Host"})
    rid = (await host.expect("race", T))["race"]
    for n in range(server.settings.max_open_games):
        await fan.send({"t": "board_watch", "board": f"daily:2020-03-{n + 1:02d}"})
        await fan.expect("board", T)
    for msg in ({"t": "race_new"}, {"t": "race_join", "race": rid}, {"t": "daily_play"}):
        await fan.send(msg)
        error = await fan.expect("error", T)
        assert error["code"] == "too_many_games" and error["ref"] == msg["t"], error
