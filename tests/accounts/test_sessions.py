"""Sessions: listed, signed out one by one or everywhere, expired, and ended by a password change; the
websockets they opened are closed."""

from __future__ import annotations

import json

import httpx
import redis.asyncio as aioredis

from golfrace.accounts.sessions import COOKIE
from golfrace.settings import Settings
from golfrace.store import account_keys as keys
from golfrace.wire.protocol import CLOSE_SIGNED_OUT
from golfrace_testkit.servers import RunningServer, running_server

from .conftest import PASSWORD, TIMEOUT, new_name, sign_up, ws_client


async def _second_device(
    acct_server: RunningServer, name: str, password: str = PASSWORD
) -> httpx.AsyncClient:
    other = httpx.AsyncClient(base_url=acct_server.http, timeout=TIMEOUT, headers={"user-agent": "phone"})
    r = await other.post("/api/account/signin", json={"username": name, "password": password})
    assert r.status_code == 200, r.text
    return other


async def test_list_and_sign_out_one_then_everywhere(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    name = new_name()
    await sign_up(http, name)
    phone = await _second_device(acct_server, name)
    try:
        listed = (await http.get("/api/account/sessions")).json()["sessions"]
        assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
        assert {s["agent"] for s in listed if not s["current"]} == {"phone"}
        assert all(COOKIE not in json.dumps(s) and len(s["id"]) == 16 for s in listed)
        phone_ws = await ws_client(acct_server, session=phone.cookies[COOKIE])
        phone_id = next(s["id"] for s in listed if not s["current"])
        r = await http.post("/api/account/signout", json={"sessions": [phone_id]})
        assert r.json() == {"signed_out": 1}
        assert await phone_ws.wait_closed(TIMEOUT) == CLOSE_SIGNED_OUT
        assert (await phone.get("/api/account/profile")).status_code == 401
        assert (await http.get("/api/account/profile")).status_code == 200
        r = await http.post("/api/account/signout", json={"all": True})
        assert r.json() == {"signed_out": 1} and COOKIE not in http.cookies
        assert (await http.get("/api/account")).json() == {"account": None}
    finally:
        await phone.aclose()


async def test_password_change_signs_out_every_other_session(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    name = new_name()
    await sign_up(http, name)
    phone = await _second_device(acct_server, name)
    try:
        r = await http.post(
            "/api/account/password", json={"current": "wrong password!", "password": "a new one, longer"}
        )
        assert r.status_code == 401 and r.json()["error"] == "bad_credentials"
        r = await http.post(
            "/api/account/password", json={"current": PASSWORD, "password": "a new one, longer"}
        )
        assert r.status_code == 200, r.text
        assert (await phone.get("/api/account/profile")).json()["error"] == "not_signed_in"
        assert (await http.get("/api/account/profile")).status_code == 200
        http.cookies.clear()
        bad = await http.post("/api/account/signin", json={"username": name, "password": PASSWORD})
        assert bad.status_code == 401
        good = await http.post(
            "/api/account/signin", json={"username": name, "password": "a new one, longer"}
        )
        assert good.status_code == 200
    finally:
        await phone.aclose()


async def test_an_idle_session_expires(http: httpx.AsyncClient, rds: aioredis.Redis) -> None:
    body = await sign_up(http)
    player = body["account"]["player"]
    ((field, blob),) = (await rds.hgetall(keys.sessions(player))).items()
    entry = json.loads(blob)
    entry["seen"] -= 31 * 86_400_000  # older than session_ttl_s (30 days)
    await rds.hset(keys.sessions(player), field, json.dumps(entry))
    assert (await http.get("/api/account/profile")).status_code == 401
    assert await rds.hlen(keys.sessions(player)) == 0


async def test_a_forged_or_foreign_session_is_nobody(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    body = await sign_up(http)
    player = body["account"]["player"]
    forged = f"{player}.{'A' * 43}"
    client = await ws_client(acct_server, session=forged)
    assert client.player != player and client.welcome is not None and client.welcome["account"] is None
    await client.close()
    http.cookies.set(COOKIE, forged)
    assert (await http.get("/api/account/profile")).status_code == 401


async def test_signing_out_closes_the_sessions_websockets_on_another_instance(
    http: httpx.AsyncClient, acct_server: RunningServer, acct_settings: Settings
) -> None:
    await sign_up(http)
    async with running_server(acct_settings) as other:
        elsewhere = await ws_client(other, session=http.cookies[COOKIE])
        assert elsewhere.welcome is not None and elsewhere.welcome["account"] is not None
        r = await http.post("/api/account/signout", json={})  # on the first instance
        assert r.json() == {"signed_out": 1}
        assert await elsewhere.wait_closed(TIMEOUT) == CLOSE_SIGNED_OUT


IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)"
    " Version/17.4 Mobile/15E148 Safari/604.1"
)
EDGE = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0"
    " Safari/537.36 Edg/131.0.0.0"
)


async def test_sessions_name_their_device_and_this_one_comes_first(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    """Issue 20, 10: each session names its browser, system and device, parsed by ua-parser from the whole
    User-Agent (Edge says so only in its last 16 characters, past the 120 kept of it), and the list starts
    with the session asking."""
    name = new_name()
    await sign_up(http, name)
    devices = []
    try:
        for agent in (IPHONE, EDGE, "x" * 5000):  # the last one: a long nonsense, parsed as unknown
            other = httpx.AsyncClient(
                base_url=acct_server.http, timeout=TIMEOUT, headers={"user-agent": agent}
            )
            r = await other.post("/api/account/signin", json={"username": name, "password": PASSWORD})
            assert r.status_code == 200, r.text
            devices.append(other)
        listed = (await devices[1].get("/api/account/sessions")).json()["sessions"]
        assert len(listed) == 4
        assert listed[0]["current"] and listed[0]["device"]["browser"] == "Edge"
        assert listed[0]["device"]["os"] == "Windows"
        phone = next(s for s in listed if s["agent"].startswith("Mozilla/5.0 (iPhone"))
        assert phone["device"] == {"browser": "Mobile Safari", "os": "iOS", "model": "iPhone"}
        nonsense = next(s for s in listed if s["agent"].startswith("xxx"))
        assert nonsense["device"] == {"browser": None, "os": None, "model": None}
        assert [s["current"] for s in listed] == [True, False, False, False]
    finally:
        for other in devices:
            await other.aclose()
