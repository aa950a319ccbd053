"""The course race's pure state machine (``golfrace.course.racing``): the lobby, holes in order, the standing
by strokes then time, a resignation's full tableaux, and what each reader is shown."""

from __future__ import annotations

import pytest

from golfrace.course.errors import CourseRefusal
from golfrace.course.holes import Hole
from golfrace.course.racing import CourseRace, Phase
from golfrace.engine.course import HOLES, random_course


def hole(game: str, strokes: int) -> Hole:
    return Hole(game, strokes, 1000, 40)


def refused(code: str, call: object) -> None:
    with pytest.raises(CourseRefusal) as caught:
        call()  # type: ignore[operator]
    assert caught.value.code == code


def play(race: CourseRace, player: str, strokes: list[int], t0: int, step: int) -> CourseRace:
    for n, s in enumerate(strokes, start=1):
        game = f"{player}{n}"
        race = race.dealt(player, n, game, t0 + n * step)
        race = race.recorded(player, n, hole(game, s), t0 + n * step + step // 2)
    return race


def test_a_race_from_the_lobby_to_the_results() -> None:
    course = random_course(long=True)
    race = CourseRace.create("c1", course, "ann", "Ann", 0, seats=2).join("bob", "Bob")
    refused("race_full", lambda: race.join("cy", "Cy"))
    refused("not_host", lambda: race.start("bob", 5))
    refused("race_not_started", lambda: race.dealt("ann", 1, "g", 5))
    race = race.start("ann", 10)
    refused("race_started", lambda: race.join("cy", "Cy"))
    refused("hole_out_of_order", lambda: race.dealt("ann", 2, "g", 20))
    ann = [4, 5, 6, 3, 2, 7, 5, 5, 4]  # 41
    bob = [5, 5, 5, 5, 5, 5, 5, 5, 1]  # 41 too, and slower
    race = play(race, "ann", ann, 100, 1000)
    assert race.phase() is Phase.RUNNING
    refused("race_over", lambda: race.resign("ann", 20_000, None))
    watcher = race.view(None, 20_000)
    assert watcher["code"] is None and watcher["hole_codes"] is None and watcher["game"] is None
    assert [r["seat"] for r in watcher["racers"]] == [1, 2]  # done first
    race = play(race, "bob", bob, 100, 2000)
    assert race.phase() is Phase.FINISHED
    view = race.view("bob", 40_000)
    assert view["code"] == str(course) and view["hole_codes"] == [str(c) for c in course.holes]
    first, second = view["racers"]
    assert (first["seat"], first["place"], first["holes"], first["total"], first["to_par"]) == (
        1,
        1,
        ann,
        41,
        -4,
    )
    assert (second["seat"], second["place"], second["games"]) == (2, 2, [f"bob{n}" for n in range(1, 10)])
    assert first["elapsed"] == 8 * 1000 + 500  # from the first hole's deal to the ninth's last move


def test_a_resignation_counts_a_full_tableau_for_each_hole_not_played() -> None:
    race = CourseRace.create("c2", random_course(long=True), "ann", "", 0, seats=3).join("bob", "")
    race = race.start("ann", 0)
    race = play(race, "ann", [30, 30], 0, 10)
    race = race.dealt("ann", 3, "ann3", 50).resign("ann", 60, hole("ann3", 20))
    line = race.view("ann", 60)["racers"]
    mine = next(r for r in line if r["seat"] == 1)
    assert mine["holes"] == [30, 30, 20, *[35] * (HOLES - 3)] and mine["resigned"]
    race = play(race, "bob", [30, 30, 20, *[35] * (HOLES - 3)], 0, 10)  # the same strokes, played: ahead
    assert [r["seat"] for r in race.view(None, 200)["racers"]] == [2, 1]
