"""Fair play against a second identity (issue 19), tried as a cheater would over real websockets and a real
Redis: the guest scout of the daily, the guest seat of a ranked race and the scout seat of a second
account, two accounts of one network, and the countdown resignation that outranked an honest game.
Each was written first against the server as it was, and failed there (docs/fair-play.md, the table)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from golfrace.engine import deal
from golfrace.races.followers import RaceWire
from golfrace.races.leaderboard import code_board
from golfrace_client.client import Client

from ..clock import MovableClock
from .test_fair_play import account, attempt, resign, settled
from .test_wire import T, act, apply_diff, greedy, join, new_race, open_seat, start, wait_start

pytestmark = pytest.mark.timeout(90)


async def draw_all(client: Client, rid: str, state: dict[str, Any]) -> list[str]:
    """Draw until the stock is empty; the cards drawn, in order (what the seat's player sees of the stock)."""
    state = json.loads(json.dumps(state))
    seen = []
    seq = 0
    while state["stock_count"] and state["status"] == "playing":
        seq += 1
        answer = await act(client, rid, seq, {"a": "draw"})
        assert answer["t"] == "ack", answer
        diff = await client.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v)
        apply_diff(state, diff)
        seen.append(state["discard"])
    return seen


# --- 19.1: the day's deal only through one's own ranked attempt -----------------------------------------
async def test_a_guest_scout_learns_nothing_about_the_days_deal(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    """The attack: a guest token starts today's daily and draws all 16 cards (3.1 s), so it knew the whole
    deal; an account then played its ranked attempt as a known deal and won 350, #1 on the daily board. Now
    a guest is dealt the day's guest deal: no card it sees, tableau or stock, is the ranked deal's."""
    scout = await make_client(name="Scout")
    await scout.send({"t": "daily_play"})
    seen = await attempt(scout)
    assert seen["ranked"] is False and seen["guest_deal"] is True and seen["code"] is None
    snap = await open_seat(scout, seen["race"], 1)
    await wait_start(seen, server_clock)
    drawn = await draw_all(scout, seen["race"], snap["state"])
    assert len(drawn) == 16  # the guest read its whole stock, as before

    ann = await make_client(name="Ann")
    await account(server, ann)
    await ann.send({"t": "daily_play"})
    ranked = await attempt(ann)
    assert ranked["ranked"] is True and ranked["guest_deal"] is False
    race = await server.ctx.get(RaceWire).service.load(ranked["race"])
    truth = deal(race.code)
    ranked_columns = [[c.code for c in col] for col in truth.columns]
    assert snap["state"]["columns"] != ranked_columns  # another tableau
    assert drawn != [c.code for c in truth.stock]  # and another stock
    assert snap["state"]["discard"] != truth.discard.code or drawn[:3] != [c.code for c in truth.stock[:3]]
    scout_race = await server.ctx.get(RaceWire).service.load(seen["race"])
    assert str(scout_race.code) != str(race.code)
    # every guest gets the same guest deal of the day, never the day's own
    other = await make_client()
    await other.send({"t": "daily_play"})
    again = await attempt(other)
    other_race = await server.ctx.get(RaceWire).service.load(again["race"])
    assert str(other_race.code) == str(scout_race.code) != str(race.code)


async def test_a_guest_daily_attempt_counts_for_nothing_and_a_new_account_still_has_its_ranked_one(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    """A guest plays the guest deal (no result, no streak, no claim), then signs up with the same player id
    (an account takes the guest's id): its ranked attempt of the day is still there, on the day's deal."""
    dee = await make_client(name="Dee")
    await dee.send({"t": "daily_play"})
    guest = await attempt(dee)
    await wait_start(guest, server_clock)
    await resign(dee, guest["race"])
    await dee.send({"t": "daily"})
    status = await dee.expect("daily", T)
    assert status["played"] is False and status["result"] is None and status["streak"] == 0
    await account(server, dee)  # signs up: the same player id
    await dee.send({"t": "daily_play"})
    # the new attempt's answer, not a late event of the guest's one (its par comes when the solver has it)
    ranked = await dee.expect(
        "race", T, where=lambda m: m.get("daily") is not None and m["race"] != guest["race"]
    )
    assert ranked["ranked"] is True and ranked["guest_deal"] is False


# --- 19.2: a ranked race seats accounts only ----------------------------------------------------------
async def test_a_guest_cannot_take_a_seat_in_a_ranked_race(make_client: Any, server: Any) -> None:
    """The attack: the host seats a guest of its own, which draws the whole stock 0.02 s after the start and
    resigns; the host then wins 350 with the stock known. A guest's seat is now refused."""
    host = await make_client(name="Host")
    await account(server, host)
    lobby = await new_race(host, name="Host", seats=2)
    assert lobby["ranked"] is True
    guest = await make_client(name="Seat")
    await guest.send({"t": "race_join", "race": lobby["race"]})
    refused = await guest.expect("error", T, where=lambda m: m.get("ref") == "race_join")
    assert refused["code"] == "account_required"
    race = await server.ctx.get(RaceWire).service.load(lobby["race"])
    assert [r.player for r in race.racers] == [host.player]
    # a guest asking for a ranked race is told so; without asking it gets a casual random race
    await guest.send({"t": "race_new", "ranked": True})
    assert (await guest.expect("error", T, where=lambda m: m.get("ref") == "race_new"))["code"] == (
        "account_required"
    )
    casual = await new_race(guest, seats=2)
    assert casual["ranked"] is False and casual["typed"] is False and casual["code"] is None
    other = await make_client()
    assert (await join(other, casual["race"]))["you"] is not None  # guests race each other there


async def test_a_second_accounts_scout_seat_is_flagged_and_one_network_is_noted(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    """The same attack with a second account in the seat: it may sit (an account costs a sign-up), but its
    result carries ``draw_scout`` (it drew the whole stock and quit) and both seats carry ``same_network``
    (two accounts of one network in one ranked race), in the race's results and the records, for review."""
    host, scout = await make_client(name="Host"), await make_client(name="Scout")
    await account(server, host)
    await account(server, scout)
    rid = (await new_race(host, name="Host", seats=2))["race"]
    await join(scout, rid)
    view = await start(host, rid, scout)
    snap = await open_seat(scout, rid, 2)
    await wait_start(view, server_clock)
    assert len(await draw_all(scout, rid, snap["state"])) == 16
    await scout.send({"t": "race_resign", "race": rid})
    await host.send({"t": "race_resign", "race": rid})
    end = await host.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    flags = {r["player"]: r["flags"] for r in end["results"]}
    assert flags[scout.player] == ["draw_scout", "same_network"]
    assert flags[host.player] == ["same_network"]
    # and they reach a person: both results are in the board's review list with their flags
    service = server.ctx.get(RaceWire).service
    board = code_board((await service.load(rid)).code)

    async def listed() -> dict[str, Any] | None:
        held = await service.boards.held_for_review(board)
        return held if len(held) == 2 else None

    held = await settled(listed)
    assert held[scout.player]["review"] == "flagged" and held[scout.player]["game"] == f"{rid}-2"
    assert held[scout.player]["flags"] == ["draw_scout", "same_network"]
    assert held[host.player]["review"] == "flagged" and held[host.player]["flags"] == ["same_network"]


async def test_an_honest_ranked_race_of_two_networks_carries_no_flag(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    """Two accounts from two networks, each playing: no flag (the review list is not flooded)."""

    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    await account(server, ann)
    await account(server, bob)
    for session in server.ctx.sessions:  # Bob's connection comes from another network
        if session.player == bob.player:
            session.network = "198.51.100.7"
    rid = (await new_race(ann, name="Ann", seats=2))["race"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    await open_seat(bob, rid, 2)
    await wait_start(view, server_clock)
    answer = await act(bob, rid, 1, {"a": "draw"})
    assert answer["t"] == "ack"
    await bob.send({"t": "race_resign", "race": rid})
    await ann.send({"t": "race_resign", "race": rid})
    end = await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    assert all(r["flags"] == [] for r in end["results"]), end["results"]
    service = server.ctx.get(RaceWire).service

    async def finalized() -> Any:
        race = await service.load(rid)
        return race if race is not None and race.finalized else None

    race = await settled(finalized)  # the end's aftermath is over
    assert await service.boards.held_for_review(code_board(race.code)) == {}  # the review list not flooded


# --- 19.8: a resignation in the countdown never outranks a played game of the same score ----------------
async def test_resigning_in_the_countdown_ranks_below_an_honest_zero(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    """The attack: scores floor at 0 and ties went by time, so resigning in the countdown (0 points, 0 ms)
    outranked an honest game that ended on 0 points after its moves. A result of no move now ranks below."""
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    await account(server, ann)
    await account(server, bob)
    rid = (await new_race(ann, name="Ann", seats=2))["race"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    await bob.send({"t": "race_resign", "race": rid})  # in the countdown
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][1]["status"] == "resigned")
    await open_seat(ann, rid, 1)
    await wait_start(view, server_clock)
    await server_clock.advance(20)  # Ann plays a while
    answer = await act(ann, rid, 1, {"a": "draw"})
    assert answer["t"] == "ack"
    await ann.send({"t": "race_resign", "race": rid})
    end = await ann.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    by_player = {r["player"]: r for r in end["results"]}
    assert by_player[ann.player]["score"] == by_player[bob.player]["score"] == 0
    assert by_player[ann.player]["moves"] == 1 and by_player[bob.player]["moves"] == 0
    assert [r["player"] for r in end["results"]] == [ann.player, bob.player]
    race = await server.ctx.get(RaceWire).service.load(rid)
    board = code_board(race.code)
    boards = server.ctx.get(RaceWire).service.boards

    async def both() -> list[dict[str, Any]] | None:
        entries = (await boards.page(board, 0, 10))[1]
        return entries if len(entries) == 2 else None

    entries = await settled(both)
    assert [e["player"] for e in entries] == [ann.player, bob.player]
    # fair play 19.6: an entry marks the account's username apart from the name it shows
    assert [e["username"] for e in entries] == ["u" + str(p)[1:9] for p in (ann.player, bob.player)]


async def test_resigning_a_played_daily_ranks_below_an_honest_stuck_zero(
    server: Any, make_client: Any, server_clock: MovableClock
) -> None:
    """The attack: a stopped game (resigned, abandoned, out of time) scores as stuck, and scores floor at 0,
    so an account that draws once and resigns its ranked daily at once (0 points, 1 move, ~0 s) outranked on
    the public daily board an honest account that played the same deal on until it was stuck on 0 points,
    minutes later: the boards' key had no "stopped" level. A stopped result now ranks below any game of the
    same score played to its end, on every board."""
    quitter, honest = await make_client(name="Quit"), await make_client(name="Hon")
    await account(server, quitter)
    await account(server, honest)
    await quitter.send({"t": "daily_play"})
    quick = await attempt(quitter)
    await open_seat(quitter, quick["race"], 1)
    await wait_start(quick, server_clock)
    assert (await act(quitter, quick["race"], 1, {"a": "draw"}))["t"] == "ack"
    quit_result = (await resign(quitter, quick["race"]))["results"][0]
    assert (quit_result["status"], quit_result["score"], quit_result["moves"]) == ("resigned", 0, 1)

    await honest.send({"t": "daily_play"})
    slow = await attempt(honest)
    assert slow["ranked"] and quick["ranked"] and slow["daily"] == quick["daily"]
    state = (await open_seat(honest, slow["race"], 1))["state"]
    await wait_start(slow, server_clock)
    seq = 0
    while state["status"] == "playing":  # a poor honest game: the whole stock first, then what fits
        move = {"a": "draw"} if state["stock_count"] else greedy(state)
        assert move is not None
        await server_clock.advance(2)  # a human's pace, on the server's clock
        seq += 1
        answer = await act(honest, slow["race"], seq, move)
        assert answer["t"] == "ack", answer
        apply_diff(state, await honest.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v))
    rid = slow["race"]
    end = await honest.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    honest_result = end["results"][0]
    assert (honest_result["status"], honest_result["score"]) == ("stuck", 0)
    assert honest_result["elapsed"] > quit_result["elapsed"]  # slower: time alone would rank it second

    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:

        async def ranks() -> dict[str, dict[str, Any]] | None:
            out = {}
            for who in (quitter, honest):
                page = await http.get(f"/api/leaderboards/daily/{slow['daily']}", params={"token": who.token})
                if page.json().get("you") is None:
                    return None
                out[who.player] = page.json()["you"]
            return out

        mine = await settled(ranks)
    assert mine[honest.player]["rank"] < mine[quitter.player]["rank"]
    assert [mine[p.player]["entry"]["stopped"] for p in (honest, quitter)] == [False, True]
