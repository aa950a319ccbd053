"""A hole's result from a stored game (``course/holes.py``) and a course's board key
(``races.ranking.course_key``): pure, table-driven."""

from __future__ import annotations

import pytest

from golfrace.course.errors import COURSE_ERROR_CODES, CourseRefusal
from golfrace.course.holes import Hole, hole_result
from golfrace.engine import Game, GameCode
from golfrace.engine.course import CourseCode
from golfrace.races.ranking import composite, course_key
from golfrace.store.stored_game import new_stored
from golfrace.wire.errors import ErrorCode

from .helpers import end_of, line

COURSE = CourseCode.parse("GC1-E-AAAAAAB")
ONE, TWO = COURSE.hole(1), COURSE.hole(2)


def stored_after(code: GameCode, moves: int | None = None, owner: str = "p1", meta: dict | None = None):  # type: ignore[no-untyped-def]
    stored, _fields = new_stored("g1", owner, code, False, meta or {}, False, 1_000)
    game = Game.new(code)
    for action in line(code)[:moves]:
        game = game.apply(action)
        stored = stored.moved(game)
    return stored


def test_a_finished_hole_reads_its_strokes_time_and_moves_from_the_stored_game() -> None:
    stored = stored_after(ONE)
    end = end_of(ONE)
    n = len(line(ONE))
    log = [f"x {2_000 + 1_000 * i}" for i in range(n - 1)] + [f"x {2_000 + 1_000 * n}"]
    hole = hole_result(stored, "g1", "p1", ONE, log, hinted=False)
    assert hole == Hole("g1", 35 - end.removed, 1_000 + 1_000 * n, end.moves, False, None)
    assert Hole.from_json(hole.to_json()) == hole


@pytest.mark.parametrize(
    ("gap_ms", "first_ms", "review"),
    [(1_000, 1_000, None), (10, 1_000, "too_fast"), (1_000, 50, "too_fast"), (100, 1_000, "too_fast")],
)
def test_a_hole_faster_than_a_human_is_marked_for_review(
    gap_ms: int, first_ms: int, review: str | None
) -> None:
    """The ranked boards' timing check on a hole's own stamps (median, first move, mean, bursts)."""
    stored = stored_after(ONE)
    log = [f"x {1_000 + first_ms + gap_ms * i}" for i in range(len(line(ONE)))]
    hole = hole_result(stored, "g1", "p1", ONE, log, hinted=False)
    assert hole.review == review
    assert Hole.from_json(hole.to_json()) == hole


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("missing", "game_not_found"),
        ("race seat", "game_not_found"),
        ("another's", "not_player"),
        ("another deal", "wrong_hole"),
        ("playing", "hole_not_over"),
    ],
)
def test_a_hole_that_is_not_one_is_refused_with_its_code(case: str, code: str) -> None:
    stored = {
        "missing": None,
        "race seat": stored_after(ONE, meta={"race": "r1"}),
        "another's": stored_after(ONE, owner="p2"),
        "another deal": stored_after(TWO),
        "playing": stored_after(ONE, moves=2),
    }[case]
    with pytest.raises(CourseRefusal) as refusal:
        hole_result(stored, "g1", "p1", ONE, [], hinted=False)
    assert refusal.value.code == code


def test_every_course_code_is_one_of_the_wire_s() -> None:
    assert set(COURSE_ERROR_CODES) <= {c.value for c in ErrorCode}


def test_fewer_strokes_first_then_the_one_rule_s_ties() -> None:
    assert course_key(40, 900_000, 400) < course_key(41, 1_000, 10)
    assert course_key(40, 1_000, 10) < course_key(40, 2_000, 10)  # then the time
    assert course_key(40, 1_000, 10) < course_key(40, 1_000, 11)  # then the moves
    assert course_key(40, 1_000, 10) < course_key(40, 0, 0)  # a course of no move after a played one
    assert course_key(45, 5, 6) == composite(350 - 45, 5, 6)
    with pytest.raises(ValueError):
        course_key(-1, 0, 0)
