"""What a second identity of a racer (a watcher's token, another guest, plain HTTP) learns of a face-down card
or a secret code, found by trying as a cheater would: over real websockets, real HTTP and a real Redis, every
frame and answer the attacker gets decoded (fair play 11.2 and 11.4; the attacks are in docs/fair-play.md)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from golfrace.races.daily import day_start_ms
from golfrace.races.followers import RaceWire
from golfrace_testkit.servers import RunningServer

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from .helpers import won_deal
from .test_fair_play import account, attempt, resign, settled
from .test_hidden import assert_nothing_early, stock_of
from .test_wire import T, act, apply_diff, greedy, join, new_race, open_seat, play_out, start, wait_start

DAY = date(2031, 7, 9)
DAY_END_MS = day_start_ms(DAY + timedelta(days=1))
GRACE_MS = 600_000  # races.daily_grace_s


@pytest.mark.parametrize("first_watch", ["before the start", "after his moves"])
async def test_a_watcher_cannot_tell_which_card_a_racer_played_onto_a_draw_still_hidden(
    make_client: Any, server: Any, server_clock: MovableClock, first_watch: str
) -> None:
    """Bob draws a card Ann has not reached and plays a tableau card onto it: the card he played tells its
    rank (one apart), so watchers (Ann's second token among them) must not see which one it was until Ann
    has drawn as far; they see his board as it was at that draw, and the counts. Watched from the start, or
    first watched after those moves (made while the race's move events carried no boards)."""
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    eve = await make_client(name="Eve")  # Ann's second token
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid)
    if first_watch == "before the start":
        await eve.send({"t": "watch", "race": rid})
        await eve.expect("race_watch", T)
    view = await start(ann, rid, bob)
    code, stock = await stock_of(server, rid)
    state = json.loads(json.dumps((await open_seat(bob, rid, 2))["state"]))
    await wait_start(view, server_clock)
    seq, move = 0, None
    while move is None or move["a"] != "tap":  # he draws until one of his columns fits the drawn card
        seq += 1
        answer = await act(bob, rid, seq, {"a": "draw"})
        assert answer["t"] == "ack", answer
        apply_diff(state, await bob.expect("diff", T, where=lambda m, v=answer["v"]: m["v"] == v))
        move = greedy(state)
        assert move is not None, "a deal where Bob can play nothing at all"
    played = state["columns"][move["col"] - 1][-1]
    seq += 1
    assert (await act(bob, rid, seq, move))["t"] == "ack"
    shown_boards = []
    if first_watch == "before the start":
        seen = await eve.expect(
            "race_board", T, where=lambda m: m["board"]["seat"] == 2 and m["board"]["moves"] == seq
        )
        shown_boards.append(seen["board"])
    await eve.send({"t": "watch", "race": rid})
    fresh = await eve.expect("race_watch", T, where=lambda m: m["boards"][1]["moves"] == seq)
    for shown in (*shown_boards, fresh["boards"][1]):
        assert shown["hidden"] and shown["discard"] is None, shown
        assert shown["columns"][move["col"] - 1][-1] == played, "the card he played shows as gone"
    for frame in eve.frames:
        diff = frame.get("diff") if frame.get("t") == "race_board" else None
        for key in ("removed", "restored"):
            assert not (diff and diff.get(key) and diff[key].get("col")), f"a column named in {frame}"
        boards = [frame["board"]] if frame.get("t") == "race_board" else frame.get("boards") or []
        assert all(b["discard"] != played for b in boards), f"the card he played shows in {frame}"
    assert_nothing_early(eve.frames, code, stock)
    # Ann draws as far: Bob's board shows as it is, the card he played on the discard
    for n in range(1, seq):
        assert (await act(ann, rid, n, {"a": "draw"}))["t"] == "ack"
    caught_up = await eve.expect(
        "race_board", T, where=lambda m: m["board"]["seat"] == 2 and not m["board"]["hidden"]
    )
    assert caught_up["board"]["discard"] == played and caught_up["board"]["moves"] == seq
    assert caught_up["board"]["columns"][move["col"] - 1][-1:] != [played]


async def test_a_days_code_stays_hidden_in_every_attempt_until_no_attempt_of_it_can_count(
    make_client: Any, clocked: RunningServer, clock: MovableClock
) -> None:
    """An attempt still counts for its day if it ends within ``daily_grace_s`` after midnight: a player still
    at it then must not get the day's deal from another attempt that has ended (its record, its race view,
    a personal best, a watch), neither as themselves nor through a second identity."""
    server = clocked
    clock.set(DAY_END_MS - 20_000)  # 23:59:40 UTC
    quick = await make_client(server.ws, name="Quick")  # an account: the day's board shows its attempt
    await account(server, quick)
    # a second account (a guest's attempt deals the day's guest deal since fair play 19.1, not this one)
    guest = await make_client(server.ws, name="Guest")
    guest_session = await sign_in_client(server.ctx.redis, guest)  # type: ignore[union-attr]
    own = {"Cookie": f"golfrace_session={guest_session}"}  # an account's bests take its session
    done = []
    for client in (quick, guest):
        await client.send({"t": "daily_play"})
        done.append(await resign(client, (await attempt(client))["race"]))
    cheat = await make_client(server.ws, name="Cheat")
    await account(server, cheat)
    await cheat.send({"t": "daily_play"})
    mine = await attempt(cheat)
    assert mine["ranked"]
    await open_seat(cheat, mine["race"], 1)
    code, stock = await stock_of(server, mine["race"])
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        path = f"/api/leaderboards/daily/{DAY.isoformat()}"
        board = await settled(lambda: _entries(http, path, 2))
        entry = board[0]
        clock.set(DAY_END_MS + 30_000)  # 00:00:30: the day is over, the cheater's attempt still counts
        spy = await make_client(server.ws, name="Spy")  # the cheater's second identity
        answers: list[Any] = []
        record = await http.get(f"/api/games/{entry['game']}")
        assert record.status_code == 409 and record.json()["error"] == "game_not_ended", record.text
        answers.append(record.json())
        for race in done:
            answers.append((await http.get(f"/api/races/{race['race']}")).json())
            await spy.send({"t": "watch", "race": race["race"]})
            answers.append(await spy.expect("race_watch", T, where=lambda m, r=race["race"]: m["race"] == r))
        bests = await http.get("/api/players/me/bests", headers=own)
        assert bests.json()["entries"], bests.text
        answers.append(bests.json())
        for client, race in ((quick, done[0]), (guest, done[1])):  # their own views, as after a reconnect
            await client.send({"t": "race_join", "race": race["race"]})
            answers.append(await client.expect("race", T, where=lambda m, r=race["race"]: m["race"] == r))
        assert assert_nothing_early([*answers, *spy.frames, *cheat.frames], code, stock) > 6
        # once no attempt of the day can count any more, its ended attempts show the code
        clock.set(DAY_END_MS + GRACE_MS)
        assert (await http.get(f"/api/games/{entry['game']}")).json()["code"] == code
        assert (await http.get(f"/api/races/{done[1]['race']}")).json()["code"] == code
        bests = await http.get("/api/players/me/bests", headers=own)
        assert [e["code"] for e in bests.json()["entries"]] == [code]


async def test_a_finished_racers_history_holds_no_card_and_no_code_while_the_race_is_on(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    """Bob plays his seat to its end while Ann has not moved: his stats page (the one history the profile
    reads too) gives him and his other identities nothing of the deal, then or after the end."""
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    code, stock = await stock_of(server, rid)
    game = await open_seat(bob, rid, 2)
    await wait_start(view, server_clock)
    await play_out(bob, rid, game["state"], 0)
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][1]["status"] != "playing")
    auth = {"Authorization": f"Bearer {bob.token}"}
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        during = (await http.get("/api/players/me/stats", headers=auth)).json()
        assert_nothing_early([during], code, stock)
        await ann.send({"t": "race_resign", "race": rid})
        await bob.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")

        async def counted() -> dict[str, Any] | None:
            page: dict[str, Any] = (await http.get("/api/players/me/stats", headers=auth)).json()
            return page if page["modes"]["race"]["played"] == 1 else None

        after = await settled(counted)
    assert_nothing_early([after], code, stock)  # numbers only, once the code is public too
    await finalized(server, rid)


async def test_the_solver_finding_the_par_tells_the_racers_nothing_while_they_race(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    """The par (the deal's best score, from the solver) shows after the end only; its search finishing during
    the race must not reach the racers either: a ``race`` then, changing nothing they see, would tell how soon
    the solver saw through the deal, a hint about its stock."""
    code, _ = won_deal()  # a typed deal the solver sees through at once
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann", code=code))["race"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    service = server.ctx.get(RaceWire).service

    async def par() -> int | None:
        race = await service.storage.read_race(rid)
        return None if race is None else race.par

    assert await settled(par) is not None
    await wait_start(view, server_clock)
    assert (await act(ann, rid, 1, {"a": "draw"}))["t"] == "ack"  # published after the par's write
    await bob.expect("race_progress", T, where=lambda m: m["race"] == rid and m["racer"]["moves"] == 1)
    races = [f for f in bob.frames if f.get("t") == "race" and f["race"] == rid]
    started = next(i for i, f in enumerate(races) if f["phase"] == "countdown")
    assert races[started + 1 :] == [], "a race frame came while they raced"
    await ann.send({"t": "race_resign", "race": rid})
    await bob.send({"t": "race_resign", "race": rid})
    done = await bob.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    assert done["par"] == 350
    await finalized(server, rid)


async def finalized(server: Any, rid: str) -> None:
    """Until the end's aftermath of race ``rid`` is done (it counts the results in the server's metrics,
    which other tests of this process read)."""

    async def done() -> bool | None:
        race = await server.ctx.get(RaceWire).service.storage.read_race(rid)
        return True if race is not None and race.finalized else None

    await settled(done)


async def _entries(http: httpx.AsyncClient, path: str, n: int = 1) -> list[dict[str, Any]] | None:
    entries: list[dict[str, Any]] = (await http.get(path)).json()["entries"]
    return entries if len(entries) >= n else None
