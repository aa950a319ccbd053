"""Abuse limits: growing delays after failed sign-ins (per name, known or not, and per address), the same
answers for unknown names, and the sign-up quota per address."""

from __future__ import annotations

import statistics
import time
from typing import Any

import httpx
import pytest

from .conftest import FAST_HASHES, PASSWORD, new_name, sign_up


@pytest.fixture(scope="module")
def account_changes() -> dict[str, Any]:
    return {**FAST_HASHES, "signups_per_ip": 3, "delay_base_ms": 400}


async def _attempt(http: httpx.AsyncClient, name: str, password: str) -> httpx.Response:
    return await http.post("/api/account/signin", json={"username": name, "password": password})


@pytest.mark.parametrize("exists", [True, False])
async def test_delays_grow_and_do_not_tell_whether_the_name_exists(
    http: httpx.AsyncClient, exists: bool
) -> None:
    name = new_name("Thr")
    if exists:
        await sign_up(http, name)
        http.cookies.clear()
    answers = [await _attempt(http, name, "wrong password") for _ in range(3)]
    assert [a.json() for a in answers] == [
        {"error": "bad_credentials", "message": "this username and password do not match"}
    ] * 3
    fourth = await _attempt(http, name, "wrong password")
    assert fourth.status_code == 401 and fourth.json()["params"] == {"retry_ms": 400}
    blocked = await _attempt(http, name, PASSWORD)  # even the right password waits
    assert blocked.status_code == 429 and blocked.json()["error"] == "too_many_attempts"
    assert 0 < blocked.json()["params"]["retry_ms"] <= 400
    deadline = time.monotonic() + 5
    while (r := await _attempt(http, name, "wrong password")).status_code == 429:  # wait out the delay
        assert time.monotonic() < deadline
        await _sleep_ms(r.json()["params"]["retry_ms"])
    assert r.json()["params"] == {"retry_ms": 800}  # the next delay doubles
    while (r := await _attempt(http, name, PASSWORD)).status_code == 429:
        assert time.monotonic() < deadline
        await _sleep_ms(r.json()["params"]["retry_ms"])
    assert r.status_code == (200 if exists else 401)


async def _sleep_ms(ms: int) -> None:
    import asyncio

    await asyncio.sleep(ms / 1000 + 0.02)  # the server said how long: this waits for that, not a guess


async def test_per_address_limit_across_names(http: httpx.AsyncClient) -> None:
    for _ in range(10):  # ip_free_attempts, each on another name
        assert (await _attempt(http, new_name(), "wrong password")).status_code == 401
    r = await _attempt(http, new_name(), "wrong password")
    assert r.status_code == 401 and r.json()["params"]["retry_ms"] == 400
    r = await _attempt(http, new_name(), "wrong password")
    assert r.status_code == 429 and r.json()["error"] == "too_many_attempts"


async def test_unknown_name_takes_about_as_long_as_a_wrong_password(http: httpx.AsyncClient) -> None:
    known, unknown = [], []
    for _ in range(3):
        name = new_name()
        await sign_up(http, name)
        http.cookies.clear()
        for names, target in ((known, name), (unknown, new_name())):
            started = time.perf_counter()
            assert (await _attempt(http, target, "wrong password")).status_code == 401
            names.append(time.perf_counter() - started)
    # both verify an argon2 hash (a dummy one for the unknown name): neither is a fast path
    assert statistics.median(unknown) > 0.4 * statistics.median(known)


async def test_sign_up_quota_per_address(http: httpx.AsyncClient) -> None:
    for _ in range(3):
        await sign_up(http)
        http.cookies.clear()
    r = await http.post("/api/account/signup", json={"username": new_name(), "password": PASSWORD})
    assert r.status_code == 429 and r.json()["error"] == "too_many_signups"


async def test_passkey_ceremonies_per_address_are_limited(http: httpx.AsyncClient) -> None:
    for _ in range(30):  # challenges_per_minute
        assert (await http.post("/api/account/passkey/signin/options", json={})).status_code == 200
    r = await http.post("/api/account/passkey/signin/options", json={})
    assert (
        r.status_code == 429
        and r.json()["error"] == "too_many_attempts"
        and r.json()["params"]["retry_ms"] > 0
    )
