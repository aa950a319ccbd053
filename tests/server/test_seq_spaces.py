"""Seq spaces cost something and a game keeps a few (issue 19.4): a ``sid`` is made by the server for its
player (signed), a new one costs a token of the network's ``sid`` bucket while a reconnect that shows its
own is free, and one game keeps the answers of at most ``seq_spaces_per_game`` seq spaces of a player: an
older one's later moves are answered ``stale_seq``, never applied again. Over real websockets."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from golfrace.live.limits import GENEROUS
from golfrace.settings import Settings
from golfrace.store.keys import game_key
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

T = 10.0
CODE = "GO1-E-AAAAAAB"


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        await client.close()


async def _start(server: RunningServer, made: list[Client], **kwargs: object) -> Client:
    client = Client(server.ws, **kwargs)  # type: ignore[arg-type]
    made.append(client)
    return await client.start(T)


async def test_a_sid_is_the_servers_and_a_made_up_one_is_replaced(server: RunningServer, clients) -> None:
    ann = await _start(server, clients)
    assert ann.sid and server.ctx.tokens.sid_ok(ann.player, ann.sid)
    back = await _start(server, clients, token=ann.token, sid=ann.sid)
    assert back.sid == ann.sid  # its own: the same seq space
    made_up = await _start(server, clients, token=ann.token, sid="mine1")
    assert made_up.sid not in ("mine1", ann.sid)
    bob = await _start(server, clients)
    borrowed = await _start(server, clients, token=bob.token, sid=ann.sid)  # another player's
    assert borrowed.sid != ann.sid


async def test_new_sids_are_charged_per_network(settings: Settings, redis_url: str, clients) -> None:
    ours = settings.with_(port=0, **{**GENEROUS, "limit_sid_burst": 3, "limit_sid_per_hour": 1.0})
    async with running_server(ours) as server:
        await server.ctx.redis.delete("limit:{sid|127.0.0.1}")
        try:
            first = await _start(server, clients)
            for _ in range(2):
                await _start(server, clients, token=first.token)
            extra = Client(server.ws, token=first.token)
            clients.append(extra)
            await extra.connect(T)
            await extra.send({"t": "hello", "token": first.token, "lang": "en"})
            refused = await extra.expect("error", T)
            assert refused["code"] == "rate_limited" and refused["params"]["kind"] == "sid", refused
            again = await _start(server, clients, token=first.token, sid=first.sid)  # showing its own: free
            assert again.sid == first.sid
        finally:
            await server.ctx.redis.delete("limit:{sid|127.0.0.1}")


async def test_a_game_keeps_a_few_seq_spaces_of_a_player(settings: Settings, clients) -> None:
    async with running_server(settings.with_(port=0, seq_spaces_per_game=2)) as server:
        tabs = [await _start(server, clients)]
        tabs += [await _start(server, clients, token=tabs[0].token) for _ in range(2)]
        game = (await tabs[0].new(CODE)).game
        for tab in tabs[1:]:
            await tab.open(game, "player", T)
        for i, tab in enumerate(tabs):
            answer = await tab.act(game, "draw" if i % 2 == 0 else "undo", timeout=T)
            assert answer["t"] == "ack", answer
        # the third seq space dropped the first's answers: its next move is refused, not applied anew
        late = await tabs[0].act(game, "draw", timeout=T)
        assert late["t"] == "error" and late["code"] == "stale_seq", late
        spaces = {k.decode().split("#")[0] for k in await server.ctx.redis.hkeys(game_key(game) + ":seq")}
        player = tabs[0].player
        assert spaces == {f"@{player}", *(f"{player}/{t.sid}" for t in tabs)}
        answers = [k for k in await server.ctx.redis.hkeys(game_key(game) + ":seq") if b"#" in k]
        assert all(not k.decode().startswith(f"{player}/{tabs[0].sid}#") for k in answers)
        assert (await tabs[1].act(game, "draw", timeout=T))["t"] == "ack"  # the kept ones play on
