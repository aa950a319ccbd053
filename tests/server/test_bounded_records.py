"""Per-game and per-player records are bounded by rules and settings (issue 19.5): the move log
(``game:{ID}:log``) holds at most ``max_game_actions`` entries, however long a casual game is kept going with
draw and undo; the next move is refused ``too_many_moves`` (and resending it gets the same answer)."""

from __future__ import annotations

import pytest

from golfrace.settings import Settings
from golfrace.store.keys import game_key
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

T = 10.0
CAP = 12


@pytest.mark.parametrize("cap", [CAP])
async def test_the_move_log_of_a_game_is_bounded(settings: Settings, cap: int) -> None:
    async with running_server(settings.with_(port=0, max_game_actions=cap)) as server:
        client = await Client(server.ws).start(T)
        try:
            game = (await client.new("GO1-E-AAAAAAB")).game
            for i in range(cap):
                answer = await client.act(game, "draw" if i % 2 == 0 else "undo", timeout=T)
                assert answer["t"] == "ack", (i, answer)
            refused = await client.act(game, "draw", timeout=T)
            assert refused["t"] == "refused" and refused["code"] == "too_many_moves", refused
            assert refused["params"] == {"max": cap}
            again = await client.act(game, "draw", seq=refused["seq"], timeout=T)  # resent: the same answer
            assert again["t"] == "refused" and again["code"] == "too_many_moves"
            assert await server.ctx.redis.llen(game_key(game) + ":log") == cap
        finally:
            await client.close()
