"""Ranked play needs an account: a guest plays the same ranked race and daily attempt, but only accounts
reach the public boards (under their account's name); a deleted account's entries become a deleted
player's. Real websockets, HTTP and Redis."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from golfrace.accounts.sessions import COOKIE
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer

from .conftest import PASSWORD, TIMEOUT, new_name, sign_up, ws_client


async def _finished(client: Client, race_id: str) -> dict[str, Any]:
    return await client.expect(
        "race", TIMEOUT, where=lambda m: m["race"] == race_id and m["phase"] == "finished"
    )


async def _posted(client: Client, board: str, n: int = 1) -> None:
    """Waits until ``board`` holds ``n`` entries (boards are posted just after the race's last event)."""
    await client.send({"t": "board_watch", "board": board})
    await client.expect("board", TIMEOUT, where=lambda m: m["board"] == board and m["total"] >= n)
    await client.send({"t": "board_unwatch", "board": board})


async def _board(http: httpx.AsyncClient, path: str, token: str | None = None) -> dict[str, Any]:
    r = await http.get(f"/api/leaderboards/{path}", params={"token": token} if token else {})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_only_accounts_reach_the_boards_of_a_ranked_race_and_the_daily(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    await sign_up(http, new_name("Rk"), display="Ranked Rita")
    rita = await ws_client(acct_server, session=http.cookies[COOKIE])
    guest = await ws_client(acct_server)
    # a random deal: ranked for everyone who has an account
    await rita.send({"t": "race_new", "name": "typed name"})
    lobby = await rita.expect("race", TIMEOUT)
    race_id = lobby["race"]
    assert lobby["ranked"] and lobby["code"] is None
    await guest.send({"t": "race_join", "race": race_id, "name": "Guest"})  # fair play 19.2: accounts only
    refused = await guest.expect("error", TIMEOUT, where=lambda m: m.get("ref") == "race_join")
    assert refused["code"] == "account_required"
    await rita.send({"t": "race_start", "race": race_id})
    await rita.expect("race", TIMEOUT, where=lambda m: m["race"] == race_id and m["phase"] == "countdown")
    await rita.send({"t": "race_resign", "race": race_id})
    final = await _finished(rita, race_id)
    assert len(final["results"]) == 1
    await _posted(rita, f"code:{final['code']}")
    board = await _board(http, f"code/{final['code']}", guest.token)
    assert [e["player"] for e in board["entries"]] == [rita.player]
    assert board["entries"][0]["name"] == "Ranked Rita"  # the account's name, not the typed one
    assert board["you"] is None  # the guest has no entry
    # the daily: a guest plays the day's guest deal (fair play 19.1), unranked, on no board and no streak
    day = datetime.now(UTC).date().isoformat()
    for c in (guest, rita):
        await c.send({"t": "daily_play"})
        attempt = await c.expect("race", TIMEOUT, where=lambda m: m.get("daily") == day)
        assert attempt["ranked"] is (c is rita) and attempt["guest_deal"] is (c is guest)
        await c.send({"t": "race_resign", "race": attempt["race"]})
        await _finished(c, attempt["race"])
    await _posted(rita, f"daily:{day}")
    daily = await _board(http, f"daily/{day}", guest.token)
    assert rita.player in [e["player"] for e in daily["entries"]]
    assert guest.player not in [e["player"] for e in daily["entries"]] and daily["you"] is None
    await guest.send({"t": "daily"})
    assert not (await guest.expect("daily", TIMEOUT))["played"]
    # the history counts each game once, by what it was (a race seat is a game, recorded as a race)
    profile = (await http.get("/api/account/profile")).json()
    assert sorted(g["kind"] for g in profile["recent"]) == ["daily", "race"]
    assert profile["stats"]["played"] == 2 and f"{race_id}-1" in [g["game"] for g in profile["recent"]]
    # deleting the account: its entries stay, as a deleted player's
    r = await http.post(
        "/api/account/delete",
        json={
            "confirm": (await http.get("/api/account")).json()["account"]["username"],
            "password": PASSWORD,
        },
    )
    assert r.status_code == 200
    board = await _board(http, f"code/{final['code']}")
    (entry,) = board["entries"]
    assert entry["deleted"] is True and entry["name"] == "" and entry["player"].startswith("deleted-")
    assert rita.player not in str(await _board(http, f"daily/{day}"))
    for c in (rita, guest):
        await c.close()


async def test_a_signed_in_racer_who_gives_no_name_races_under_the_accounts_name(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    """The name the boards show (the display name, else the username) is the race's too, unless the racer
    gave one; a guest without a name stays unnamed (clients show "Player <seat>")."""
    username = new_name("Nm")
    await sign_up(http, username)
    host = await ws_client(acct_server, session=http.cookies[COOKIE])
    await host.send({"t": "race_new", "rid": "a", "ranked": False})  # a casual random race: guests too
    lobby = await host.expect("race", TIMEOUT, where=lambda m: m.get("rid") == "a")
    assert lobby["ranked"] is False and lobby["typed"] is False
    assert [r["name"] for r in lobby["racers"]] == [username]
    guest = await ws_client(acct_server)
    await guest.send({"t": "race_join", "race": lobby["race"], "rid": "b"})
    joined = await guest.expect("race", TIMEOUT, where=lambda m: m.get("rid") == "b")
    assert [r["name"] for r in joined["racers"]] == [username, ""]
    r = await http.post("/api/account/display", json={"display": "Nina Q"})
    assert r.status_code == 200, r.text
    await host.send({"t": "race_new", "rid": "c"})
    second = await host.expect("race", TIMEOUT, where=lambda m: m.get("rid") == "c")
    assert [r["name"] for r in second["racers"]] == ["Nina Q"]
    await host.send({"t": "race_new", "name": "Speedy", "rid": "d"})
    named = await host.expect("race", TIMEOUT, where=lambda m: m.get("rid") == "d")
    assert [r["name"] for r in named["racers"]] == ["Speedy"]  # the racer's own choice wins
    await host.close()
    await guest.close()
