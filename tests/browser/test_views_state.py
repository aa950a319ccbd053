"""The web client's views are state + reduce(message) + render (issue 10.11): the pure state modules of the
Play, Daily, Leaderboards, Stats and Account views (client_web/src/views/*_state.js), run by Node. Each test
feeds a view's reducer a list of messages, as the server and the page send them, and checks the state after
each one; every state is frozen before the next message, so a reducer that changed its input would throw.
Needs only `node`."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from .conftest import REPO
from .node import node_json

# Feed the messages from stdin to `reduce`, starting from `initial()`; print each state and whether the
# message left the state as it was (the very same object: nothing to paint).
SCRIPT = """
const freeze = (v) => {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) freeze(x);
  }
  return v;
};
import(process.argv[1]).then((m) => {
  const msgs = JSON.parse(require("fs").readFileSync(0, "utf8"));
  let state = freeze(m.initial());
  const out = [];
  for (const msg of msgs) {
    const next = m.reduce(state, msg);
    out.push({ state: next, same: next === state });
    state = freeze(next);
  }
  process.stdout.write(JSON.stringify({ initial: m.initial(), steps: out }));
});
"""


def feed(module: str, messages: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The initial state and, per message, {state, same} from `client_web/src/views/<module>.js`."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    out = subprocess.run(
        [node, "-e", SCRIPT, f"./src/views/{module}.js"],
        input=json.dumps(messages),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO / "client_web",
        timeout=30,
    )
    answer = json.loads(out.stdout)
    return answer["initial"], answer["steps"]


def game(v: int, status: str = "playing", moves: int = 0, undos: int = 0, gid: str = "g1") -> dict[str, Any]:
    """A shown game as GameSession gives it (gamestate.js fromSnapshot)."""
    return {
        "game": gid,
        "v": v,
        "role": "player",
        "code": "GO1-E-AAAAAAB",
        "rules": "easy",
        "variants": {},
        "columns": [["2C"], [], [], [], [], [], []],
        "discard": "3D",
        "stock_count": 10,
        "score": 100,
        "moves": moves,
        "undos": undos,
        "status": status,
        "can_undo": moves - undos > 0,
    }


def shown(state: dict[str, Any], change: str = "snapshot") -> dict[str, Any]:
    diff = (
        None if change == "snapshot" else {"t": "diff", "game": state["game"], "v": state["v"], "a": change}
    )
    return {"t": "shown", "state": state, "change": change, "diff": diff}


# --- Play --------------------------------------------------------------------------------------------------


def test_play_opens_an_end_dialog_once_per_position_and_closes_it_on_undo() -> None:
    start, steps = feed(
        "play_state",
        [
            shown(game(4, moves=3)),
            shown(game(5, "stuck", moves=4), "tap"),
            shown(game(5, "stuck", moves=4)),  # a reconnect's snapshot of the same position
            shown(game(6, moves=4, undos=1), "undo"),
            shown(game(7, "stuck", moves=5, undos=1), "tap"),
            shown(game(1, "won", moves=35, gid="g2")),  # another game, won
            {"t": "pong"},  # not the Play view's
        ],
    )
    assert start["game"] is None and start["end"] is None
    first, stuck, again, undone, stuck_later, won, other = steps
    assert first["state"]["game"]["v"] == 4 and first["state"]["end"] is None
    assert stuck["state"]["end"] == {"kind": "stuck", "at": "g1@5"}
    assert stuck["state"]["change"] == "tap" and stuck["state"]["diff"]["v"] == 5
    assert again["state"]["end"] == stuck["state"]["end"]  # kept open, not opened a second time
    assert again["state"]["change"] == "snapshot" and again["state"]["diff"] is None
    assert undone["state"]["end"] == {"kind": None, "at": "g1@5"}  # the dialog closes
    assert stuck_later["state"]["end"] == {"kind": "stuck", "at": "g1@7"}
    assert won["state"]["end"] == {"kind": "won", "at": "g2@1"}
    assert other["same"]


def test_play_hints_are_asked_once_and_pointed_only_at_their_position() -> None:
    _, steps = feed(
        "play_state",
        [
            {"t": "hint_asked"},  # no game yet: nothing to ask
            shown(game(1)),
            {"t": "hint_asked"},
            {"t": "hint_asked"},  # one at a time
            {"t": "hint", "game": "g1", "v": 1, "move": {"a": "tap", "col": 3}, "winnable": False},
            {"t": "hint_asked"},
            shown(game(2, moves=1), "draw"),
            {
                "t": "hint",
                "game": "g1",
                "v": 1,
                "move": {"a": "draw"},
                "winnable": True,
            },  # the board moved on
            {"t": "hint_asked"},
            {"t": "ready"},  # the answer was lost with the connection: it can be asked again
            {"t": "hint_asked"},
            {"t": "error", "ref": "hint", "code": "unavailable"},
            shown(game(3, "stuck", moves=2), "tap"),
            {"t": "hint_asked"},  # a stuck game has no hint: said at once, nothing sent
        ],
    )
    states = [s["state"] for s in steps]
    assert steps[0]["same"] and states[0]["hint"] is None
    assert states[2]["hint"] == {"game": "g1", "v": 1}
    assert steps[3]["same"]
    assert states[4]["hint"] is None
    assert states[4]["pointed"] == {"move": {"a": "tap", "col": 3}, "n": 1}
    # nothing was played yet: the deal itself cannot be won
    assert states[4]["notice"] == {"kind": "info", "key": "ui.hint_unwinnable", "n": 1}
    assert states[7]["hint"] is None and states[7]["pointed"] == states[4]["pointed"]  # not pointed
    assert states[8]["hint"] == {"game": "g1", "v": 2}
    assert states[9]["hint"] is None
    assert states[11]["hint"] is None
    assert states[11]["notice"] == {"kind": "error", "code": "unavailable", "n": 2}  # no params: none sent
    assert states[13]["hint"] is None and states[13]["notice"]["key"] == "ui.hint_none"


def test_play_a_lost_hint_says_so_after_the_first_move() -> None:
    _, steps = feed(
        "play_state",
        [
            shown(game(5, moves=4, undos=1)),
            {"t": "hint_asked"},
            {"t": "hint", "game": "g1", "v": 5, "move": {"a": "draw"}, "winnable": False},
        ],
    )
    assert steps[-1]["state"]["notice"]["key"] == "ui.hint_lost"


def test_play_race_a_friend_goes_to_the_answer_of_its_own_request() -> None:
    _, steps = feed(
        "play_state",
        [
            {"t": "race", "race": "rzzzzzzzzzzz", "rid": "p1", "you": {"seat": 1}},  # nothing asked
            {"t": "race_asked", "rid": "p1"},
            {"t": "race", "race": "rother000000", "rid": "x9", "you": {"seat": 1}},  # another request's
            {"t": "race", "race": "rabcdefghijk", "rid": "p1", "you": {"seat": 1}},
            {"t": "race_asked", "rid": "p2"},
            {"t": "error", "ref": "race_new", "code": "rate_limited"},
            {"t": "race", "race": "rlate0000000", "rid": "p2", "you": {"seat": 1}},
        ],
    )
    assert steps[0]["same"] and steps[2]["same"]
    assert steps[3]["state"]["raceJoined"] == "rabcdefghijk" and steps[3]["state"]["raceAsked"] is None
    refused = steps[5]["state"]
    assert refused["raceAsked"] is None and refused["notice"]["code"] == "rate_limited"
    assert steps[6]["same"]  # its request failed: a late answer goes nowhere
    assert steps[4]["state"]["raceJoined"] is None and steps[6]["state"]["raceJoined"] is None


def test_play_errors_refusals_and_a_game_that_is_gone() -> None:
    _, steps = feed(
        "play_state",
        [
            {"t": "error", "ref": "open", "code": "unknown_game"},  # the last game expired: deal a new one
            {"t": "error", "ref": "new", "code": "bad_code"},  # shown under the new-game field, not toasted
            shown(game(1)),
            {"t": "error", "ref": "resync", "code": "unknown_game"},  # with a game shown: said, no new deal
            {"t": "refused", "game": "g1", "seq": 3, "code": "not_adjacent", "params": {}},
            {"t": "refused", "game": "g1", "seq": 4, "code": "not_adjacent", "params": {}},
        ],
    )
    states = [s["state"] for s in steps]
    assert states[0]["deals"] == 1 and states[0]["notice"] is None
    assert states[1]["notice"] is None
    assert states[3]["deals"] == 1 and states[3]["notice"]["code"] == "unknown_game"
    assert states[4]["refusal"] == {"code": "not_adjacent", "params": {}, "n": 1}
    assert states[5]["refusal"]["n"] == 2  # the same refusal twice is shown twice


# --- Daily -------------------------------------------------------------------------------------------------

STATUS = {"t": "daily", "date": "2026-12-01", "next_at": 1, "played": False, "result": None, "streak": 0}


def test_daily_goes_to_its_attempt_only_after_play_was_asked() -> None:
    start, steps = feed(
        "daily_state",
        [
            STATUS,
            {"t": "race", "race": "rdaily000000", "daily": "2026-12-01"},  # watched elsewhere: not ours
            {"t": "play_asked"},
            {"t": "race", "race": "rcasual00000", "daily": None},
            {"t": "race", "race": "rdaily111111", "daily": "2026-12-01"},
            {"t": "race", "race": "rdaily222222", "daily": "2026-12-01"},  # its later updates: stay
            {"t": "play_asked"},  # back on the Daily tab, Continue: the same attempt, resumed
            {"t": "race", "race": "rdaily111111", "daily": "2026-12-01"},
        ],
    )
    assert start["daily"] is None
    assert steps[0]["state"]["daily"]["date"] == "2026-12-01"
    assert steps[1]["same"] and steps[3]["same"]
    assert steps[2]["state"]["waiting"]
    assert steps[4]["state"]["joined"] == "rdaily111111" and not steps[4]["state"]["waiting"]
    assert steps[5]["same"]
    assert steps[6]["state"]["joined"] is None  # so that the resumed attempt is gone to again
    assert steps[7]["state"]["joined"] == "rdaily111111"


def test_daily_errors_and_reconnects() -> None:
    _, steps = feed(
        "daily_state",
        [
            {"t": "error", "ref": "race_new", "code": "rate_limited"},  # another view's
            {"t": "error", "ref": "daily_play", "code": "daily_tries", "params": {"n": 3}},
            {"t": "ready"},
            {"t": "ready"},
        ],
    )
    assert steps[0]["same"]
    assert steps[1]["state"]["notice"] == {"code": "daily_tries", "params": {"n": 3}, "n": 1}
    assert [s["state"]["connections"] for s in steps[2:]] == [1, 2]  # each one: ask for the status again


def test_daily_starts_afresh_on_each_visit_but_counts_its_handshakes_on() -> None:
    """`reset` (the view mounted again): the last visit's status, attempt and notice are stale; the handshakes
    seen stay counted, so that the reset itself asks for no status (the mount does, once)."""
    _, steps = feed(
        "daily_state",
        [
            {"t": "ready"},
            STATUS,
            {"t": "play_asked"},
            {"t": "error", "ref": "daily_play", "code": "rate_limited"},
            {"t": "reset"},
            {"t": "ready"},
        ],
    )
    fresh = {"daily": None, "waiting": False, "joined": None, "connections": 1, "notice": None}
    assert steps[4]["state"] == fresh
    assert steps[5]["state"]["connections"] == 2


def test_daily_play_button_label() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    cases = [
        None,
        {"played": False},
        {"played": True, "result": None},
        {"played": True, "result": {"score": 1}},
    ]
    script = (
        "import('./src/views/daily_state.js').then(m => {"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(c => m.playLabel(c))));})"
    )
    out = node_json(script, cases, timeout=30)
    assert out == [
        "ui.daily_play",
        "ui.daily_play",
        "ui.daily_continue",
        "ui.daily_practice",
    ]


# --- Leaderboards ------------------------------------------------------------------------------------------


def entry(player: str, score: int) -> dict[str, Any]:
    return {"player": player, "score": score, "elapsed": 60_000, "moves": 40, "finished_at": 1}


def test_leaderboards_load_a_page_follow_its_board_and_refresh_when_the_top_moves() -> None:
    page = {"board": "daily:2026-12-01", "total": 1, "entries": [entry("p1", 200)], "you": None}
    moved = {"board": "daily:2026-12-01", "total": 2, "entries": [entry("p2", 250), entry("p1", 200)]}
    _, steps = feed(
        "leaderboards_state",
        [
            {"t": "load", "kind": "daily", "key": "", "now": 1_796_083_200_000},  # 2026-12-01, no key: today
            {"t": "page", "n": 1, "data": page},
            {"t": "board", "board": page["board"], "total": 1, "entries": page["entries"]},  # the same top
            {"t": "board", "board": "code:GO1-E-AAAAAAB", "total": 9, "entries": []},  # not followed
            {"t": "board", **moved},
            {"t": "refreshed", "n": 1, "r": 0, "data": {**page, **moved}},  # an older refresh's answer
            {"t": "refreshed", "n": 1, "r": 1, "data": {**page, **moved}},
            {"t": "ready"},
            {"t": "leave"},
            {"t": "page", "n": 1, "data": page},  # after leaving: dropped
        ],
    )
    states = [s["state"] for s in steps]
    assert states[0]["path"] == "daily/2026-12-01" and states[0]["loads"] == 1
    assert states[1]["shown"] == page and states[1]["watched"] == "daily:2026-12-01"
    assert steps[2]["same"] and steps[3]["same"]
    assert states[4]["refreshes"] == 1 and states[4]["shown"] == page
    assert steps[5]["same"]
    assert states[6]["shown"]["total"] == 2 and states[6]["watched"] == "daily:2026-12-01"
    assert states[7]["connections"] == 1  # a new connection: the view watches the board again
    assert states[8]["watched"] is None and states[8]["path"] is None and states[8]["loads"] == 2
    assert steps[9]["same"]


def test_leaderboards_errors_show_alone() -> None:
    page = {"board": "code:GO1-E-AAAAAAB", "total": 0, "entries": [], "you": None}
    _, steps = feed(
        "leaderboards_state",
        [
            {"t": "load", "kind": "code", "key": "GO1-X-AAAAAAB"},  # checked here, never fetched
            {"t": "load", "kind": "code", "key": " go1-e-aaaaaab "},
            {"t": "page", "n": 2, "data": page},
            {"t": "load", "kind": "daily", "key": "2100-01-01"},
            {"t": "page", "n": 2, "data": page},  # the previous load's late answer
            {"t": "page", "n": 3, "error": "That date is not valid."},
        ],
    )
    states = [s["state"] for s in steps]
    assert states[0]["error"] == {"key": "ui.code_errors.rules"} and states[0]["path"] is None
    assert states[1]["error"] is None and states[1]["path"] == "code/GO1-E-AAAAAAB"
    assert states[2]["watched"] == "code:GO1-E-AAAAAAB"
    assert states[3]["path"] == "daily/2100-01-01" and states[3]["watched"] == "code:GO1-E-AAAAAAB"
    assert steps[4]["same"]
    assert states[5]["error"] == {"text": "That date is not valid."}
    assert states[5]["shown"] is None and states[5]["watched"] is None  # no table, no board followed


# --- Stats and Account -------------------------------------------------------------------------------------


def test_stats_keep_the_last_answer_and_drop_older_ones() -> None:
    body = {"played": 3, "won": 1}
    _, steps = feed(
        "stats_state",
        [
            {"t": "asked"},
            {"t": "ready"},  # asked again (the token may be new)
            {"t": "loaded", "n": 1, "body": {"played": 0}},  # the first load's answer: too old
            {"t": "loaded", "n": 2, "body": body},
            {"t": "asked"},
            {"t": "loaded", "n": 3, "body": None},  # offline: the error line, the last stats stay
            {"t": "leave"},
            {"t": "loaded", "n": 3, "body": body},
        ],
    )
    states = [s["state"] for s in steps]
    assert states[1]["loads"] == 2 and steps[2]["same"]
    assert states[3] == {"data": body, "failed": False, "loads": 2, "left": False, "loaded": 2}
    assert states[5] == {"data": body, "failed": True, "loads": 3, "left": False, "loaded": 3}
    assert states[6]["left"] and steps[7]["same"]


def test_account_shows_the_profile_of_the_account_signed_in() -> None:
    profile = {"account": {"player": "P1", "display": "Dana"}}
    _, steps = feed(
        "account_state",
        [
            {"t": "show", "account": None},
            {"t": "show", "account": {"player": "P1"}},
            {"t": "loaded", "n": 1, "profile": {"stale": True}, "sessions": []},  # the signed-out load's
            {"t": "loaded", "n": 2, "profile": profile, "sessions": [{"id": "s1"}]},
            {"t": "sessions", "sessions": []},
            {"t": "error", "error": {"code": "bad_password"}},
            {"t": "show", "account": {"player": "P1"}},  # saved: loaded again
            {"t": "failed", "n": 3, "error": {"code": "not_signed_in"}},
            {"t": "leave"},
            {"t": "failed", "n": 3, "error": {"code": "unavailable"}},
        ],
    )
    states = [s["state"] for s in steps]
    assert states[0]["player"] is None and states[0]["shows"] == 1
    assert states[1]["player"] == "P1" and states[1]["loads"] == 2 and states[1]["profile"] is None
    assert steps[2]["same"]
    assert states[3]["profile"] == profile and states[3]["sessions"] == [{"id": "s1"}]
    assert states[4]["sessions"] == []
    assert states[5]["error"] == {"code": "bad_password"}
    assert states[6]["profile"] is None and states[6]["shows"] == 3
    assert states[7]["expired"]  # the view signs out
    assert steps[9]["same"]


def test_leaderboards_read_the_course_boards_a_page_at_a_time() -> None:
    """A course's board (by course code, the weekend's daily course by day) is fetched, never followed: the
    server sends no live changes of it."""
    page = {"board": "course:GC1-E-AAAAAAB", "total": 1, "entries": [], "you": None}
    _, steps = feed(
        "leaderboards_state",
        [
            {"t": "load", "kind": "course", "key": "GO1-E-AAAAAAB"},  # a game code is not a course code
            {"t": "load", "kind": "course", "key": "GC1-X-AAAAAAB"},
            {"t": "load", "kind": "course", "key": " gc1-e-aaaaaab "},
            {"t": "page", "n": 3, "data": page},
            {"t": "load", "kind": "course-day", "key": "", "now": 1_798_848_000_000},  # 2027-01-02
        ],
    )
    states = [s["state"] for s in steps]
    assert states[0]["error"] == {"key": "ui.course.code_help"} and states[0]["path"] is None
    assert states[1]["error"] == {"key": "ui.code_errors.rules"}
    assert states[2]["path"] == "course/GC1-E-AAAAAAB" and states[2]["error"] is None
    assert states[3]["shown"] == page and states[3]["watched"] is None
    assert states[4]["path"] == "course-day/2027-01-02"


def test_course_view_plays_the_daily_course_the_server_deals() -> None:
    """The daily course: the server's card and the hole's game (its code never known here); a hole is shown
    by its game id; the page's own "next" records nothing (the server does)."""
    msgs: list[dict[str, Any]] = [
        {"t": "daily", "day": "2027-01-02", "holes": [], "game": "d1"},
        {"t": "daily", "day": "2027-01-02", "holes": [], "game": "d1"},  # asked again: the same
        {"t": "shown", "state": course_game("", "playing", 35, "other")},  # not the dealt game
        {"t": "shown", "state": {**course_game("", "stuck", 6, "d1", 30), "code": None}},
        {"t": "next"},  # the server records it, not the page
        {"t": "daily", "day": "2027-01-02", "holes": [6], "game": "d2"},
        {"t": "daily", "day": "2027-01-02", "holes": [6, 5, 4, 3, 2, 1, 0, 7, 8], "game": None},
    ]
    _initial, steps = feed("course_state", msgs)
    states = [s["state"] for s in steps]
    assert states[0]["card"] == {"code": "", "holes": [], "game": "d1", "daily": "2027-01-02"}
    assert states[0]["deals"] == 1
    assert steps[1]["same"] and steps[2]["same"]
    assert states[3]["game"]["game"] == "d1"
    assert steps[4]["same"]
    assert states[5]["card"]["holes"] == [6] and states[5]["deals"] == 2 and states[5]["game"] is None
    assert states[6]["card"]["game"] is None and states[6]["deals"] == 2


def course_game(code: str, status: str, left: int, gid: str, v: int = 0) -> dict[str, Any]:
    """A shown hole with ``left`` cards on the tableau (spread over the columns)."""
    columns = [["KS"] * (left // 7 + (1 if c < left % 7 else 0)) for c in range(7)]
    return {"game": gid, "v": v, "code": code, "status": status, "columns": columns}


def test_course_view_records_each_hole_once_over() -> None:
    from golfrace.engine.course import CourseCode

    holes = [str(h) for h in CourseCode.parse("GC1-E-AAAAAAB").holes]
    msgs: list[dict[str, Any]] = [
        {"t": "next"},  # no course yet: nothing
        {"t": "begin", "code": "GC1-E-AAAAAAB"},
        {"t": "shown", "state": course_game(holes[1], "playing", 35, "x")},  # not this hole's game
        {"t": "shown", "state": course_game(holes[0], "playing", 35, "h1")},
        {"t": "next"},  # still playing: nothing
        {"t": "shown", "state": course_game(holes[0], "stuck", 4, "h1", 40)},
        {"t": "next"},
        {"t": "next"},  # the next hole is not shown yet: nothing
        {"t": "shown", "state": course_game(holes[1], "won", 0, "h2", 30)},
        {"t": "next"},
    ]
    for n in range(2, 9):
        msgs += [{"t": "shown", "state": course_game(holes[n], "stuck", n, f"h{n + 1}", 9)}, {"t": "next"}]
    msgs += [
        {"t": "shown", "state": course_game(holes[0], "playing", 35, "late")},  # after the ninth: nothing
        {"t": "reset"},
    ]
    initial, steps = feed("course_state", msgs)
    assert initial == {"card": None, "game": None, "deals": 0}
    assert [s["same"] for s in steps[:5]] == [True, False, True, False, True]
    assert steps[1]["state"]["deals"] == 1 and steps[1]["state"]["card"]["holes"] == []
    assert steps[3]["state"]["card"]["game"] == "h1"
    after_first = steps[6]["state"]
    assert after_first["card"] == {"code": "GC1-E-AAAAAAB", "holes": [4], "game": None}
    assert after_first["deals"] == 2 and after_first["game"] is None
    assert steps[7]["same"]
    assert steps[9]["state"]["card"]["holes"] == [4, 0]
    done = steps[-3]["state"]
    assert done["card"]["holes"] == [4, 0, 2, 3, 4, 5, 6, 7, 8]
    assert done["deals"] == 9  # the ninth hole's end deals nothing more
    assert steps[-2]["same"]
    assert steps[-1]["state"]["card"] is None


def test_course_view_loads_a_card_afresh_and_keeps_counting_deals() -> None:
    """`load` (the route changed between the open course and the daily one): the card given (the stored one,
    or none), no game, and the deals counted on, so that loading deals nothing."""
    card = {"code": "GC1-E-AAAAAAB", "holes": [4, 0], "game": "h3"}
    msgs: list[dict[str, Any]] = [
        {"t": "daily", "day": "2027-01-02", "holes": [], "game": "d1"},
        {"t": "load", "card": None},
        {"t": "load", "card": card},
    ]
    _initial, steps = feed("course_state", msgs)
    assert steps[1]["state"] == {"card": None, "game": None, "deals": 1}
    assert steps[2]["state"] == {"card": card, "game": None, "deals": 1}
