"""Races, the daily challenge and leaderboards on the cluster deployment: racers and a watcher on three
instances behind HAProxy, their keys on different shards; every frame checked for face-down cards."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from golfrace.races.leaderboard import composite
from golfrace_client.client import Client

from ..accounts.conftest import ws_client
from ..races.test_wire import (
    act,
    apply_diff,
    cards_in,
    greedy,
    join,
    new_race,
    open_seat,
    play_out,
    start,
    wait_start,
)
from .conftest import Deployment

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(90)]
T = 10.0


def check_race_frames(
    frames: list[dict[str, Any]], stock: list[str], code: str, until: int, name: str
) -> int:
    """No card still face down in the stock (as far as any seat has drawn: the ``stock`` counts a frame
    carries), and no code before frame ``until`` (where this client's own race is over). Returns the frames
    checked."""
    drawn = 0
    for i, frame in enumerate(frames):
        for count in _stock_counts(frame):
            drawn = max(drawn, len(stock) - count)
        leaked = cards_in(frame) & set(stock[drawn:])
        assert not leaked, f"{name} frame {i} shows face-down {leaked}: {frame}"
        if i < until:
            assert code not in json.dumps(frame), f"{name} frame {i} reveals the code early"
    return len(frames)


def first(frames: list[dict[str, Any]], pred: Any) -> int:
    return next(i for i, f in enumerate(frames) if pred(f))


def _stock_counts(value: Any) -> list[int]:
    if isinstance(value, dict):
        own = [v for k, v in value.items() if k in ("stock", "stock_count") and isinstance(v, int)]
        return own + [c for v in value.values() for c in _stock_counts(v)]
    if isinstance(value, list):
        return [c for v in value for c in _stock_counts(v)]
    return []


async def test_a_race_with_racers_and_a_watcher_on_three_instances(deploy: Deployment) -> None:
    ann, bob, eve = await deploy.connect_on([None, None, None], name="Racer")
    rid = (await new_race(ann, name="Ann"))["race"]
    assert len((await join(bob, rid, name="Bob"))["racers"]) == 2
    await ann.expect("race", T, where=lambda m: len(m["racers"]) == 2)  # Bob's join, seen on Ann's instance
    await eve.send({"t": "watch", "race": rid})
    await eve.expect("race_watch", T)
    assert (await ann.expect("watchers", T, where=lambda m: m["n"] == 1))["n"] == 1
    view = await start(ann, rid, bob)
    ann_game = await open_seat(ann, rid, 1)
    bob_game = await open_seat(bob, rid, 2)
    await wait_start(view)

    state_b = json.loads(json.dumps(bob_game["state"]))
    for seq in (1, 2, 3):
        move = greedy(state_b)
        assert move is not None
        assert (await act(bob, rid, seq, move))["t"] == "ack"
        apply_diff(state_b, await bob.expect("diff", T, where=lambda m, v=seq: m["v"] == v))
    await ann.expect("race_progress", T, where=lambda m: m["racer"]["seat"] == 2 and m["racer"]["moves"] == 3)
    await eve.expect("race_board", T, where=lambda m: m["board"]["seat"] == 2 and m["board"]["moves"] == 3)
    await bob.send({"t": "race_resign", "race": rid})
    await play_out(ann, rid, ann_game["state"], 0)
    finals = [await c.expect("race", T, where=lambda m: m["phase"] == "finished") for c in (ann, bob, eve)]
    assert all(f["results"] == finals[0]["results"] for f in finals)
    results = {r["player"]: r for r in finals[0]["results"]}
    assert results[bob.player]["status"] == "resigned" and results[bob.player]["moves"] == 3
    # each move once, in order: a board sent again without a move (diff null: every racer still playing has
    # now drawn as far, here when Bob's resignation lands after some of Ann's draws) is no move
    ann_moves = [
        f["board"]["moves"]
        for f in eve.frames
        if f.get("t") == "race_board" and f["board"]["seat"] == 1 and f["diff"] is not None
    ]
    assert ann_moves == list(range(1, results[ann.player]["moves"] + 1))

    async with httpx.AsyncClient(base_url=deploy.balancer.http, timeout=T) as http:
        record = (await http.get(f"/api/games/{results[ann.player]['game']}")).json()
    stock, code = record["deal"]["stock"], finals[0]["code"]
    ends = {
        "ann": first(ann.frames, lambda f: f.get("t") == "diff" and f["status"] != "playing"),
        "bob": first(
            bob.frames,
            lambda f: f.get("t") == "race" and any(r["status"] == "resigned" for r in f["racers"]),
        ),
        "eve": first(eve.frames, lambda f: f.get("t") == "race" and f["phase"] == "finished"),
    }
    for client, name in ((ann, "ann"), (bob, "bob"), (eve, "eve")):
        assert check_race_frames(client.frames, stock, code, ends[name], name) > 5


async def play_daily(client: Client) -> dict[str, Any]:
    await client.send({"t": "daily_play"})
    race = await client.expect("race", 30, where=lambda m: m.get("daily") is not None)
    game = await open_seat(client, race["race"], 1)
    await wait_start(race)
    await play_out(client, race["race"], game["state"], 0)
    return await client.expect(
        "race", T, where=lambda m: m["race"] == race["race"] and m["phase"] == "finished"
    )


async def players_on_three_masters(deploy: Deployment) -> list[Client]:
    """Three players whose streaks (``streak:{<player>}``) live on three different
    masters: new identities until each master has one."""
    chosen: dict[int, Client] = {}
    for _ in range(40):
        client, _where = await deploy.connect(name="Daily")
        assert client.player is not None
        master = await asyncio.to_thread(deploy.cluster.owner_of, f"streak:{{{client.player}}}")
        chosen.setdefault(master, client)
        if len(chosen) == 3:
            return list(chosen.values())
    raise AssertionError("40 new players and still a master without one")


async def test_the_daily_and_its_leaderboard_across_shards(deploy: Deployment) -> None:
    guests = await players_on_three_masters(deploy)
    players = []
    sessions: dict[str, str] = {}
    for n, p in enumerate(guests):  # public boards take accounts only: each signs up, keeping its id
        async with httpx.AsyncClient(base_url=deploy.balancer.http, timeout=T) as http:
            body = {
                "username": f"daily{n}{p.player[-6:]}",
                "password": "a long and rare phrase",
                "token": p.token,
            }
            assert (await http.post("/api/account/signup", json=body)).status_code == 201
            session = http.cookies["golfrace_session"]
            sessions[p.player] = session
        await p.close()  # signing up closed its guest connection (4401): it comes back with its session
        signed = await ws_client(deploy.balancer, session=session, token=p.token)
        deploy.clients.append(signed)
        assert signed.player == p.player
        players.append(signed)
    finals = await asyncio.gather(*(play_daily(p) for p in players))
    day = finals[0]["daily"]
    assert {f["daily"] for f in finals} == {day} and len({f["race"] for f in finals}) == 3
    mine = {p.player: f["results"][0] for p, f in zip(players, finals, strict=True)}
    async with httpx.AsyncClient(base_url=deploy.balancer.http, timeout=T) as http:
        for _ in range(50):  # posted by the instance whose write ended each race, just after the end
            board = (await http.get(f"/api/leaderboards/daily/{day}", params={"limit": 50})).json()
            if board["total"] == 3:
                break
            await asyncio.sleep(0.1)
        # an account's own data takes its session, not its token alone (docs/accounts.md)
        statuses, bests, histories = [], [], []
        for p in players:
            http.cookies.set("golfrace_session", sessions[p.player])
            statuses.append((await http.get("/api/daily", params={"token": p.token})).json())
            bests.append((await http.get("/api/players/me/bests", params={"token": p.token})).json())
            for _ in range(50):  # the history is recorded just after the board entry
                page = (await http.get("/api/players/me/stats")).json()
                if page["played"]:
                    break
                await asyncio.sleep(0.1)
            histories.append((page, (await http.get("/api/account/profile")).json()["stats"]))
    assert board["total"] == 3
    ranked = [e["player"] for e in board["entries"]]
    assert sorted(ranked) == sorted(mine)

    def key(player: str) -> tuple[int, str]:
        r = mine[player]
        entry = next(e for e in board["entries"] if e["player"] == player)
        key = composite(r["score"], entry["elapsed"], r["moves"], entry["stopped"])
        return key, f"{entry['finished_at']:013d}"

    assert ranked == sorted(ranked, key=key)
    for p, status, best in zip(players, statuses, bests, strict=True):
        assert status["played"] and status["result"]["score"] == mine[p.player]["score"]
        assert status["streak"] == 1 and status["share"], status
        assert status["code"] is None and finals[0]["code"] is None, (status["code"], finals[0]["code"])
        # today's daily code stays secret until the day is over (fair play 11.2), in personal bests too
        assert best["total"] == 1 and best["entries"][0]["code"] is None
    # one record of each player's games, in the player's slot: the stats page and the profile read the same
    for page, profile in histories:
        assert page["played"] == page["modes"]["daily"]["played"] == profile["played"] == 1, (page, profile)
        assert [m.partition(":")[0] for m in profile["modes"]] == ["daily"], profile
