"""Fair play 11.2 and 11.4 as a cheater tries them, over real websockets, real HTTP and a real Redis: a second
identity of a racer (a second seat that resigns at once, a finished racer, a watcher, a throwaway daily
token) decodes every frame and every HTTP answer and never learns the code or a stock card early."""

from __future__ import annotations

from typing import Any

import httpx

from golfrace.engine import GameCode
from golfrace.engine.deal import deal
from golfrace.races.followers import RaceWire

from ..clock import MovableClock
from ..waiting import until
from .test_wire import CARD, T, act, join, new_race, open_seat, play_out, start, wait_start


async def stock_of(server: Any, rid: str) -> tuple[str, list[str]]:
    """The race's code and its stock in draw order (the server runs in this process)."""
    race = await server.ctx.get(RaceWire).service.load(rid)
    return str(race.code), [c.code for c in deal(race.code).stock]


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*strings(k), *strings(v))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings(v)]
    return []


def assert_nothing_early(answers: list[Any], code: str, stock: list[str], known: int = 0) -> int:
    """No answer holds the code (its letters, in any case) or a stock card past the first ``known`` (one
    deck: a stock card is never on the tableau). Returns how many answers were checked."""
    letters = GameCode.parse(code).letters
    hidden = set(stock[known:])
    for answer in answers:
        texts = strings(answer)
        assert letters not in " ".join(texts).upper(), f"the code leaked in {answer}"
        leaked = {t for t in texts if t in hidden and CARD.match(t)}
        assert not leaked, f"stock cards {leaked} leaked in {answer}"
    return len(answers)


async def http_answers(server: Any, rid: str, seats: int, token: str) -> list[Any]:
    """Every HTTP answer about the race and its seats, with and without the caller's token."""
    out: list[Any] = []
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        for headers in ({}, {"Authorization": f"Bearer {token}"}):
            for path in (
                f"/api/races/{rid}",
                "/api/races/live",
                *(f"/api/games/{rid}-{n}" for n in range(1, seats + 1)),
            ):
                resp = await http.get(path, headers=headers)
                if path.startswith("/api/games/"):
                    assert resp.status_code == 409 and resp.json()["error"] == "game_not_ended", resp.text
                out.append(resp.json())
            for path in (f"/r/{rid}", f"/watch/{rid}"):  # the pages with their previews (OG tags)
                out.append((await http.get(path, headers=headers)).text)
    return out


async def test_a_second_seat_resigned_in_the_countdown_learns_nothing_until_the_last_racer_is_done(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    ann = await make_client(name="Ann")
    alt = await make_client(name="Alt")  # Ann's second token
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(alt, rid)
    view = await start(ann, rid, alt)
    await alt.send({"t": "race_resign", "race": rid})  # during the countdown
    await alt.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][1]["status"] == "resigned")
    code, stock = await stock_of(server, rid)
    await wait_start(view, server_clock)
    for seq in range(1, 4):  # Ann draws; her second token is to learn none of it
        assert (await act(ann, rid, seq, {"a": "draw"}))["t"] == "ack"
    await alt.expect("race_progress", T, where=lambda m: m["racer"]["moves"] == 3)
    mine = await open_seat(alt, rid, 2)  # its own seat game
    assert mine["state"]["code"] is None
    answers = await http_answers(server, rid, 2, str(alt.token))
    assert assert_nothing_early([*alt.frames, *answers], code, stock) > 10
    # once the last racer is done, the code is no secret any more
    await ann.send({"t": "race_resign", "race": rid})
    done = await alt.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    assert done["code"] == code


async def test_a_finished_racer_sees_no_code_in_the_seat_diff_snapshot_or_record_while_others_play(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    ann = await make_client(name="Ann")
    bob = await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid)
    view = await start(ann, rid, bob)
    game = await open_seat(bob, rid, 2)
    code, stock = await stock_of(server, rid)
    await wait_start(view, server_clock)
    await play_out(bob, rid, game["state"], 0)  # to a stuck or won end; Ann has not moved
    await bob.expect("race", T, where=lambda m: m["race"] == rid and m["racers"][1]["status"] != "playing")
    ending = [f for f in bob.frames if f.get("t") == "diff" and f.get("status") != "playing"]
    assert ending and "code" not in ending[-1]
    again = await open_seat(bob, rid, 2)  # the snapshot after the end, and a resync from the start
    assert again["state"]["status"] != "playing" and again["state"]["code"] is None
    # the resync's answer is every diff from 0 (a view at the end cannot take them: dropped) or, when they
    # would fill over half the send queue (a game of over 32 moves), a snapshot
    seat, sent = f"{rid}-2", len(bob.frames)
    bob.views.pop(seat)
    await bob.send({"t": "resync", "game": seat, "v": 0})

    def answered() -> bool:
        return any(
            f.get("game") == seat
            and (f.get("t") == "snapshot" or (f.get("t") == "diff" and f.get("v") == again["v"]))
            for f in bob.frames[sent:]
        )

    await until(answered, "the resync's answer, up to the seat's last version")
    answers = await http_answers(server, rid, 2, str(bob.token))
    # he has seen every card he drew (fair: they were his); the code he must not see
    assert assert_nothing_early([*bob.frames, *answers], code, stock, known=len(stock)) > 10
    await ann.send({"t": "race_resign", "race": rid})
    done = await bob.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    assert done["code"] == code


async def test_a_watcher_sees_a_drawn_card_only_once_every_racer_still_playing_has_drawn_as_far(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    ann = await make_client(name="Ann")
    bob = await make_client(name="Bob")
    eve = await make_client(name="Eve")  # Ann's second token, watching her race
    rid = (await new_race(ann, name="Ann"))["race"]
    await join(bob, rid)
    await eve.send({"t": "watch", "race": rid})
    await eve.expect("race_watch", T)
    view = await start(ann, rid, bob)
    code, stock = await stock_of(server, rid)
    await wait_start(view, server_clock)

    def board(seat: int, moves: int) -> Any:
        return lambda m: m["race"] == rid and m["board"]["seat"] == seat and m["board"]["moves"] == moves

    # Bob draws first: his card is Ann's next one, so it stays hidden from everyone but Bob
    assert (await act(bob, rid, 1, {"a": "draw"}))["t"] == "ack"
    seen = await eve.expect("race_board", T, where=board(2, 1))
    assert seen["board"]["hidden"] and seen["board"]["discard"] is None and seen["diff"]["drawn"] is None
    assert seen["board"]["stock_count"] == len(stock) - 1  # counts are shown
    assert_nothing_early([*eve.frames, *await http_answers(server, rid, 2, str(eve.token))], code, stock)
    # Ann draws as far: both first cards show now, Bob's without a move of his
    assert (await act(ann, rid, 1, {"a": "draw"}))["t"] == "ack"
    mine = await eve.expect("race_board", T, where=board(1, 1))
    assert mine["board"]["discard"] == stock[0] and mine["diff"]["drawn"] == stock[0]
    revealed = await eve.expect("race_board", T, where=lambda m: board(2, 1)(m) and not m["board"]["hidden"])
    assert revealed["board"]["discard"] == stock[0]
    # Bob draws two more: hidden again, in the events and in a fresh watch
    for seq in (2, 3):
        assert (await act(bob, rid, seq, {"a": "draw"}))["t"] == "ack"
    await eve.expect("race_board", T, where=board(2, 3))
    await eve.send({"t": "watch", "race": rid})
    fresh = await eve.expect("race_watch", T, where=lambda m: m["boards"][1]["moves"] == 3)
    assert fresh["boards"][1]["hidden"] and fresh["boards"][0]["discard"] == stock[0]
    checked = [*eve.frames, *await http_answers(server, rid, 2, str(eve.token))]
    assert assert_nothing_early(checked, code, stock, known=1) > 10
    # the race over, every card shows
    await ann.send({"t": "race_resign", "race": rid})
    await bob.send({"t": "race_resign", "race": rid})
    await eve.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    await eve.send({"t": "watch", "race": rid})
    over = await eve.expect("race_watch", T, where=lambda m: m["phase"] == "finished")
    assert (
        over["code"] == code and over["boards"][1]["discard"] == stock[2] and not over["boards"][1]["hidden"]
    )


async def test_a_live_daily_attempt_shows_its_watchers_counts_only(
    make_client: Any, server: Any, server_clock: MovableClock
) -> None:
    dee = await make_client(name="Dee")
    fan = await make_client(name="Fan")
    await dee.send({"t": "daily_play"})
    attempt = await dee.expect("race", T, where=lambda m: m.get("daily") is not None)
    rid = attempt["race"]
    await fan.send({"t": "watch", "race": rid})
    watch = await fan.expect("race_watch", T)
    assert watch["code"] is None
    game = await open_seat(dee, rid, 1)
    await wait_start(attempt, server_clock)
    await play_out(dee, rid, game["state"], 0, limit=6)
    await fan.expect("race_board", T, where=lambda m: m["board"]["moves"] == 6)
    await fan.send({"t": "watch", "race": rid})
    again = await fan.expect("race_watch", T, where=lambda m: m["boards"][0]["moves"] == 6)
    assert again["boards"][0]["hidden"] and again["boards"][0]["columns"] is None
    assert again["boards"][0]["stock_count"] is not None  # the counts
    cards = {t for f in fan.frames for t in strings(f) if CARD.match(t)}
    assert not cards, f"cards of a live daily attempt reached a watcher: {cards}"
    # nor a column: the watcher's own attempt deals the same tableau, so a column names the card played
    diffs = [f["diff"] for f in fan.frames if f.get("t") == "race_board" and f["diff"]]
    assert any(d["a"] == "tap" for d in diffs), "no card played in six moves"
    named = [d for d in diffs for k in ("removed", "restored") if d.get(k) and d[k].get("col") is not None]
    assert not named, f"the columns of a live daily attempt reached a watcher: {named}"
    code, stock = await stock_of(server, rid)
    assert assert_nothing_early(fan.frames, code, stock) > 3
