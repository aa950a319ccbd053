"""Your history comes with you, the profile, renaming and deleting an account (real HTTP, websockets,
Redis)."""

from __future__ import annotations

import httpx
import pytest
import redis.asyncio as aioredis

from golfrace.accounts.service import Accounts
from golfrace.accounts.sessions import COOKIE
from golfrace.store import account_keys as keys
from golfrace.store.history import Finished
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from ..server.helpers import WIN_CODE, WIN_MOVES
from .conftest import PASSWORD, TIMEOUT, new_name, sign_up, ws_client


async def _win(client: Client) -> str:
    view = await client.new(WIN_CODE)
    for token in WIN_MOVES.split():
        action = {"a": "draw"} if token == "d" else {"a": "tap", "col": int(token)}
        assert (await client.act(view.game, **action))["t"] == "ack"
    assert client.views[view.game].status == "won"
    return view.game


async def test_history_comes_with_the_anonymous_token_and_to_a_second_device(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    anon = await ws_client(acct_server)
    won = await _win(anon)
    unfinished = (await anon.new(WIN_CODE)).game
    await anon.act(unfinished, "draw")
    name = new_name("Hist")
    body = await sign_up(http, name, token=anon.token)
    assert body["account"]["player"] == anon.player
    profile = (await http.get("/api/account/profile")).json()
    assert profile["stats"]["played"] == 1 and profile["stats"]["won"] == 1
    mode = profile["stats"]["modes"]["solo:easy"]
    assert mode["played"] == mode["won"] == 1 and mode["best_score"] == 350 and mode["best_time"] >= 0
    assert [g["game"] for g in profile["recent"]] == [won] and profile["recent"][0]["status"] == "won"
    assert unfinished in profile["open"]
    await anon.close()
    # a second device signs in: the same history, and the unfinished game resumes
    async with httpx.AsyncClient(base_url=acct_server.http, timeout=TIMEOUT) as laptop:
        r = await laptop.post("/api/account/signin", json={"username": name, "password": PASSWORD})
        assert r.status_code == 200
        assert (await laptop.get("/api/account/profile")).json()["recent"] == profile["recent"]
        client = await ws_client(acct_server, session=laptop.cookies[COOKIE])
        assert client.player == body["account"]["player"]
        assert client.welcome is not None and unfinished in client.welcome["games"]
        view = await client.open(unfinished)
        assert view.v == 1
        assert (await client.act(unfinished, "draw"))["t"] == "ack"
        await client.close()


async def test_display_name_and_rename_within_limits(http: httpx.AsyncClient) -> None:
    name = new_name("Ren")
    await sign_up(http, name)
    r = await http.post("/api/account/display", json={"display": "  Ren   the Great "})
    assert r.json()["account"]["display"] == "Ren the Great"
    r = await http.post("/api/account/display", json={"display": "x" * 25})
    assert r.status_code == 400 and r.json()["error"] == "bad_display_name"
    r = await http.post("/api/account/rename", json={"username": name.upper()})  # spelling only: free
    assert r.json()["account"]["username"] == name.upper()
    other = new_name("Ren")
    r = await http.post("/api/account/rename", json={"username": other})
    assert r.status_code == 200 and r.json()["account"]["username"] == other
    assert r.json()["account"]["rename_at"] > 0
    r = await http.post("/api/account/rename", json={"username": new_name("Ren")})
    assert (
        r.status_code == 429 and r.json()["error"] == "rename_too_soon" and r.json()["params"]["retry_ms"] > 0
    )
    http.cookies.clear()
    taken = await http.post("/api/account/signup", json={"username": other, "password": PASSWORD})
    assert taken.json()["error"] == "username_taken"
    freed = await http.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert freed.status_code == 201  # the old name is free again


async def test_delete_removes_the_account_and_its_personal_data(
    http: httpx.AsyncClient, acct_server: RunningServer, rds: aioredis.Redis
) -> None:
    anon = await ws_client(acct_server)
    await _win(anon)
    name = new_name("Del")
    body = await sign_up(http, name, token=anon.token)
    player = body["account"]["player"]
    signed = await ws_client(acct_server, session=http.cookies[COOKIE])
    for key in (keys.history(player), keys.history_games(player), f"player:{{{player}}}", f"sb:{{{player}}}"):
        assert await rds.exists(key), key  # there to be deleted
    r = await http.post("/api/account/delete", json={"confirm": "someone else"})
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    r = await http.post("/api/account/delete", json={"confirm": name.lower(), "password": PASSWORD})
    assert r.status_code == 200 and r.json() == {"deleted": True}
    assert COOKIE not in http.cookies
    await signed.wait_closed(TIMEOUT)
    for key in (keys.account(player), keys.sessions(player), keys.passkeys(player), keys.history(player),
                keys.history_games(player), keys.history_summaries(player), keys.username(name.lower()),
                f"player:{{{player}}}", f"streak:{{{player}}}", f"sb:{{{player}}}"):  # fmt: skip
        assert not await rds.exists(key), key
    r = await http.post("/api/account/signin", json={"username": name, "password": PASSWORD})
    assert r.status_code == 401
    await anon.close()


async def test_a_game_that_ends_while_the_account_is_deleted_leaves_no_history_behind(
    http: httpx.AsyncClient, acct_server: RunningServer, rds: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A race's aftermath may record a game of the player between the deletion's clearing of the history
    and the account's removal: recorded for an account, it would be kept for good, with nobody to own it."""
    name = new_name("Gap")
    player = (await sign_up(http, name))["account"]["player"]
    accounts: Accounts = acct_server.ctx.get(Accounts)
    real_remove = accounts.store.remove

    async def remove_after_a_race_ended(who: str, username: str) -> None:
        late = Finished(f"r{'x' * 11}-1", "race", "easy", "won", 0, 40, 60_000, 1)
        assert await accounts.history.record(who, late)  # the account still exists: kept without a TTL
        assert await rds.ttl(keys.history(who)) == -1
        await real_remove(who, username)

    monkeypatch.setattr(accounts.store, "remove", remove_after_a_race_ended)
    r = await http.post("/api/account/delete", json={"confirm": name.lower(), "password": PASSWORD})
    assert r.status_code == 200 and r.json() == {"deleted": True}
    for key in (keys.history(player), keys.history_games(player), keys.history_summaries(player)):
        assert not await rds.exists(key), key
