"""The race state machine, with an injected clock (ms)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from golfrace.engine import GameCode
from golfrace.races.errors import RaceError
from golfrace.races.race import Outcome, Phase, Race, RaceOptions
from golfrace.races.race_data import race_from_data, race_to_data
from golfrace.races.race_views import board, progress, race_view, results
from golfrace.settings.races import RaceSettings

from .helpers import Play, stuck_deal, won_deal

T0 = 1_800_000_000_000


def lobby(code: str, **opts: object) -> Race:
    race = Race.create(
        "rtest", GameCode.parse(code), host="alice", name="Alice", now=T0, options=RaceOptions(**opts)
    )  # type: ignore[arg-type]
    return race.join("bob", "Bob", T0 + 1)


def started(code: str, **opts: object) -> Race:
    return lobby(code, **opts).start("alice", T0 + 10)


def err(fn: object, code: str) -> None:
    with pytest.raises(RaceError) as info:
        fn()  # type: ignore[operator]
    assert info.value.code == code


def test_lobby_join_leave_and_seats() -> None:
    code, _ = won_deal()
    race = lobby(code, seats=2)
    assert [r.name for r in race.racers] == ["Alice", "Bob"]
    assert race.phase(T0) is Phase.LOBBY
    err(lambda: race.join("carol", "Carol", T0), "race_full")
    assert race.join("bob", "  Bobby   B ", T0).racer("bob").name == "Bobby B"  # type: ignore[union-attr]
    assert race.join("bob", " \t ", T0).racer("bob").name == ""  # type: ignore[union-attr]  # no name: shown localized
    left = race.leave("alice")
    assert left.host == "bob" and len(left.racers) == 1
    err(lambda: race.start("bob", T0), "not_host")
    err(lambda: lobby(code, seats=9), "bad_option")
    err(lambda: lobby(code, time_limit_s=-1), "bad_option")
    err(lambda: lobby(code).join("dave", "x" * 40, T0), "bad_option")


def test_countdown_is_server_time_and_moves_wait_for_it() -> None:
    code, _ = won_deal()
    race = started(code)
    assert race.starts_at == T0 + 10 + 3000
    assert race.phase(T0 + 3009) is Phase.COUNTDOWN and race.phase(T0 + 3010) is Phase.RUNNING
    # the gate every seat commit checks (in Redis, tests/races/test_wire.py): no move before starts_at
    # and the record's revision (bumped by each write), which the commit checks against the race it was
    # told the move with (tests/races/test_peek.py)
    assert race.gate() == {"starts_at": T0 + 3010, "deadline": 0, "ended": 0, "undo": 1, "rev": 0}
    assert lobby(code).gate() == {}  # no seat games in the lobby
    err(lambda: race.join("carol", "Carol", T0 + 20), "race_started")
    assert race.join("bob", "Bob", T0 + 20) is race  # a seated racer comes back to the same seat
    err(lambda: race.resign("carol", T0 + 5000), "not_racer")


def test_whole_race_ranking_and_results() -> None:
    code, line = won_deal()
    play = Play(started(code))
    start = play.race.starts_at
    assert start is not None
    # Bob wins first, Alice wins later with the same line; ranked by time.
    race = play.run("bob", line, start + 20_000)
    assert race.racer("bob").outcome is Outcome.WON  # type: ignore[union-attr]
    assert race.phase(start + 20_000) is Phase.RUNNING
    assert (
        not race.code_visible_to("bob")  # fair play 11.2: a finished racer could pass it on
        and not race.code_visible_to("alice")
        and not race.code_visible_to(None)
    )
    race = play.run("alice", line, start + 30_000)
    assert race.phase(start + 30_000) is Phase.FINISHED and race.ended_at == start + 30_000
    res = results(race, play.seats)
    assert [(r["player"], r["score"], r["elapsed"], r["rank"]) for r in res] == [
        ("bob", 350, 20_000, 1),
        ("alice", 350, 30_000, 2),
    ]
    assert race.gate()["ended"] == 1  # the gate refuses every later move (race_over)
    err(lambda: race.resign("alice", start + 31_000), "race_over")


def test_tie_breaks_score_then_time_then_moves_then_finish() -> None:
    code, line = won_deal()
    lob = lobby(code).join("carol", "Carol", T0).join("dave", "Dave", T0)
    play = Play(lob.start("alice", T0))
    s = play.race.starts_at
    assert s is not None
    # alice: win with an extra draw-undo (more undos, same moves) at 10 s; bob: win at 10 s, finished later
    # carol: stuck/resigned (lower score); dave: win in 9 s.
    play.run("dave", line, s + 9_000)
    play.run("alice", line, s + 10_000)
    play.run("bob", line, s + 10_000)
    race = play.resign("carol", s + 1_000)
    order = [r.player for r in race.ranking(play.seats)]
    assert order[0] == "dave" and order[-1] == "carol"
    # alice and bob: same score, time, moves and finish: the seat decides (alice seated first)
    assert order[1:3] == ["alice", "bob"]
    # fewer moves beat more moves at equal time
    play2 = Play(lobby(code).start("alice", T0))
    s2 = play2.race.starts_at
    assert s2 is not None
    tap = next(i for i, tok in enumerate(line) if tok != "d")  # ranked: a draw is final, a removal is not
    play2.run("alice", [*line[: tap + 1], "u", *line[tap:]], s2 + 5_000)
    race2 = play2.run("bob", line, s2 + 5_000)
    assert [r.player for r in race2.ranking(play2.seats)] == ["bob", "alice"]
    assert play2.game("alice").undos == 1
    assert [r["undos"] for r in results(race2, play2.seats)] == [0, 1]


def test_undo_option_resign_and_stuck_scoring() -> None:
    code, line = stuck_deal()
    play = Play(started(code, undo=False))
    s = play.race.starts_at
    assert s is not None
    assert play.race.gate()["undo"] == 0  # the gate refuses undos (undo_disabled)
    play.run("alice", line[:1], s)
    race = play.run("alice", line[1:], s + 2_000)
    alice = race.racer("alice")
    assert alice is not None and alice.outcome is Outcome.STUCK and alice.finished_at == s + 2_000
    err(lambda: race.resign("alice", s + 3_000), "game_ended")
    race = play.resign("bob", s + 4_000)
    bob = race.racer("bob")
    assert bob is not None and bob.outcome is Outcome.RESIGNED and bob.final_score(None) == 0
    assert race.gate()["out:2"] == "resigned"  # his seat takes no move any more (game_ended)
    assert race.ended_at == s + 4_000


def test_stopping_on_a_zero_never_beats_playing_on_to_a_stuck_zero() -> None:
    """Scores floor at 0: a racer who resigns after one move scores 0 in a second, like one who played on to
    a stuck end of 0 points in a minute. The shorter time must not rank the resigned racer first (a CI run of
    tests/cluster/test_cluster_pool.py rated a resigned human +198 over a bot stuck at 17 cards)."""
    code, line = stuck_deal()
    play = Play(started(code))
    s = play.race.starts_at
    assert s is not None
    play.run("alice", line[:1], s + 500)
    race = play.resign("alice", s + 1_000)
    race = play.run("bob", line, s + 60_000)
    alice, bob = race.racer("alice"), race.racer("bob")
    assert alice is not None and bob is not None and bob.outcome is Outcome.STUCK
    assert alice.final_score(play.seats[alice.seat]) == bob.final_score(play.seats[bob.seat]) == 0
    assert [r.player for r in race.ranking(play.seats)] == ["bob", "alice"]
    # the same for the time limit (11.6) and an idle forfeit: only a result of no move ranks lower still
    timed = Play(started(code, time_limit_s=120))
    t = timed.race.starts_at
    assert t is not None
    timed.run("bob", line, t + 60_000)
    timed.run("alice", line[:1], t + 500)
    done = timed.settle(t + 121_000)
    assert done.racer("alice").outcome is Outcome.TIMEOUT  # type: ignore[union-attr]
    assert [r.player for r in done.ranking(timed.seats)] == ["bob", "alice"]


def test_time_limit_settles_everyone_still_playing() -> None:
    code, line = won_deal()
    play = Play(started(code, time_limit_s=60))
    s = play.race.starts_at
    assert s is not None and play.race.deadline == s + 60_000
    assert play.race.gate()["deadline"] == s + 60_000  # the gate refuses moves from then on (race_over)
    race = play.run("alice", line[:5], s + 1_000)
    assert race.settle(s + 59_999, play.seats) is race
    done = play.settle(s + 61_000)
    assert done.ended_at == s + 60_000
    assert {r.outcome for r in done.racers} == {Outcome.TIMEOUT}
    assert [r["elapsed"] for r in results(done, play.seats)] == [60_000, 60_000]
    # out of time: scored like a stuck game (10 less per card left), so stopping early never pays
    from golfrace.engine import points

    game = play.game("alice")
    alice = done.racer("alice")
    assert alice is not None
    assert alice.final_score(play.seats[1]) == points(game.removed, stuck=True) < game.score
    shown = {r["player"]: r for r in results(done, play.seats)}
    assert shown["alice"]["status"] == "timeout" and shown["alice"]["scored_as_stuck"]
    assert shown["alice"]["score"] == points(game.removed, stuck=True)
    # the leaderboards score the record from the server's log: the same as the race's results
    from golfrace.races.replay import GameRecord, verify

    record = GameRecord.of(done, alice, play.log("alice"))
    assert record.log[-1] == (line[4], 1_000)  # ms after the start
    assert verify(record).score == alice.final_score(play.seats[1]) == shown["alice"]["score"]


def test_a_racer_idle_after_another_finished_is_out() -> None:
    code, line = won_deal()
    play = Play(started(code))
    s = play.race.starts_at
    assert s is not None and play.race.idle_s == 300  # the server's idle_forfeit_s when it was created
    race = play.run("bob", line[:1], s + 5_000)  # bob's last move, then his tab closes
    seats = play.seats
    assert race.out_at(race.racer("bob"), seats) == s + 305_000  # type: ignore[arg-type]
    race = play.run("alice", line, s + 200_000)  # alice wins long after bob's last move
    assert race.racer("alice").outcome is Outcome.WON  # type: ignore[union-attr]
    # bob gets the whole wait from alice's finish, not from his last move (a slow racer is not out at once)
    bob_out = race.out_at(race.racer("bob"), seats)  # type: ignore[arg-type]
    assert race.next_check(seats) == bob_out == s + 200_000 + 300_000
    view = race_view(race, "bob", s + 200_000, seats=seats)
    assert [p["out_at"] for p in view["racers"]] == [None, s + 500_000]
    assert race.settle(s + 499_999, seats) is race
    over = race.settle(s + 500_001, seats)
    bob = over.racer("bob")
    assert bob is not None and bob.outcome is Outcome.ABANDONED and bob.status == "abandoned"
    assert bob.finished_at == s + 500_000 and bob.final_score(seats[2]) == 0  # scored as stuck
    assert over.ended_at == s + 500_000 and over.next_check(seats) is None
    assert over.gate()["out:2"] == "abandoned" and over.gate()["ended"] == 1
    assert [r["player"] for r in results(over, seats)] == ["alice", "bob"]
    assert over.settle(s + 900_000, seats) is over
    assert race_from_data(race_to_data(over)) == over


def test_an_idle_racer_is_out_without_waiting_for_a_finish_and_a_race_of_closed_tabs_ends() -> None:
    """Issue 20.3: the forfeit does not wait for someone to finish first, so a race whose racers all closed
    their tabs before anyone finished ends, instead of running (and being listed live) for days."""
    code, line = won_deal()
    play = Play(started(code))
    s = play.race.starts_at
    assert s is not None
    race = play.run("alice", line[:3], s + 10_000)  # alice plays on, bob never moves
    seats = play.seats
    assert race.next_check(seats) == s + 300_000  # bob: idle from the start
    partly = race.settle(s + 300_000, seats)
    assert partly.racer("bob").outcome is Outcome.ABANDONED and partly.ended_at is None  # type: ignore[union-attr]
    assert partly.racer("alice").outcome is None  # type: ignore[union-attr]  # she moved 10 s in
    over = partly.settle(s + 310_000, seats)  # now alice's tab is closed too
    assert over.ended_at == s + 310_000 and over.phase(s + 310_000).value == "finished"
    assert {r.status for r in over.racers} == {"abandoned"}


def test_idle_clock_restarts_with_each_move_and_only_daily_attempts_never_forfeit() -> None:
    code, line = won_deal()
    play = Play(started(code))
    s = play.race.starts_at
    assert s is not None
    race = play.resign("alice", s + 1_000)
    assert race.next_check(play.seats) == s + 301_000  # bob never moved: counted from alice's finish
    race = play.run("bob", line[:1], s + 200_000)
    seats = play.seats
    assert race.next_check(seats) == s + 500_000  # a move starts his wait again
    assert race.settle(s + 499_999, seats) is race
    assert race.settle(s + 500_000, seats).racer("bob").outcome is Outcome.ABANDONED  # type: ignore[union-attr]
    idle_off = replace(race, idle_s=0).settle(s + 10**9, seats)
    assert idle_off.racer("bob").outcome is None  # type: ignore[union-attr]
    timed = started(code, time_limit_s=120).resign("alice", s + 1_000)
    assert timed.next_check({}) == s + 120_000  # the time limit comes first
    solo = Race.create("rs", GameCode.parse(code), host="alice", name="A", now=T0).start("alice", T0)
    assert solo.starts_at is not None and solo.next_check({}) == solo.starts_at + 300_000  # issue 20.3
    alone = solo.settle(solo.starts_at + 300_000)
    assert alone.ended_at is not None and alone.racer("alice").outcome is Outcome.ABANDONED  # type: ignore[union-attr]
    daily = Race.create("rd", GameCode.parse(code), host="alice", name="A", now=T0, daily="2026-12-01")
    daily = daily.start("alice", T0)
    assert daily.settle(T0 + 10**9) is daily and daily.next_check({}) is None
    short = Race.create(
        "ri", GameCode.parse(code), host="alice", name="A", now=T0, settings=RaceSettings(idle_forfeit_s=20)
    )
    assert short.idle_s == 20 and race_from_data(race_to_data(short)).idle_s == 20


def test_whoever_joins_a_lobby_its_host_left_hosts_it() -> None:
    code, _ = won_deal()
    race = Race.create("rh", GameCode.parse(code), host="alice", name="Alice", now=T0, options=RaceOptions())
    empty = race.leave("alice")
    assert empty.host == "alice" and not empty.racers
    joined = empty.join("bob", "Bob", T0 + 1)
    assert joined.host == "bob"
    assert joined.start("bob", T0 + 2).starts_at is not None
    assert lobby(code).join("carol", "Carol", T0 + 2).host == "alice"  # a seated host stays host


def test_views_hide_cards_and_codes() -> None:
    code, line = won_deal()
    play = Play(started(code))
    s = play.race.starts_at
    assert s is not None
    race = play.run("alice", line[:3], s + 100)
    alice = race.racer("alice")
    assert alice is not None
    p = progress(race, alice, play.seats, s + 200)
    assert set(p) == {
        "seat",
        "player",
        "name",
        "removed",
        "score",
        "moves",
        "undos",
        "stock_count",
        "status",
        "elapsed",
        "out_at",
    }
    assert race_view(race, "bob", s + 200)["code"] is None
    assert race_view(race, None, s + 200)["code"] is None
    game = play.game("alice")
    stock = {c.code for c in game.deal.stock[game.drawn :]}
    shown = board(race, alice, play.seats, s)
    assert not stock & {c for col in shown["columns"] for c in col} and shown["discard"] not in stock
    typed = Race.create("rt", GameCode.parse(code), host="a", name="A", now=T0, typed=True)
    assert typed.ranked is False and race_view(typed, None, T0)["code"] == code


def test_rematch_and_storage_round_trip() -> None:
    code, line = won_deal()
    play = Play(started(code))
    s = play.race.starts_at
    assert s is not None
    err(lambda: play.race.accept_rematch("bob", "rnext"), "race_not_finished")
    play.run("alice", line, s + 1)
    race = play.resign("bob", s + 2)
    assert race.ended_at == s + 2 and not race.finalized and race.finalize().finalized
    again = race_from_data(race_to_data(race))
    assert again == race
    race = race.accept_rematch("bob", "rnext").accept_rematch("alice", "rother")
    assert race.rematch == "rnext"
    nxt = race.next_race(GameCode.parse("GO1-E-AAAAAAZ"), "bob", s + 10)
    assert nxt.id == "rnext" and nxt.host == "bob" and nxt.previous == race.id and nxt.options == race.options
    nxt = nxt.join("alice", "Alice", s + 11)
    assert [r.player for r in nxt.racers] == ["bob", "alice"]


def test_a_racer_whose_seat_was_not_read_bounds_what_watchers_see_as_having_drawn_nothing() -> None:
    """Fair play 11.4: watchers see as many draws of any board as the racer still playing who drew fewest; a
    racer whose seat game is missing from those read (not stored, or gone) counts as having drawn none,
    rather than being left out of the bound (which would show the others' draws beyond theirs)."""
    code, _ = won_deal()
    play = Play(started(code))
    race = play.run("bob", ["d", "d"], T0 + 4000)  # Alice has not moved: no seat of hers among these
    assert race.shown_draws(play.seats, T0 + 4000) == 0
    assert board(race, race.racers[1], play.seats, T0 + 4000)["hidden"]
