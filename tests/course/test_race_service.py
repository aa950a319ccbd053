"""The course as a race format over a real server, Redis and websockets (issue 22.3): a course race created
by link and joined, both racers advancing hole after hole through sealed games the server deals, the strokes
summed as an engine replay of each hole counts them, no code of the course or of a hole shown to a watcher,
the other racer or the HTTP API before the race is over for everyone, and the results like a scorecard."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from golfrace.course.race_service import CourseRaces
from golfrace.engine import Draw, GameCode
from golfrace.engine.course import HOLES, CourseCode
from golfrace.engine.deal import deal

from .helpers import T, auth, end_of, line, play, refused
from .test_daily_course import assert_hidden

pytestmark = pytest.mark.timeout(240)


async def post(http: httpx.AsyncClient, client: Any, path: str, body: dict[str, Any] | None = None) -> Any:
    answer = await http.post(path, json=body or {}, headers=auth(client))
    assert answer.status_code == 200, answer.text
    return answer.json()


async def course_of(server: Any, race_id: str) -> CourseCode:
    """The race's course as the server stores it (the test reads Redis; no client can)."""
    race = await server.ctx.get(CourseRaces).book.load(race_id)
    assert race is not None
    return race.course


async def play_hole(
    http: httpx.AsyncClient,
    client: Any,
    race_id: str,
    n: int,
    course: CourseCode,
    worse: bool,
    seen: list[Any],
) -> int:
    """Hole ``n`` of ``client``: asked for, opened, played to its end by a line; its strokes by the engine."""
    body = await post(http, client, f"/api/course-races/{race_id}/next")
    seen.append(body)
    racer = next(r for r in body["racers"] if r["seat"] == body["you"])
    assert racer["hole"] == n and racer["played"] == n - 1, body
    game = body["game"]
    start = len(client.frames)
    view = await client.open(game)
    assert view.state["code"] is None  # sealed: no frame names the hole
    code = course.hole(n)
    actions = line(code, draws_final=True, draw_first=worse)
    half = actions[: len(actions) // 2]
    await play(client, game, half)
    stock = [c.code for c in deal(code).stock]
    assert_hidden(
        client.frames[start:],
        [str(course), *(str(c) for c in course.holes)],
        stock,
        sum(isinstance(a, Draw) for a in half),
    )
    await play(client, game, actions[len(half) :])
    await client.close_game(game)
    return 35 - end_of(code, draws_final=True, draw_first=worse).removed


async def test_two_racers_play_the_nine_holes_and_the_codes_wait_for_the_end(
    course_server: Any, course_client: Any
) -> None:
    ann, bob, wat = (
        await course_client(name="Ann"),
        await course_client(name="Bob"),
        await course_client(name="Wat"),
    )
    seen: list[Any] = []
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        lobby = await post(http, ann, "/api/course-races", {"name": "Ann", "seats": 2})
        race_id = lobby["id"]
        assert (lobby["phase"], lobby["you"], lobby["host"], lobby["code"], lobby["game"]) == (
            "lobby",
            1,
            True,
            None,
            None,
        )
        joined = await post(http, bob, f"/api/course-races/{race_id}/join", {"name": "Bob"})
        assert joined["you"] == 2 and not joined["host"]
        refused(
            await http.post(f"/api/course-races/{race_id}/join", json={}, headers=auth(wat)), 409, "race_full"
        )
        refused(
            await http.post(f"/api/course-races/{race_id}/start", json={}, headers=auth(bob)), 403, "not_host"
        )
        refused(
            await http.post(f"/api/course-races/{race_id}/next", json={}, headers=auth(bob)),
            409,
            "race_not_started",
        )
        started = await post(http, ann, f"/api/course-races/{race_id}/start")
        assert started["phase"] == "running"
        course = await course_of(course_server, race_id)
        assert course.long  # hidden-code rules of ranked play: long codes
        codes = [str(course), *(str(c) for c in course.holes)]

        ann_holes: list[int] = []
        bob_holes: list[int] = []
        for n in range(1, HOLES + 1):
            ann_holes.append(await play_hole(http, ann, race_id, n, course, False, seen))
            # the watcher and the other racer: each racer's hole and strokes, no code and no hole game
            for reader in (wat, bob):
                view = (await http.get(f"/api/course-races/{race_id}", headers=auth(reader))).json()
                seen.append(view)
                assert view["code"] is None and view["hole_codes"] is None
                assert all("games" not in r for r in view["racers"])
                mine = next(r for r in view["racers"] if r["seat"] == 1)
                assert mine["hole"] == n + 1 if n < HOLES else mine["hole"] is None  # settled by the read
                assert mine["holes"] == ann_holes
                assert view["game"] is None  # Bob's hole n is not dealt yet; Ann's game is hers alone
            bob_holes.append(await play_hole(http, bob, race_id, n, course, True, seen))
        # every frame the three got and every answer so far: no code of the course nor of a hole
        assert_hidden([*wat.frames, *bob.frames, *ann.frames, *seen], codes, [], 0)
        # Bob's ninth hole ended: the next read records it (he closed his tab, say) and the race is over
        results = (await http.get(f"/api/course-races/{race_id}")).json()  # no token: a watcher
        assert results["phase"] == "finished"
        done = await post(http, bob, f"/api/course-races/{race_id}/next")
        assert done["phase"] == "finished" and done["game"] is None and done["you"] == 2
    assert results["code"] == str(course) and results["hole_codes"] == codes[1:]
    by_seat = {r["seat"]: r for r in results["racers"]}
    assert by_seat[1]["holes"] == ann_holes and by_seat[2]["holes"] == bob_holes
    for r, holes in ((by_seat[1], ann_holes), (by_seat[2], bob_holes)):
        assert (r["total"], r["to_par"], r["done"], r["resigned"], len(r["games"])) == (
            sum(holes),
            sum(holes) - 45,
            True,
            False,
            HOLES,
        )
    order = sorted((sum(h), seat) for seat, h in ((1, ann_holes), (2, bob_holes)))
    if order[0][0] < order[1][0]:  # fewer strokes first (a tie goes to the shorter time)
        assert [r["seat"] for r in results["racers"]] == [s for _, s in order]
    assert [r["place"] for r in results["racers"]] == [1, 2]
    # the holes' games are the racers' own, of the holes' codes, and now open to anyone
    store = course_server.ctx.store
    for r in results["racers"]:
        for n, game in enumerate(r["games"], start=1):
            stored = await store.load(game)
            assert stored is not None and stored.game.code == GameCode.parse(codes[n])


async def test_a_racer_who_resigns_counts_a_full_tableau_for_each_hole_not_played(
    course_server: Any, course_client: Any
) -> None:
    cy, di = await course_client(name="Cy"), await course_client(name="Di")
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        race_id = (await post(http, cy, "/api/course-races", {"name": "Cy"}))["id"]
        await post(http, di, f"/api/course-races/{race_id}/join", {"name": "Di"})
        await post(http, cy, f"/api/course-races/{race_id}/start")
        course = await course_of(course_server, race_id)
        first = await play_hole(http, cy, race_id, 1, course, False, [])
        body = await post(http, cy, f"/api/course-races/{race_id}/next")  # hole 2 dealt, no move yet
        assert body["game"]
        out = await post(http, cy, f"/api/course-races/{race_id}/resign")
        cy_line = next(r for r in out["racers"] if r["seat"] == 1)
        assert cy_line["holes"] == [first, *[35] * 8] and cy_line["resigned"] and cy_line["done"]
        assert out["phase"] == "running" and out["code"] is None  # Di still plays
        refused(
            await http.post(f"/api/course-races/{race_id}/resign", json={}, headers=auth(cy)),
            409,
            "race_over",
        )
        await post(http, di, f"/api/course-races/{race_id}/resign")  # no hole dealt: nine full tableaux
        over = (await http.get(f"/api/course-races/{race_id}")).json()
        refused(await http.post("/api/course-races", json={}), 401, "bad_token")
        refused(await http.get("/api/course-races/cnosuchrace2"), 404, "race_not_found")
    assert over["phase"] == "finished" and over["code"] == str(course)
    assert [(r["seat"], r["total"]) for r in over["racers"]] == [(1, first + 8 * 35), (2, 9 * 35)]
