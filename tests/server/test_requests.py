"""Requests and their answers over real websockets: every answer echoes the request's `rid`, a request with no
answer of its own gets `ok`, errors name the request (`ref` = its `t` or `seq`), and the differences between
docs/protocol.md and the server that a bot author found are gone."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from .helpers import WIN_CODE

pytestmark = pytest.mark.timeout(60)


async def ask(client: Client, message: dict[str, Any], rid: str) -> dict[str, Any]:
    """Send ``message`` with ``rid``; the first frame that carries that rid (answers only ever do)."""
    await client.send({**message, "rid": rid})
    return await client.expect(None, where=lambda m: m.get("rid") == rid)


async def test_every_answer_carries_the_rid(make_client: Any) -> None:
    client = await make_client(hello=False)
    welcome = await ask(client, {"t": "hello", "lang": "ro"}, "h1")
    assert welcome["t"] == "welcome"
    assert (await ask(client, {"t": "ping", "n": 7}, "p1"))["t"] == "pong"
    snapshot = await ask(client, {"t": "new", "code": WIN_CODE}, "n1")
    assert snapshot["t"] == "snapshot" and snapshot["role"] == "player"
    game = snapshot["game"]
    assert (await ask(client, {"t": "open", "game": game, "role": "player"}, "o1"))["t"] == "snapshot"
    tap = {"t": "act", "game": game, "seq": 1, "a": "tap", "col": 1}
    answer = await ask(client, tap, "a1")
    assert answer["t"] in ("ack", "refused") and answer["seq"] == 1
    again = await ask(client, tap, "a2")  # a resent seq: the same answer, with the new rid
    assert {k: v for k, v in again.items() if k != "rid"} == {k: v for k, v in answer.items() if k != "rid"}
    # resync: what is missing comes as the game's own frames (no rid), then ok
    resynced = await ask(client, {"t": "resync", "game": game, "v": 0}, "r1")
    assert resynced == {"t": "ok", "ref": "resync", "rid": "r1"}
    closed = await ask(client, {"t": "close", "game": game}, "c1")
    assert closed == {"t": "ok", "ref": "close", "rid": "c1"}
    hint = await ask(client, {"t": "hint", "game": game}, "hint1")
    assert hint["t"] == "hint" and hint["game"] == game
    # errors: from validation, from the handler, and before hello
    bad = await ask(client, {"t": "act", "game": game, "seq": "x", "a": "tap"}, "e1")
    assert (bad["t"], bad["code"], bad["params"]) == ("error", "bad_field", {"field": "seq"})
    missing = await ask(client, {"t": "open", "game": "nosuchgame", "role": "watcher"}, "e2")
    assert (missing["code"], missing["ref"]) == ("no_game", "open")
    stranger = await make_client(hello=False)
    early = await ask(stranger, {"t": "new"}, "e3")
    assert (early["code"], early["ref"]) == ("no_hello", "new")
    # a frame without rid gets answers without one
    await client.send({"t": "ping", "n": 8})
    assert "rid" not in await client.expect("pong", where=lambda m: m.get("n") == 8)


async def test_race_requests_answer_with_their_rid(make_client: Any) -> None:
    host = await make_client()
    race = await ask(host, {"t": "race_new", "seats": 2}, "rn")
    assert race["t"] == "race" and race["you"]["seat"] == 1
    rid = race["race"]
    guest = await make_client()
    joined = await ask(guest, {"t": "race_join", "race": rid, "name": "G"}, "rj")
    assert joined["t"] == "race" and joined["you"]["seat"] == 2
    # the sender of race_leave gets the race as it is after leaving (no longer following it)
    left = await ask(guest, {"t": "race_leave", "race": rid}, "rl")
    assert left["t"] == "race" and left["you"] is None and len(left["racers"]) == 1
    # race_start's effect is a broadcast (no rid): the sender also gets ok
    started = await ask(host, {"t": "race_start", "race": rid}, "rs")
    assert started == {"t": "ok", "ref": "race_start", "rid": "rs"}
    countdown = await host.expect("race", where=lambda m: m.get("phase") == "countdown")
    assert "rid" not in countdown
    watched = await ask(guest, {"t": "watch", "race": rid}, "w")
    assert watched["t"] == "race_watch"
    assert (await ask(guest, {"t": "unwatch", "race": rid}, "uw"))["t"] == "ok"
    board = await ask(guest, {"t": "board_watch", "board": "daily:2024-01-01"}, "bw")
    assert board["t"] == "board" and board["entries"] == []
    assert (await ask(guest, {"t": "daily"}, "d"))["t"] == "daily"


async def test_board_watch_of_a_future_day_is_bad_date_as_over_http(make_client: Any) -> None:
    client = await make_client()
    error = await ask(client, {"t": "board_watch", "board": "daily:2100-01-01"}, "b")
    assert (error["t"], error["code"], error["ref"]) == ("error", "bad_date", "board_watch")


async def test_too_many_games_names_the_request_not_race(settings: Any) -> None:
    async with running_server(settings.with_(port=0, max_open_games=1)) as server:
        client = Client(server.ws)
        try:
            await client.connect()
            await client.hello()
            first = await ask(client, {"t": "race_new", "seats": 2}, "a")
            assert first["t"] == "race"
            others = ({"t": "race_new"}, {"t": "daily_play"}, {"t": "race_join", "race": "rnosuchrace1"})
            for message in others:
                error = await ask(client, message, "b" + message["t"])
                if message["t"] == "race_join" and error["code"] == "race_not_found":
                    continue  # checked before the room (no race, nothing to follow)
                assert (error["code"], error["ref"]) == ("too_many_games", message["t"]), error
        finally:
            await client.close()


async def test_race_act_over_the_rate_limit_is_an_error_with_its_seq(settings: Any) -> None:
    async with running_server(settings.with_(port=0, rate=1.0, burst=2, flood_close_after=1000)) as server:
        client = Client(server.ws)
        try:
            await client.connect()
            await client.hello()
            for seq in range(1, 6):
                await client.send({"t": "race_act", "race": "rnosuchrace1", "seq": seq, "a": "draw"})
            limited = await client.expect("error", where=lambda m: m.get("code") == "rate_limited")
            assert isinstance(limited["ref"], int) and limited["ref"] >= 2
        finally:
            await client.close()


async def test_a_token_of_another_player_is_not_called_foreign(make_client: Any) -> None:
    first = await make_client()
    second = await make_client()
    other = await ask(first, {"t": "hello", "token": second.token}, "h")
    assert other["code"] == "bad_token" and "another player" in other["message"], other
    forged = await ask(first, {"t": "hello", "token": "forged"}, "f")
    assert forged["code"] == "bad_token" and "not issued by this server" in forged["message"], forged


async def test_an_app_without_the_races_has_no_race_messages(settings: Any) -> None:
    async with running_server(settings.with_(port=0), extensions=[]) as server:
        client = Client(server.ws)
        try:
            await client.connect()
            await client.hello()
            error = await ask(client, {"t": "race_new"}, "x")
            assert (error["code"], error["ref"]) == ("bad_type", "race_new")
            hint = await ask(client, {"t": "hint", "game": "g"}, "y")
            assert hint["code"] == "bad_type"
        finally:
            await client.close()
