"""Malformed race, board, daily and account requests, over a real websocket and real HTTP: each gets an error
with a stable code (a documented one) and the right status, never a 500 or a closed connection."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from golfrace.wire.errors import ErrorCode

from .test_wire import T

LONG = "x" * 5000
RACE_FRAMES: list[tuple[dict[str, Any], str]] = [
    ({"t": "race_new", "seats": 0}, "bad_field"),
    ({"t": "race_new", "seats": "8"}, "bad_field"),
    ({"t": "race_new", "limit": 10**6}, "bad_field"),
    ({"t": "race_new", "undo": "yes"}, "bad_field"),
    ({"t": "race_new", "rules": "hard"}, "bad_field"),
    ({"t": "race_new", "variants": "strict"}, "bad_field"),
    ({"t": "race_new", "variants": {"jokers": 9}}, "bad_field"),
    ({"t": "race_new", "code": "GO1-E-ABC"}, "bad_code"),
    ({"t": "race_new", "code": 7}, "bad_field"),
    ({"t": "race_new", "name": "n" * 25}, "bad_option"),
    ({"t": "race_new", "name": ["Ann"]}, "bad_field"),
    ({"t": "race_join", "race": 12}, "bad_field"),
    ({"t": "race_join"}, "bad_field"),
    ({"t": "race_join", "race": "rnosuchrace2"}, "race_not_found"),
    ({"t": "race_join", "race": LONG[:200]}, "bad_field"),
    ({"t": "race_leave", "race": "rnosuchrace2"}, "race_not_found"),
    ({"t": "race_start", "race": None}, "bad_field"),
    ({"t": "race_resign", "race": "rnosuchrace2"}, "race_not_found"),
    ({"t": "race_rematch", "race": "rnosuchrace2"}, "race_not_found"),
    ({"t": "race_act", "race": "rnosuchrace2", "seq": 1, "a": "draw"}, "race_not_found"),
    ({"t": "race_act", "race": "rnosuchrace2", "seq": 0, "a": "draw"}, "bad_field"),
    ({"t": "race_act", "race": "rnosuchrace2", "seq": 1, "a": "peek"}, "bad_field"),
    ({"t": "race_act", "race": "rnosuchrace2", "seq": 1, "a": "tap", "col": 8}, "bad_field"),
    ({"t": "watch", "race": "rnosuchrace2-1"}, "race_not_found"),
    ({"t": "watch", "race": "r-99999999999999999999999999"}, "race_not_found"),
    ({"t": "watch", "race": {"r": 1}}, "bad_field"),
    ({"t": "board_watch", "board": "code:"}, "bad_code"),
    ({"t": "board_watch", "board": "code:GO1-E-ABCDEFG-ZZ"}, "bad_code"),
    ({"t": "board_watch", "board": "daily:2031-02-30"}, "bad_date"),
    ({"t": "board_watch", "board": "daily:9999-12-31"}, "bad_date"),
    ({"t": "board_watch", "board": "daily:2031-W05"}, "bad_date"),
    ({"t": "board_watch", "board": "pb:someone"}, "bad_field"),
    ({"t": "board_watch", "board": ["code:x"]}, "bad_field"),
    ({"t": "board_unwatch", "board": 3}, "bad_field"),
    ({"t": "daily_play", "name": "n" * 25}, "bad_option"),
    ({"t": "daily_play", "name": 5}, "bad_field"),
]


async def test_malformed_race_messages_get_a_stable_error_and_the_connection_stays(make_client: Any) -> None:
    client = await make_client(name="Mal")
    codes = set(ErrorCode)
    for n, (frame, code) in enumerate(RACE_FRAMES):
        rid = f"b{n}"
        await client.send({**frame, "rid": rid})
        answer = await client.expect(None, T, where=lambda m, r=rid: m.get("rid") == r)
        assert answer["t"] == "error" and answer["code"] == code, (frame, answer)
        assert answer["code"] in codes
    assert (await client.ping())["t"] == "pong"  # still usable


BAD_GETS: list[tuple[str, dict[str, str], int, str]] = [
    ("/api/races/rnosuchrace2", {}, 404, "race_not_found"),
    ("/api/races/" + LONG, {}, 404, "race_not_found"),
    ("/api/games/r-1", {}, 404, "game_not_found"),
    ("/api/games/rnosuchrace2-99999999999999999999", {}, 404, "game_not_found"),
    ("/api/games/%FF%FE", {}, 404, "game_not_found"),
    ("/api/leaderboards/code/GO1-E-ABC", {}, 400, "bad_code"),
    ("/api/leaderboards/code/%00", {}, 400, "bad_code"),
    ("/api/leaderboards/code/GO1-E-ABCDEFG?limit=0", {}, 400, "bad_option"),
    ("/api/leaderboards/code/GO1-E-ABCDEFG?limit=1e3", {}, 400, "bad_option"),
    ("/api/leaderboards/code/GO1-E-ABCDEFG?offset=-1", {}, 400, "bad_option"),
    ("/api/leaderboards/code/GO1-E-ABCDEFG?offset=" + "9" * 5000, {}, 400, "bad_option"),
    ("/api/leaderboards/daily/2031-13-01", {}, 400, "bad_date"),
    ("/api/leaderboards/daily/20310101", {}, 400, "bad_date"),
    ("/api/daily/9999-12-31/scores", {}, 400, "bad_date"),
    ("/api/daily/%E2%80%AE/scores", {}, 400, "bad_date"),
    ("/api/players/me/stats", {"Authorization": "Bearer " + LONG}, 401, "bad_token"),
    ("/api/players/me/bests?token=garbage", {}, 401, "bad_token"),
    ("/api/players/me/bests", {"Cookie": "golfrace_session=p1." + "A" * 43}, 401, "bad_token"),
    ("/og/rnosuchrace2.png", {}, 404, "race_not_found"),
    ("/api/account/profile", {"Cookie": "golfrace_session=" + LONG}, 401, "not_signed_in"),
]


@pytest.mark.parametrize(("path", "headers", "status", "code"), BAD_GETS)
async def test_malformed_http_requests_get_a_stable_error(
    server: Any, path: str, headers: dict[str, str], status: int, code: str
) -> None:
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        resp = await http.get(path, headers=headers)
    assert resp.status_code == status and resp.json()["error"] == code, (path, resp.status_code, resp.text)
    assert isinstance(resp.json()["message"], str)


BAD_POSTS: list[tuple[str, bytes, str]] = [
    ("/api/account/signup", b"[]", "bad_request"),
    ("/api/account/signup", b'"x"', "bad_request"),
    ("/api/account/signup", b"\xff\xfe", "bad_request"),
    ("/api/account/signup", b"{", "bad_request"),
    ("/api/account/signup", b'{"username": 5, "password": ["x"]}', "bad_username"),
    ("/api/account/signin", b'{"username": {}, "password": null}', "bad_credentials"),
    ("/api/account/display", b'{"display": {}}', "not_signed_in"),
]


@pytest.mark.parametrize(("path", "body", "code"), BAD_POSTS)
async def test_malformed_account_bodies_get_a_stable_error(
    server: Any, path: str, body: bytes, code: str
) -> None:
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        resp = await http.post(path, content=body, headers={"Content-Type": "application/json"})
    assert resp.status_code < 500, (path, body, resp.status_code, resp.text)
    assert resp.json()["error"] == code, (path, body, resp.text)
