"""A websocket whose instance missed the sign-out message (its subscription dropped, as when its Redis link is
down at that moment) is still open and still the account's player; before a ranked action it checks its
session again, is refused ``not_signed_in`` and closed. Two real server instances on one real Redis."""

from __future__ import annotations

from typing import Any

import httpx

from golfrace.accounts.service import SIGNOUT_CHANNEL, Accounts
from golfrace.accounts.sessions import COOKIE
from golfrace.settings import Settings
from golfrace.wire.protocol import CLOSE_SIGNED_OUT
from golfrace_client.client import Client
from golfrace_testkit.servers import running_server

from .conftest import PASSWORD, TIMEOUT, new_name, sign_up, ws_client


async def _refused_and_closed(client: Client, msg: dict[str, Any]) -> None:
    """The action is not carried out and the socket closes as a signed-out one does (no answer first: a
    closing connection's queued frames are dropped)."""
    await client.send(msg)
    assert await client.wait_closed(TIMEOUT) == CLOSE_SIGNED_OUT
    assert not [m for m in client.drain() if m.get("t") == "race"], "no race made or joined"


async def test_a_socket_that_missed_the_sign_out_cannot_play_ranked(
    http: httpx.AsyncClient, acct_server: Any, acct_settings: Settings
) -> None:
    name = new_name("Stale")
    player = (await sign_up(http, name))["account"]["player"]
    session = http.cookies[COOKIE]
    host = await ws_client(acct_server)  # a guest's lobby on the first instance, for race_join
    await host.send({"t": "race_new", "seats": 4, "rid": "lobby"})
    race = (await host.expect("race", TIMEOUT, where=lambda m: m.get("rid") == "lobby"))["race"]
    async with running_server(acct_settings) as other:
        ctx = other.app.state.ctx
        await ctx.hub.unsubscribe(SIGNOUT_CHANNEL, ctx.get(Accounts))  # this instance hears no sign-out
        stale = [await ws_client(other, session=session) for _ in range(3)]
        assert all(c.player == player for c in stale)
        r = await http.post("/api/account/signout", json={})  # on the first instance
        assert r.json() == {"signed_out": 1}
        for c in stale:  # the message never arrived: each socket is open and still the account's
            await c.send({"t": "daily"})
            assert (await c.expect("daily", TIMEOUT))["date"]
        await _refused_and_closed(stale[0], {"t": "daily_play"})
        await _refused_and_closed(stale[1], {"t": "race_new", "seats": 2})
        await _refused_and_closed(stale[2], {"t": "race_join", "race": race})
        lobby = (await http.get(f"/api/races/{race}")).json()
        assert [r["player"] for r in lobby["racers"]] == [host.player]  # the stale socket did not join
        # signed in again: a live session's socket on that instance plays ranked as before
        r = await http.post("/api/account/signin", json={"username": name, "password": PASSWORD})
        assert r.status_code == 200, r.text
        fresh = await ws_client(other, session=http.cookies[COOKIE])
        await fresh.send({"t": "daily_play"})
        attempt = await fresh.expect("race", TIMEOUT, where=lambda m: m.get("daily") is not None)
        assert fresh.player == player and attempt["ranked"] is True
        await fresh.close()
    await host.close()
