"""Hints come from a bounded queue (issue 19.4): at most ``hints.workers`` computed at once in worker
processes, ``hints.queue`` more waiting, one hint per player at a time over all its connections, and a token
of the network's ``hint`` bucket per hint. The refusals, as a table of the queue and over real websockets."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from golfrace.engine import Game, GameCode
from golfrace.live.hint_queue import HintQueue, HintRefused
from golfrace.live.hints import queue_of
from golfrace.settings import HintSettings, Settings
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from ..waiting import until
from .helpers import WIN_CODE

pytestmark = pytest.mark.timeout(60)
T = 15.0


def test_the_queue_admits_workers_plus_queue_and_one_per_player() -> None:
    queue = HintQueue(HintSettings(workers=1, queue=2, per_player=1, max_seconds=2.0))
    for player in ("pa", "pb", "pc"):
        queue.admit(player)
    with pytest.raises(HintRefused) as full:
        queue.admit("pd")
    assert full.value.reason == "queue_full" and full.value.retry_ms >= 2000
    with pytest.raises(HintRefused) as mine:
        queue.admit("pa")
    assert mine.value.reason == "player"
    assert queue.queued == 3 and dict(queue.players) == {"pa": 1, "pb": 1, "pc": 1}


async def test_a_run_frees_its_place_and_computes_in_a_worker_process() -> None:
    queue = HintQueue(HintSettings(workers=1, queue=0, per_player=1))
    try:
        queue.admit("pa")
        with pytest.raises(HintRefused):
            queue.admit("pb")
        action, winnable, _best = await asyncio.wait_for(
            queue.run("pa", Game.new(GameCode.parse(WIN_CODE))), T
        )
        assert winnable is True and action is not None
        assert queue.queued == 0 and not queue.players
        queue.admit("pb")  # room again
    finally:
        queue.close()


async def _ask(client: Client, game: str) -> dict[str, Any]:
    await client.send({"t": "hint", "game": game})
    return await client.expect(
        None, T, where=lambda m: (m.get("t") == "hint" and m.get("game") == game) or m.get("ref") == "hint"
    )


async def test_over_websockets_a_full_queue_and_a_second_hint_of_a_player_are_refused(
    settings: Settings,
) -> None:
    ours = settings.with_(
        port=0, hints=replace(settings.hints, workers=1, queue=0, per_player=1, in_flight=4)
    )
    async with running_server(ours) as server:
        ann, bob = Client(server.ws), Client(server.ws)
        try:
            await ann.start(T)
            ann2 = await Client(server.ws, token=ann.token).start(T)
            await bob.start(T)
            a_game = (await ann.new(WIN_CODE)).game
            await ann2.open(a_game, "player", T)
            b_game = (await bob.new(WIN_CODE)).game
            # Ann's hint takes the only place (its worker process starts first: well over the frames below).
            # Her second connection asks only once the server holds the first: two sockets of one player
            # race each other, and the second could otherwise be the one admitted.
            queue = queue_of(server.ctx)
            await ann.send({"t": "hint", "game": a_game})
            await until(lambda: queue.players[str(ann.player)] == 1, "Ann's first hint admitted")
            again = await _ask(ann2, a_game)  # Ann's second connection: one per player
            other = await _ask(bob, b_game)  # Bob: the queue is full
            first = await ann.expect("hint", T)
            assert first["move"] is not None
            assert again["t"] == "error" and again["code"] == "hint_busy", again
            assert again["params"]["reason"] == "player"
            assert other["t"] == "error" and other["code"] == "hint_busy", other
            assert other["params"]["reason"] == "queue_full" and other["params"]["retry_ms"] > 0
            assert (await _ask(bob, b_game))["t"] == "hint"  # Ann's is done: room again
        finally:
            for c in (ann, bob):
                await c.close()


async def test_hints_are_charged_to_the_network(settings: Settings) -> None:
    ours = settings.with_(port=0, limit_hint_burst=2, limit_hint_per_hour=1.0)
    ours = ours.with_(redis_url=settings.redis_url)
    async with running_server(ours) as server:
        client = Client(server.ws)
        try:
            await client.start(T)
            await server.ctx.redis.delete("limit:{hint|127.0.0.1}")
            game = (await client.new(WIN_CODE)).game
            for _ in range(2):
                assert (await _ask(client, game))["t"] == "hint"
            refused = await _ask(client, game)
            assert refused["code"] == "rate_limited" and refused["params"]["kind"] == "hint", refused
        finally:
            await client.close()
            await server.ctx.redis.delete("limit:{hint|127.0.0.1}")
