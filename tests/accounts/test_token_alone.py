"""The read-only "me" endpoints resolve the caller as the websocket hello does: an account's long-lived
player token alone (leaked, copied from an old browser's storage) reads none of the account's private data;
the account's session does; a guest's token still works as before. The attack first (real HTTP, Redis)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from golfrace_testkit.servers import RunningServer

from .conftest import TIMEOUT, new_name, sign_up, ws_client
from .test_profile import _win


async def _stats_with_a_game(http: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, Any]:
    """The stats once the finished game is counted (kept just after the game ends): polled to a deadline."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        r = await http.get("/api/players/me/stats", headers=headers)
        body: dict[str, Any] = r.json()
        if r.status_code == 200 and body["played"] >= 1:
            return body
        assert asyncio.get_running_loop().time() < deadline, body
        await asyncio.sleep(0.05)


async def test_an_accounts_token_alone_reads_nothing_private(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    guest = await ws_client(acct_server)
    await _win(guest)
    old_token = guest.token  # the guest's token, kept in the browser's storage
    await guest.send({"t": "daily"})
    await guest.expect("daily", TIMEOUT)
    body = await sign_up(http, new_name("Tok"), token=old_token)
    assert body["account"]["player"] == guest.player  # the account took the guest's player id
    await guest.close()
    # the account, through its session cookie (and any token or none): its own data
    mine = await _stats_with_a_game(http, {})
    assert mine["played"] == 1 and mine["won"] == 1
    assert (await http.get("/api/players/me/bests")).status_code == 200
    assert "played" in (await http.get("/api/daily")).json()
    # an attacker holding only a token of the account's player (the old one, or the one signing in answered)
    async with httpx.AsyncClient(base_url=acct_server.http, timeout=TIMEOUT) as thief:
        for token in (old_token, body["token"]):
            stats = await thief.get("/api/players/me/stats", headers={"Authorization": f"Bearer {token}"})
            assert stats.status_code == 401 and stats.json()["error"] == "bad_token", stats.text
            bests = await thief.get("/api/players/me/bests", params={"token": token})
            assert bests.status_code == 401 and bests.json()["error"] == "bad_token", bests.text
            bearer = await thief.get("/api/players/me/bests", headers={"Authorization": f"Bearer {token}"})
            assert bearer.status_code == 401
            daily = (await thief.get("/api/daily", params={"token": token})).json()
            assert set(daily) == {"date", "next_at", "next_in"}  # the public part only: no result, no streak
            assert "played" not in daily and "streak" not in daily
        # a guest's own token works as before
        other = await ws_client(acct_server)
        await _win(other)
        theirs = await _stats_with_a_game(thief, {"Authorization": f"Bearer {other.token}"})
        assert theirs["played"] == 1
        assert (await thief.get("/api/players/me/bests", params={"token": other.token})).status_code == 200
        assert "played" in (await thief.get("/api/daily", params={"token": other.token})).json()
        await other.close()
