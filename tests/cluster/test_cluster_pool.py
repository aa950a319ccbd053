"""Quick races on the cluster deployment: the pool is shared by every instance (two seekers on two
instances meet in one race, whichever instance leads the wave), and an account's bot race is rated, its
keys on the cluster's shards; no command touches two slots (the deployment checks every log for
CROSSSLOT)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from golfrace_client.client import Client

from ..accounts.conftest import ws_client
from ..pool.test_pool import first_move
from .conftest import Deployment

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(90)]
T = 15.0


async def seek(client: Client, rules: str = "easy") -> None:
    await client.send({"t": "pool_join", "rules": rules, "rid": "seek"})
    await client.expect("pool", T, where=lambda m: m.get("rid") == "seek")


async def test_two_seekers_on_two_instances_meet_in_one_race(deploy: Deployment) -> None:
    ann, bob = await deploy.connect_on([None, None], name="Seeker")
    await seek(ann)
    await seek(bob)
    a = await ann.expect("pool_found", T)
    b = await bob.expect("pool_found", T)
    assert a["race"] == b["race"]
    for client in (ann, bob):
        await client.send({"t": "race_join", "race": a["race"]})
        view = await client.expect("race", T, where=lambda m: m["race"] == a["race"])
        assert view["pool"] and {r["player"] for r in view["racers"]} == {ann.player, bob.player}


async def test_an_accounts_bot_race_on_the_cluster_is_rated(deploy: Deployment) -> None:
    async with httpx.AsyncClient(base_url=deploy.balancer.http, timeout=T) as http:
        body = {"username": "pool" + str(id(deploy))[-6:], "password": "a long and rare phrase"}
        assert (await http.post("/api/account/signup", json=body)).status_code == 201
        session = http.cookies["golfrace_session"]
        me = await ws_client(deploy.balancer, session=session)
        deploy.clients.append(me)
        await seek(me, "classic")
        race = (await me.expect("pool_found", T))["race"]
        await me.send({"t": "race_join", "race": race})
        view = await me.expect("race", T, where=lambda m: m["race"] == race)
        assert view["ranked"] and any("bot" in r for r in view["racers"])
        assert (await first_move(me, race))["t"] == "ack"
        await me.send({"t": "race_resign", "race": race})
        for _ in range(300):  # the bot plays on to its end (a few seconds), then the race is rated
            await me.send({"t": "pool_result", "race": race})
            result = await me.expect("pool_result", T, where=lambda m: m["race"] == race)
            if result["state"] != "pending":
                break
            await asyncio.sleep(0.1)
        # the rating follows the race's standing: the resigned racer loses to a bot that played on to its end
        # (even stuck on 0 points, as the resignation scores: stopping never beats playing on); a bot seat the
        # race stopped (its instance killed by an earlier test of the shared deployment, its seat forfeited
        # idle) ranks by its score, then after the resignation (sooner) at equal score
        final = (await http.get(f"/api/races/{race}")).json()
        standing = final["results"]
        bot = next(r for r in standing if "bot" in r)
        assert bot["status"] not in ("won", "stuck") or bot["rank"] == 1, standing
        assert result["state"] == "rated" and (result["delta"] < 0) == (bot["rank"] == 1), (standing, result)
        mine = (await http.get("/api/players/me/ratings")).json()
        assert mine["classic"]["races"] == 1 and mine["classic"]["rating"] == result["rating"]
        assert len(mine["classic"]["history"]) == 1
