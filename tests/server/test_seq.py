"""Sequence numbers: a resent seq gets the same answer and is never applied twice; two connections of one
player acting at once give some sequential order."""

from __future__ import annotations

import asyncio

import pytest

from golfrace_client.client import Client

from .helpers import WIN_CODE

pytestmark = pytest.mark.timeout(60)


async def test_resent_seq_is_answered_never_applied_twice(make_client) -> None:
    client = await make_client()
    view = await client.new(WIN_CODE)
    first = await client.act(view.game, "tap", col=5, seq=7)
    assert first == {"t": "ack", "game": view.game, "seq": 7, "v": 1}
    again = await client.act(view.game, "tap", col=5, seq=7)
    assert again == first
    # even a different action under the same seq: the earlier answer, nothing applied
    assert await client.act(view.game, "draw", seq=7) == first
    refused = await client.act(view.game, "tap", col=1, row=1, seq=8)
    assert refused["t"] == "refused"
    assert await client.act(view.game, "draw", seq=8) == refused
    assert (await client.act(view.game, "draw", seq=3))["code"] == "stale_seq"
    await client.ping()
    assert view.v == 1 and view.state["moves"] == 1


async def test_resend_after_reconnect_with_same_sid(make_client) -> None:
    client = await make_client()
    view = await client.new(WIN_CODE)
    assert (await client.act(view.game, "tap", col=5, seq=1))["t"] == "ack"
    await client.close()
    again = await make_client(token=client.token, sid=client.sid)
    assert again.player == client.player and view.game in again.welcome["games"]
    await again.open(view.game)
    assert (await again.act(view.game, "tap", col=5, seq=1))["v"] == 1  # same answer
    assert again.views[view.game].v == 1


async def test_two_connections_of_one_player_are_sequential(make_client, server) -> None:
    a = await make_client()
    b = await make_client(token=a.token)
    watcher = await make_client()
    assert a.player == b.player and a.sid != b.sid
    view = await a.new(WIN_CODE)
    await b.open(view.game)
    await watcher.open(view.game, "watcher")

    async def hammer(client: Client, n: int) -> list[dict]:
        answers = []
        for _ in range(n):
            seq = client.next_seq()
            answers.append(await client.act(view.game, "draw", seq=seq))
        return answers

    results = await asyncio.gather(hammer(a, 10), hammer(b, 10))
    answers = [m for r in results for m in r]
    acks = [m for m in answers if m["t"] == "ack"]
    versions = sorted(m["v"] for m in acks)
    assert versions == list(range(1, len(acks) + 1))  # no lost or doubled write
    assert all(m["t"] == "ack" or m.get("code") in ("stock_empty", "game_over") for m in answers), [
        m for m in answers if m["t"] != "ack"
    ]
    stored = await server.ctx.store.load(view.game)
    assert stored.v == len(acks) and stored.game.drawn == len(acks)
    wview = await watcher.wait_version(view.game, len(acks))
    assert [d["v"] for d in wview.applied] == versions
    assert [d["drawn"] for d in wview.applied] == [c.code for c in stored.game.deal.stock[: len(acks)]]
