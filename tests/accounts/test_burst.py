"""Limits hold under a burst (issue 19.4): 100 requests sent at once over real HTTP to a real server, from
one address. The sign-in delays (3 free failures a name, then 1 s, 2 s, …) and the sign-up quota (5 a day)
are counted when a request arrives, by one Redis script, so a burst gets no more than a sequence would; a
sign-up's username check is throttled like a sign-in."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.accounts.store import now_ms
from golfrace.settings.accounts import AccountSettings
from golfrace.store import account_keys as keys

from .conftest import FAST_HASHES, PASSWORD, TIMEOUT, new_name, sign_up

BURST = 100
DEFAULTS = AccountSettings()


@pytest.fixture(scope="module")
def account_changes() -> dict[str, Any]:
    return {**FAST_HASHES, "signups_per_ip": DEFAULTS.signups_per_ip}  # the real quota and delays


async def _burst(http: httpx.AsyncClient, path: str, bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    async def one(body: dict[str, Any]) -> httpx.Response:
        return await http.post(path, json=body)

    return await asyncio.wait_for(asyncio.gather(*(one(b) for b in bodies)), 60)


@pytest.fixture
async def burst_http(http: httpx.AsyncClient) -> httpx.AsyncClient:
    """The test's client, with room for all 100 requests on connections of their own at once."""
    return httpx.AsyncClient(
        base_url=str(http.base_url),
        timeout=TIMEOUT * 6,
        limits=httpx.Limits(max_connections=BURST + 10, max_keepalive_connections=0),
    )


async def test_a_burst_of_100_guesses_for_one_name_gets_the_free_attempts_only(
    http: httpx.AsyncClient, burst_http: httpx.AsyncClient, rds: aioredis.Redis
) -> None:
    name = new_name("Bur")
    await sign_up(http, name)
    http.cookies.clear()
    guesses = [{"username": name, "password": f"wrong guess {i}"} for i in range(BURST - 1)]
    guesses.insert(BURST // 2, {"username": name, "password": PASSWORD})  # the right one, inside the burst
    async with burst_http:
        answers = await _burst(burst_http, "/api/account/signin", guesses)
    checked = [a for a in answers if a.status_code in (200, 401)]
    refused = [a for a in answers if a.status_code == 429]
    assert len(checked) + len(refused) == BURST, [a.text for a in answers if a not in checked + refused]
    # as many as a sequence gets before its first delay: the free failures and the one that starts it
    assert 1 <= len(checked) <= DEFAULTS.free_attempts + 1, [a.status_code for a in answers]
    assert all(r.json()["error"] == "too_many_attempts" for r in refused)
    assert all(r.json()["params"]["retry_ms"] > 0 for r in refused)
    signed_in = [a for a in checked if a.status_code == 200]
    assert len(signed_in) <= 1
    if not signed_in:
        # every attempt checked was counted, none of those refused; the right password, come after a delay
        # began, waits like any other
        record = {
            k.decode(): int(v) for k, v in (await rds.hgetall(keys.throttle("user", name.lower()))).items()
        }
        assert record.get("fails") == len(checked), record
        r = await http.post("/api/account/signin", json={"username": name, "password": PASSWORD})
        if now_ms() < record.get("until", 0) - 50:  # (the burst may have taken longer than the first delay)
            assert r.status_code == 429 and r.json()["error"] == "too_many_attempts"


async def test_a_burst_of_100_guesses_over_many_names_gets_the_networks_free_attempts_only(
    burst_http: httpx.AsyncClient,
) -> None:
    guesses = [{"username": new_name("Net"), "password": "wrong guess"} for _ in range(BURST)]
    async with burst_http:
        answers = await _burst(burst_http, "/api/account/signin", guesses)
    checked = [a for a in answers if a.status_code == 401]
    assert 1 <= len(checked) <= DEFAULTS.ip_free_attempts + 1, [a.status_code for a in answers]
    assert all(a.json()["error"] == "too_many_attempts" for a in answers if a.status_code != 401)


async def test_a_burst_of_100_sign_ups_makes_five_accounts(burst_http: httpx.AsyncClient) -> None:
    bodies = [{"username": new_name("Sig"), "password": PASSWORD} for _ in range(BURST)]
    async with burst_http:
        answers = await _burst(burst_http, "/api/account/signup", bodies)
    made = [a for a in answers if a.status_code == 201]
    assert len(made) == DEFAULTS.signups_per_ip, [a.status_code for a in answers]
    assert all(a.json()["error"] == "too_many_signups" for a in answers if a.status_code != 201)


async def test_a_refused_sign_up_does_not_use_the_quota(http: httpx.AsyncClient) -> None:
    taken = new_name("Tak")
    await sign_up(http, taken)
    http.cookies.clear()
    for _ in range(3):
        r = await http.post("/api/account/signup", json={"username": taken, "password": PASSWORD})
        assert r.status_code == 409 and r.json()["error"] == "username_taken"
    for _ in range(DEFAULTS.signups_per_ip - 1):  # the first one above used one
        await sign_up(http)
        http.cookies.clear()
    r = await http.post("/api/account/signup", json={"username": new_name(), "password": PASSWORD})
    assert r.status_code == 429 and r.json()["error"] == "too_many_signups"


async def test_the_sign_up_username_check_is_throttled_like_a_sign_in(
    http: httpx.AsyncClient, burst_http: httpx.AsyncClient, rds: aioredis.Redis
) -> None:
    """Asking whether a name is taken (the passkey sign-up's options, or a sign-up, answer
    ``username_taken``) counts like a failed sign-in for the network: free checks, then delays; a burst
    gets the free ones only, and a sign-up after it waits too."""
    taken = new_name("Own")
    await sign_up(http, taken)
    http.cookies.clear()
    async with burst_http:
        path = "/api/account/passkey/signup/options"
        answers = await _burst(burst_http, path, [{"username": taken}] * BURST)
    told = [a for a in answers if a.status_code == 409]
    assert 1 <= len(told) <= DEFAULTS.ip_free_attempts + 1, [a.status_code for a in answers]
    assert all(a.json()["error"] == "too_many_attempts" for a in answers if a.status_code != 409)
    stored = await rds.hgetall(keys.throttle("ip", "127.0.0.1"))
    record = {k.decode(): int(v) for k, v in stored.items()}
    assert record["fails"] == len(told), record  # every check told was counted, none of those refused
    r = await http.post("/api/account/signup", json={"username": taken, "password": PASSWORD})
    if now_ms() < record.get("until", 0) - 50:  # (the burst may have outlasted the first delay)
        assert r.status_code == 429 and r.json()["error"] == "too_many_attempts", r.text
