"""The race-side views' reducers (client_web/src/views/race_state.js, watch_state.js, live_state.js), run by
Node: messages in, states out — no page, no socket. Each scenario is a JS function of the module that returns
what the test checks. Needs only `node`."""

from __future__ import annotations

import json
from typing import Any

from .node import node_json

RACE = "rabcdefghijk"


def run(module: str, body: str) -> Any:
    """`body` is a JS function `(m) => value` of the module `src/views/<module>.js`; returns its value."""
    # every state and message is deeply frozen: a reducer that changed one in place would throw (modules are
    # strict code), so each message must give a new state
    script = (
        "const deep = (o) => { if (o && typeof o === 'object' && !Object.isFrozen(o)) {"
        " Object.freeze(o); Object.values(o).forEach(deep); } return o; };"
        f"import('./src/views/{module}.js').then(mod => {{"
        "const m = {...mod, reduce: (s, msg) => deep(mod.reduce(deep(s), deep(msg)))};"
        f"const out = ({body})(m); process.stdout.write(JSON.stringify(out === undefined ? null : out));}})"
    )
    out = node_json(script, timeout=30)
    return out


# a race in its lobby with two racers, as `race` carries it to racer 1 (`you`)
LOBBY = {
    "t": "race",
    "race": RACE,
    "phase": "lobby",
    "host": "p1",
    "racers": [
        {"seat": 1, "player": "p1", "name": "Ana", "status": "playing", "score": 0},
        {"seat": 2, "player": "p2", "name": "", "status": "playing", "score": 0},
    ],
    "you": {"seat": 1, "game": f"{RACE}-1"},
    "watchers": None,
    "starts_at": None,
}
SETUP = f"const LOBBY = {json.dumps(LOBBY)}; const RACE = {json.dumps(RACE)};"


def race_case(body: str) -> Any:
    return run("race_state", f"(m) => {{ {SETUP} {body} }}")


def test_a_race_for_this_view_is_taken_with_a_watcher_count_that_came_first() -> None:
    got = race_case("""
        const s0 = m.initial(RACE);
        const s1 = m.reduce(s0, {t: "watchers", race: RACE, n: 3});
        const s2 = m.reduce(s1, LOBBY);
        const other = m.reduce(s2, {...LOBBY, race: "rzzzzzzzzzzz"});
        const s3 = m.reduce(s2, {t: "watchers", race: RACE, n: 4});
        return {pending: s1.pendingWatchers, race: s1.race, watchers: s2.race.watchers,
            after: s2.pendingWatchers,
                untouched: s0.race === null && s1.race === null, other: other === s2, later: s3.race.watchers,
                kept: s2.race.watchers, noT: "t" in s2.race};
    """)
    assert got == {
        "pending": 3,
        "race": None,
        "watchers": 3,
        "after": None,
        "untouched": True,
        "other": True,
        "later": 4,
        "kept": 3,
        "noT": False,
    }


def test_create_and_rematch_wait_for_their_own_answer() -> None:
    got = race_case("""
        let s = m.reduce(m.initial(null), {t: "view/create"});
        const rid = s.awaiting;
        const stranger = m.reduce(s, {...LOBBY, race: "rnew00000001", rid: "c9"});
        const watcherView = m.reduce(s, {...LOBBY, race: "rnew00000001", rid, you: null});
        const answered = m.reduce(s, {...LOBBY, race: "rnew00000001", rid});
        const second = m.reduce(m.reduce(answered, {t: "view/mount", race: "rnew00000001"}),
            {t: "view/create"});
        let r = m.reduce(m.initial(RACE), {...LOBBY, phase: "finished"});
        r = m.reduce(r, {t: "view/rematch"});
        const next = m.reduce(r, {...LOBBY, race: "rnext0000001", previous: RACE});
        return {rid, stranger: stranger === s, watcher: watcherView === s, created: answered.created,
                awaiting: answered.awaiting, race: answered.race, second: second.awaiting,
                    rematch: r.awaiting,
                next: next.created, stays: next.race.race};
    """)
    assert got == {
        "rid": "c1",
        "stranger": True,
        "watcher": True,
        "created": "rnew00000001",
        "awaiting": None,
        "race": None,
        "second": "c2",
        "rematch": f"rematch:{RACE}",
        "next": "rnext0000001",
        "stays": RACE,
    }


def test_progress_replaces_one_racer_in_a_new_state() -> None:
    got = race_case("""
        const s = m.reduce(m.initial(RACE), {...LOBBY, phase: "running", starts_at: 1000});
        const racer = {seat: 2, player: "p2", name: "", status: "won", score: 350, removed: 35};
        const t = m.reduce(s, {t: "race_progress", race: RACE, racer});
        const early = m.reduce(m.initial(RACE), {t: "race_progress", race: RACE, racer});
        return {before: s.race.racers[1].status, after: t.race.racers[1],
            one: t.race.racers[0] === s.race.racers[0],
                early: early.race, finished: m.finishedBetween(s, t, 1).map((r) => r.seat),
                mine: m.finishedBetween(s, t, 2).length, first: m.finishedBetween(m.initial(RACE), s,
                    null).length};
    """)
    assert got["before"] == "playing"
    assert got["after"] == {
        "seat": 2,
        "player": "p2",
        "name": "",
        "status": "won",
        "score": 350,
        "removed": 35,
    }
    assert got["one"] is True
    assert got["early"] is None
    assert got["finished"] == [2]  # an opponent who was playing is done: told
    assert got["mine"] == 0  # my own end has its own notice
    assert got["first"] == 0  # a page that comes late does not list the finishes it missed


def test_errors_become_facts_the_view_acts_on() -> None:
    got = race_case("""
        const s = m.initial(RACE);
        const started = m.reduce(s, {t: "error", ref: "race_join", code: "race_started",
            params: {race: RACE}});
        const missing = m.reduce(s, {t: "error", ref: "race_join", code: "race_not_found",
            params: {race: RACE}});
        const known = m.reduce(m.reduce(s, LOBBY), {t: "error", code: "race_not_found", ref: "race_join"});
        const start = m.reduce(s, {t: "error", ref: "race_start", code: "not_host"});
        const seat = m.reduce(s, {t: "error", ref: 4, code: "busy"});
        const created = m.reduce(m.initial(null), {t: "view/create"});
        const failed = m.reduce(created, {t: "error", ref: "c1", code: "bad_code"});
        return {started: started.spectator, startedErr: started.error, missing: missing.missing.code,
                known: known.missing, knownErr: known.error.code, start: start.error.code, seat: seat === s,
                failed: [failed.awaiting, failed.error.code]};
    """)
    assert got == {
        "started": True,  # not one of its racers: the view follows it as a spectator
        "startedErr": None,
        "missing": "race_not_found",
        "known": None,  # a race already shown is not "missing"
        "knownErr": "race_not_found",
        "start": "not_host",
        "seat": True,  # the seat's own errors are the GameSession's
        "failed": [None, "bad_code"],
    }


def test_the_end_of_my_board_is_told_once_per_version() -> None:
    got = race_case("""
        let s = m.reduce(m.initial(RACE), {...LOBBY, phase: "running", starts_at: 1000});
        const board = (v, status) => ({game: RACE + "-1", v, status, score: 0, moves: v});
        const playing = m.reduce(s, {t: "view/seat", state: board(3, "playing"), change: "tap",
            diff: {v: 3}});
        const won = m.reduce(playing, {t: "view/seat", state: board(4, "won"), change: "tap", diff: {v: 4}});
        const again = m.reduce(won, {t: "view/seat", state: board(4, "won"), change: "tap", diff: {v: 4}});
        const snap = m.reduce(s, {t: "view/seat", state: board(9, "stuck"), change: "snapshot", diff: null});
        return {playing: playing.ended, won: won.ended, again: again.ended === won.ended, snap: snap.ended,
                still: [m.stillPlaying(playing), m.stillPlaying(won)], change: won.mineChange};
    """)
    assert got == {
        "playing": None,
        "won": f"{RACE}@4",
        "again": True,
        "snap": None,  # a board opened after its end (a reload) is not told again
        "still": [True, False],
        "change": {"change": "tap", "diff": {"v": 4}},
    }


def test_my_seat_is_played_once_the_race_left_the_lobby() -> None:
    got = race_case("""
        const lobby = m.reduce(m.initial(RACE), LOBBY);
        const countdown = m.reduce(lobby, {...LOBBY, phase: "countdown", starts_at: 5000});
        const watcher = m.reduce(m.initial(RACE), {...LOBBY, phase: "running", you: null});
        const resigned = m.reduce(countdown, {t: "race_progress", race: RACE,
            racer: {seat: 1, player: "p1", status: "resigned", score: -70}});
        const mine = m.reduce(resigned, {t: "view/seat", state: {game: RACE + "-1", v: 2, status: "playing",
            score: 0,
            moves: 2}, change: "tap", diff: null});
        return {lobby: m.seatGame(lobby), countdown: m.seatGame(countdown), watcher: m.seatGame(watcher),
                phases: [m.phaseAt(countdown.race, 4999), m.phaseAt(countdown.race, 5000)],
                me: m.myProgress(resigned).status, playing: m.stillPlaying(mine)};
    """)
    assert got == {
        "lobby": None,
        "countdown": f"{RACE}-1",
        "watcher": None,
        "phases": ["countdown", "running"],
        "me": "resigned",
        "playing": False,  # a resignation changes my progress first, and my game is over
    }


def test_a_new_route_forgets_the_race_but_not_a_create_in_flight() -> None:
    got = race_case("""
        let s = m.reduce(m.initial(null), {t: "view/create"});
        s = m.reduce(s, {t: "view/mount", race: RACE});
        s = m.reduce(s, LOBBY);
        const moved = m.reduce(s, {t: "view/mount", race: "rother000001"});
        return {raceId: moved.raceId, race: moved.race, awaiting: moved.awaiting, creates: moved.creates};
    """)
    assert got == {"raceId": "rother000001", "race": None, "awaiting": "c1", "creates": 1}


# --- the watch view ---------------------------------------------------------------------------------------

BOARD = {
    "seat": 1,
    "name": "Ana",
    "status": "playing",
    "score": 0,
    "moves": 0,
    "removed": 0,
    "stock_count": 16,
    "columns": [["AS", "2H"], ["3C"]],
    "discard": "KD",
    "hidden": False,
}
WATCH = {**LOBBY, "t": "race_watch", "phase": "running", "you": None, "watchers": 1, "boards": [BOARD]}
WSETUP = (
    f"const WATCH = {json.dumps(WATCH)}; const BOARD = {json.dumps(BOARD)}; const RACE = {json.dumps(RACE)};"
)


def watch_case(body: str) -> Any:
    return run("watch_state", f"(m) => {{ {WSETUP} {body} }}")


def test_a_watcher_gets_every_board_and_the_larger_watcher_count() -> None:
    got = watch_case("""
        let s = m.reduce(m.initial(RACE), {t: "watchers", race: RACE, n: 5});
        const early = s.race.watchers;
        const lobbyBoard = {...BOARD, seat: 2, name: "", columns: null, discard: null};
        s = m.reduce(s, {...WATCH, boards: [lobbyBoard, BOARD]});
        return {early, watchers: s.race.watchers, seats: s.seats.map((x) => [x.seat, x.board]),
            watches: s.watches};
    """)
    shown = {"columns": [["AS", "2H"], ["3C"]], "discard": "KD", "held": False, "stock_count": 16}
    shown |= {"score": 0, "moves": 0}
    assert got == {
        "early": 5,
        "watchers": 5,  # the count that came first is not lowered by the answer's own
        "seats": [[1, {**shown, "status": "playing"}], [2, None]],  # in seat order; no cards before the deal
        "watches": 1,
    }


def test_a_drawn_card_held_back_from_watchers_is_a_face_down_discard() -> None:
    """Fair play: the server sends a board whose drawn card watchers may not see yet as ``hidden`` with no
    discard; the shown board says so (``held``), and a daily's hidden board (no cards at all) shows none."""
    got = watch_case("""
        const held = m.boardState({...BOARD, discard: null, hidden: true});
        const seen = m.boardState({...BOARD, hidden: false});
        const daily = m.boardState({...BOARD, columns: null, discard: null, hidden: true});
        return {held: [held.held, held.discard], seen: [seen.held, seen.discard], daily};
    """)
    assert got == {"held": [True, None], "seen": [False, "KD"], "daily": None}


def test_boards_and_progress_update_their_seat_only() -> None:
    got = watch_case("""
        let s = m.reduce(m.initial(RACE), {...WATCH, boards: [BOARD, {...BOARD, seat: 2}]});
        const diff = {a: "tap", removed: {col: 1, card: "2H"}, discard: "2H"};
        const moved = m.reduce(s, {t: "race_board", race: RACE, diff,
            board: {...BOARD, columns: [["AS"], ["3C"]], discard: "2H", score: 0, moves: 1, removed: 1}});
        const progress = m.reduce(moved, {t: "race_progress", race: RACE,
            racer: {seat: 1, name: "Ana", status: "playing", score: 0, removed: 1, moves: 1}});
        const other = m.reduce(progress, {t: "race_board", race: "rzzzzzzzzzzz", board: BOARD});
        return {moved: moved.seats[0].board.columns, diff: moved.seats[0].diff,
            two: moved.seats[1] === s.seats[1],
                kept: progress.seats[0].board === moved.seats[0].board, other: other === progress};
    """)
    assert got["moved"] == [["AS"], ["3C"]]
    assert got["diff"] == {"a": "tap", "removed": {"col": 1, "card": "2H"}, "discard": "2H"}
    assert got["two"] is True
    assert got["kept"] is True  # progress alone never repaints a board
    assert got["other"] is True


def test_the_seats_follow_the_racers_and_the_deal_asks_for_the_boards_again() -> None:
    got = watch_case("""
        const lobby = {...WATCH, phase: "lobby", boards: [{...BOARD, columns: null}, {...BOARD, seat: 2,
            columns: null}]};
        let s = m.reduce(m.initial(RACE), lobby);
        const left = m.reduce(s, {t: "race", race: RACE, phase: "lobby", racers: [lobby.racers[0]]});
        const dealt = m.reduce(left, {t: "race", race: RACE, phase: "countdown", racers: [lobby.racers[0]]});
        const early = m.reduce(m.initial(RACE), {t: "race", race: RACE, phase: "lobby",
            racers: lobby.racers});
        return {left: left.seats.map((x) => x.seat), rewatch: [left.rewatches, dealt.rewatches],
                early: [early.seats.length, early.race.phase]};
    """)
    assert got == {"left": [1], "rewatch": [0, 1], "early": [0, "lobby"]}


def test_a_finish_is_told_once_and_not_in_a_lobby_nor_on_arrival() -> None:
    got = watch_case("""
        const s = m.reduce(m.initial(RACE), WATCH);
        const won = m.reduce(s, {t: "race_progress", race: RACE, racer: {...BOARD, status: "won",
            score: 300}});
        const again = m.reduce(won, {t: "race_progress", race: RACE, racer: {...BOARD, status: "won",
            score: 300}});
        const late = m.reduce(m.initial(RACE), {...WATCH, boards: [{...BOARD, status: "won"}]});
        return {won: m.finishedBetween(s, won).map((r) => [r.seat, r.status, r.score]),
                again: m.finishedBetween(won, again).length, late: m.finishedBetween(m.initial(RACE),
                    late).length};
    """)
    assert got == {"won": [[1, "won", 300]], "again": 0, "late": 0}


def test_watch_errors_open_a_single_game_or_the_racers_own_race() -> None:
    got = watch_case("""
        const s = m.initial(RACE + "-1");
        const game = m.reduce(s, {t: "error", ref: "watch", code: "race_not_found"});
        const own = m.reduce(s, {t: "error", ref: "watch", code: "own_race", params: {race: RACE}});
        const other = m.reduce(s, {t: "error", ref: "open", code: "race_not_found"});
        const gone = m.reduce(game, {t: "view/game_missing"});
        const shown = m.reduce(game, {t: "view/game", progress: {seat: 1, name: "GO1-E-AAAAAAB",
            status: "won", score: 5,
            removed: 35}, state: {columns: [], discard: "AS", stock_count: 0, score: 5, moves: 40,
                status: "won", v: 40},
            diff: null});
        return {game: [game.mode, game.games], own: own.own, other: other === s, gone: gone.mode,
                seat: [shown.seats[0].seat, shown.seats[0].board.v]};
    """)
    assert got == {"game": ["game", 1], "own": RACE, "other": True, "gone": "missing", "seat": [1, 40]}


# two seats' records: seat 1 draws then taps, seat 2 only draws (steps as /api/games gives them)
RECORDS = [
    [
        1,
        {
            "game": f"{RACE}-1",
            "deal": {"columns": [["AS", "2H"], ["3C"]], "discard": "KD", "stock": ["4D", "5S"]},
            "steps": [
                {
                    "a": "draw",
                    "drawn": "4D",
                    "discard": "4D",
                    "stock_count": 1,
                    "score": 0,
                    "moves": 1,
                    "status": "playing",
                },
                {
                    "a": "tap",
                    "removed": {"col": 2, "card": "3C"},
                    "discard": "3C",
                    "stock_count": 1,
                    "score": 0,
                    "moves": 2,
                    "status": "playing",
                },
            ],
        },
    ],
    [
        2,
        {
            "game": f"{RACE}-2",
            "deal": {"columns": [["AS", "2H"], ["3C"]], "discard": "KD", "stock": ["4D", "5S"]},
            "steps": [
                {
                    "a": "draw",
                    "drawn": "4D",
                    "discard": "4D",
                    "stock_count": 1,
                    "score": 0,
                    "moves": 1,
                    "status": "playing",
                }
            ],
        },
    ],
    [3, None],
]


def test_the_replay_moves_every_seat_together_and_stops_at_the_end() -> None:
    got = watch_case(f"""
        const at = (s) => [s.replay.pos, s.replay.playing, s.replay.runs.map((r) => [r.seat,
            r.state.moves, r.change])];
        let s = m.reduce(m.initial(RACE), {{t: "replay/loaded", records: {json.dumps(RECORDS)}}});
        const out = [at(s), s.replay.total];
        s = m.reduce(s, {{t: "replay/tick"}}); out.push(at(s));
        const one = s.replay.runs[0].state;
        s = m.reduce(s, {{t: "replay/tick"}}); out.push(at(s));
        out.push(s.replay.runs[0].state.columns);
        s = m.reduce(s, {{t: "replay/tick"}}); out.push(at(s));
        s = m.reduce(s, {{t: "replay/seek", n: 1, animate: false}}); out.push(at(s));
        out.push(JSON.stringify(s.replay.runs[0].state) === JSON.stringify(one));
        s = m.reduce(s, {{t: "replay/play"}}); out.push(at(s));
        s = m.reduce(s, {{t: "replay/pause"}}); out.push(at(s));
        s = m.reduce(s, {{t: "replay/seek", n: 99, animate: false}});
        s = m.reduce(s, {{t: "replay/play"}}); out.push(at(s));
        out.push(m.reduce(s, {{t: "replay/speed", speed: 4}}).speed, m.reduce(s, {{t: "replay/speed",
            speed: NaN}}).speed);
        return out;
    """)
    assert got == [
        [
            0,
            True,
            [[1, 0, "snapshot"], [2, 0, "snapshot"]],
        ],  # loaded: at the deal, playing; a seat without record left out
        2,
        [1, True, [[1, 1, "draw"], [2, 1, "draw"]]],  # one step: played as a move on every seat
        [
            2,
            False,
            [[1, 2, "tap"], [2, 1, "snapshot"]],
        ],  # the end: it stops; a shorter seat stays at its last
        [["AS", "2H"], []],
        [2, False, [[1, 2, "tap"], [2, 1, "snapshot"]]],  # a tick at the end changes nothing
        [
            1,
            False,
            [[1, 1, "snapshot"], [2, 1, "snapshot"]],
        ],  # back: replayed from the deal, shown as a snapshot
        True,  # the same board as when it was reached move by move
        [1, True, [[1, 1, "snapshot"], [2, 1, "snapshot"]]],
        [1, False, [[1, 1, "snapshot"], [2, 1, "snapshot"]]],
        [0, True, [[1, 0, "snapshot"], [2, 0, "snapshot"]]],  # play at the end starts again from the deal
        4,
        1,
    ]


def test_the_replay_games_are_the_results_seats() -> None:
    got = watch_case("""
        return [m.replayGames({results: [{seat: 2, game: RACE + "-2"}, {seat: 1, game: null}]}),
                m.replayGames({racers: [{seat: 1, game: RACE + "-1"}]})];
    """)
    assert got == [[[2, f"{RACE}-2"]], [[1, f"{RACE}-1"]]]


# --- the live list ----------------------------------------------------------------------------------------


def test_the_live_list_shows_only_the_latest_answer() -> None:
    got = run(
        "live_state",
        """(m) => {
        const races = [{race: "r1", phase: "running", watchers: 0, racers: []}];
        let s = m.reduce(m.initial(), {t: "live/load"});
        s = m.reduce(s, {t: "live/load"});
        const stale = m.reduce(s, {t: "live/answer", n: 1, data: {races}});
        const fresh = m.reduce(s, {t: "live/answer", n: 2, data: {races}});
        const down = m.reduce(m.reduce(fresh, {t: "live/load"}), {t: "live/answer", n: 3, data: null});
        const left = m.reduce(m.reduce(down, {t: "live/load"}), {t: "live/stop"});
        return {stale: stale === s, fresh: [fresh.loaded, fresh.failed, fresh.races.length],
                down: [down.loaded, down.failed, down.races.length],
                left: m.reduce(left, {t: "live/answer", n: 4, data: {races: []}}) === left};
    }""",
    )
    assert got == {
        "stale": True,  # an older load's answer is dropped
        "fresh": [2, False, 1],
        "down": [3, True, 1],  # no answer: the list stays, with the offline line
        "left": True,  # the page was left: the answer on its way is not shown
    }


def test_results_marks_come_from_the_records_and_the_days_status() -> None:
    got = race_case("""
        const results = [{rank: 1, seat: 1, game: RACE + "-1", status: "won", score: 300},
            {rank: 2, seat: 2, game: RACE + "-2", status: "resigned", score: -70, scored_as_stuck: true}];
        const running = m.reduce(m.initial(RACE), {...LOBBY, phase: "running", ranked: true});
        const done = m.reduce(running, {...LOBBY, phase: "finished", ranked: true, results});
        const again = m.reduce(done, {...LOBBY, phase: "finished", ranked: true, results, par: 250});
        const typed = m.reduce(running, {...LOBBY, phase: "finished", ranked: false, results});
        const reviewed = m.reduce(done, {t: "view/review", race: RACE, seat: 2, review: "too_fast"});
        const stranger = m.reduce(done, {t: "view/review", race: "rzzzzzzzzzzz", seat: 2,
            review: "too_fast"});
        const daily = m.reduce(m.initial(RACE), {...LOBBY, phase: "finished", ranked: true,
            daily: "2026-11-30",
            results: [results[0]]});
        const late = m.reduce(daily, {t: "daily", date: "2026-11-30",
            result: {game: RACE + "-1", review: null, late: true}});
        const otherDay = m.reduce(daily, {t: "daily", date: "2026-12-01", result: {game: RACE + "-1",
            late: true}});
        const otherGame = m.reduce(daily, {t: "daily", date: "2026-11-30", result: {game: "rq-1",
            late: true}});
        const none = m.reduce(daily, {t: "daily", date: "2026-11-30", result: null});
        return {rows: m.toReview(running.race, done.race), repeat: m.toReview(done.race, again.race),
                typed: m.toReview(running.race, typed.race), arrival: m.toReview(null, done.race).length,
                reviewed: reviewed.marks, stranger: stranger === done, late: late.marks,
                ignored: [otherDay === daily, otherGame === daily, none === daily]};
    """)
    assert got == {
        "rows": [[1, f"{RACE}-1"], [2, f"{RACE}-2"]],  # a ranked race's end: every result's record is read
        "repeat": [],  # once (a later repeat of the finished race, par known, reads nothing again)
        "typed": [],  # an unranked race is never reviewed
        "arrival": 2,  # a page that comes after the end reads them too
        "reviewed": {"2": {"review": "too_fast"}},
        "stranger": True,
        "late": {"1": {"review": None, "late": True}},  # the day's status, matched to its game's row
        "ignored": [True, True, True],
    }


def test_a_watchers_results_marks_are_the_records_its_replay_loads() -> None:
    records = [
        [1, {**RECORDS[0][1], "review": "too_fast"}],
        [2, {**RECORDS[1][1], "review": None}],
        [3, None],
    ]
    got = watch_case(f"""
        const s = m.reduce(m.initial(RACE), {{...WATCH, phase: "finished"}});
        return [s.marks, m.reduce(s, {{t: "replay/loaded", records: {json.dumps(records)}}}).marks];
    """)
    assert got == [{}, {"1": {"review": "too_fast"}, "2": {"review": None}}]
