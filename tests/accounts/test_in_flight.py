"""Sign-in attempts in flight are capped (issue 19.4): with delays out of the way (free attempts far above the
burst), 100 guesses sent at once for one name are checked at most ``attempts_in_flight`` at a time; the others
are answered ``too_many_attempts`` (retry in a second) at once and counted for nothing; once the burst is over
nothing is left in flight."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.store import account_keys as keys

from .conftest import FAST_HASHES, TIMEOUT, new_name

BURST = 100


@pytest.fixture(scope="module")
def account_changes() -> dict[str, Any]:
    return {**FAST_HASHES, "free_attempts": 10_000, "ip_free_attempts": 10_000, "attempts_in_flight": 2}


async def test_attempts_in_flight_for_one_name_are_capped(
    http: httpx.AsyncClient, rds: aioredis.Redis
) -> None:
    name = new_name("Fly")
    limits = httpx.Limits(max_connections=BURST + 10, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=str(http.base_url), timeout=TIMEOUT * 6, limits=limits) as burst:
        body = {"username": name, "password": "wrong guess"}
        answers = await asyncio.wait_for(
            asyncio.gather(*(burst.post("/api/account/signin", json=body) for _ in range(BURST))), 60
        )
    checked = [a for a in answers if a.status_code == 401]
    refused = [a for a in answers if a.status_code == 429]
    assert len(checked) + len(refused) == BURST
    assert refused, "all 100 were checked: nothing caps the attempts in flight"
    assert all(a.json() == {"error": "too_many_attempts", "message": a.json()["message"],
                            "params": {"retry_ms": 1000}} for a in refused)  # fmt: skip
    key = keys.throttle("user", name.lower())
    assert int(await rds.hget(key, "fails")) == len(checked)  # the refused ones counted for nothing
    assert await rds.get(key + ":fly") is None  # nothing left in flight
    assert await rds.get(keys.throttle("ip", "127.0.0.1") + ":fly") is None
