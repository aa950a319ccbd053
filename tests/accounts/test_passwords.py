"""Sign-up and sign-in with a username and password, over real HTTP on a real Redis."""

from __future__ import annotations

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.accounts.errors import AccountError
from golfrace.accounts.names import check_username
from golfrace.accounts.sessions import COOKIE
from golfrace.store import account_keys as keys
from golfrace.wire.protocol import CLOSE_SIGNED_OUT
from golfrace_testkit.servers import RunningServer

from .conftest import PASSWORD, TIMEOUT, new_name, sign_up, ws_client


async def test_sign_up_sets_an_httponly_cookie_and_stores_only_hashes(
    http: httpx.AsyncClient, rds: aioredis.Redis
) -> None:
    name = new_name("Ana")
    r = await http.post(
        "/api/account/signup", json={"username": name, "password": PASSWORD, "display": " Ana  B "}
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["account"]["username"] == name and body["account"]["display"] == "Ana B"
    assert body["account"]["password"] is True and "pw" not in body["account"]
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    token = http.cookies[COOKIE]
    assert token not in r.text  # the session travels only in Set-Cookie
    player = body["account"]["player"]
    stored = await rds.hgetall(keys.account(player))
    assert stored[b"pw"].startswith(b"$argon2id$v=19$") and PASSWORD.encode() not in stored[b"pw"]
    sessions = await rds.hgetall(keys.sessions(player))
    assert len(sessions) == 1 and token.encode() not in b"".join([*sessions, *sessions.values()])
    assert await rds.get(keys.username(name.lower())) == player.encode()
    me = (await http.get("/api/account")).json()
    assert me["account"]["player"] == player


async def test_username_rules_and_case_insensitive_uniqueness(http: httpx.AsyncClient) -> None:
    name = new_name("Bob")
    await sign_up(http, name)
    http.cookies.clear()
    r = await http.post("/api/account/signup", json={"username": name.upper(), "password": PASSWORD})
    assert r.status_code == 409 and r.json()["error"] == "username_taken"
    cases = [("ab", "length"), ("a" * 21, "length"), ("9lives", "characters"), ("an a", "characters"),
             ("Admin", "reserved"), ("golfrace_team", "reserved"), ("ünï", "characters")]  # fmt: skip
    for bad, reason in cases:
        r = await http.post("/api/account/signup", json={"username": bad, "password": PASSWORD})
        assert r.status_code == 400 and r.json()["error"] == "bad_username", bad
        assert r.json()["params"]["reason"] == reason, bad
    assert check_username("Abc-d_9") == "Abc-d_9"
    with pytest.raises(AccountError):
        check_username("ab")


async def test_password_policy(http: httpx.AsyncClient) -> None:
    name = new_name("longername")
    cases = [("short", "length"), ("x" * 129, "length"), ("Password123", "common"), ("qwertyuiop", "common"),
             (name.upper(), "username")]  # fmt: skip
    for password, reason in cases:
        r = await http.post("/api/account/signup", json={"username": name, "password": password})
        assert r.status_code == 400, password
        body = r.json()
        assert body["error"] == "bad_password" and body["params"]["reason"] == reason
        assert password not in r.text


async def test_sign_in_and_same_answer_for_unknown_user_and_wrong_password(http: httpx.AsyncClient) -> None:
    name = new_name("Cy")
    await sign_up(http, name)
    http.cookies.clear()
    r = await http.post("/api/account/signin", json={"username": name.lower(), "password": PASSWORD})
    assert r.status_code == 200 and r.json()["account"]["username"] == name
    assert COOKIE in http.cookies
    http.cookies.clear()
    wrong = await http.post("/api/account/signin", json={"username": name, "password": "not the password"})
    unknown = await http.post(
        "/api/account/signin", json={"username": new_name(), "password": "not the password"}
    )
    assert wrong.status_code == unknown.status_code == 401
    assert (
        wrong.json()
        == unknown.json()
        == {
            "error": "bad_credentials",
            "message": "this username and password do not match",
        }
    )
    assert COOKIE not in http.cookies


async def test_hello_with_the_session_is_the_accounts_player(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    anon = await ws_client(acct_server)
    body = await sign_up(http, token=anon.token)
    player = body["account"]["player"]
    assert player == anon.player  # the account adopted the anonymous id
    # the guest connection (whoever holds the old token) is closed: only a session opens the account now
    assert await anon.wait_closed(TIMEOUT) == CLOSE_SIGNED_OUT
    session = http.cookies[COOKIE]
    signed = await ws_client(acct_server, session=session)
    assert signed.player == player and signed.welcome is not None
    assert signed.welcome["account"]["username"] == body["account"]["username"]
    # the old anonymous token alone no longer opens the account's player
    bare = await ws_client(acct_server, token=anon.token)
    assert bare.player != player and bare.welcome is not None and bare.welcome["account"] is None
    for c in (anon, signed, bare):
        await c.close()


async def test_no_secret_in_errors_or_urls(http: httpx.AsyncClient) -> None:
    r = await http.post(
        "/api/account/signin", content=b"not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    r = await http.post(
        "/api/account/signin",
        json={"username": "x", "password": "p"},
        headers={"origin": "https://evil.example"},
    )
    assert r.status_code == 403 and r.json()["error"] == "bad_origin"
    r = await http.post("/api/account/signin", data={"username": "x", "password": "p"})  # a form
    assert (
        r.status_code == 400 and r.json()["error"] == "bad_request" and "p" not in r.json().get("params", {})
    )
