"""An open course over a real server and Redis (issue 22.3): nine solo games named hole by hole, checked by
the server against its own stored games (a client's numbers never count), and the course on its board,
accounts only, fewer strokes first; every forgery refused with its stable code."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from golfrace.engine.course import HOLES, CourseCode, Scorecard, random_course
from golfrace.races.leaderboard import course_board

from ..accounts.helpers import sign_in_client
from .helpers import T, auth, end_of, line, play, record, refused

pytestmark = pytest.mark.timeout(180)


async def play_course(
    http: httpx.AsyncClient, client: Any, course: CourseCode, session: str | None, draw_first: bool = False
) -> tuple[Scorecard, dict[str, Any]]:
    """Play the nine holes of ``course`` as ``client`` and name each to the server; the card the engine
    keeps of the same games, and the server's last answer."""
    card, answer = Scorecard(course), {}
    for n in range(1, HOLES + 1):
        code = course.hole(n)
        view = await client.new(str(code))
        await play(client, view.game, line(code, draw_first=draw_first))
        await client.close_game(view.game)
        reply = await record(http, client, str(course), n, view.game, session)
        assert reply.status_code == 200, reply.text
        answer = reply.json()
        card = card.record_game(end_of(code, draw_first=draw_first))
        assert answer["card"]["holes"] == list(card.holes)
        assert answer["card"]["total"] == card.total and answer["card"]["to_par"] == card.to_par
    return card, answer


async def test_a_course_of_nine_stored_games_goes_on_its_board(
    course_server: Any, course_client: Any
) -> None:
    ann, guest = await course_client(name="Ann"), await course_client(name="Gus")
    session = await sign_in_client(course_server.ctx.redis, ann, display="Ann")
    course = random_course()
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        card, answer = await play_course(http, ann, course, session)
        assert answer["card"]["done"] and answer["card"]["played"] == HOLES
        assert answer["board"]["posted"] and answer["board"]["board"] == course_board(course)
        assert answer["board"]["you"]["rank"] == 1
        # a guest plays the same course: checked and recorded, but on no board (accounts only)
        _guest_card, guest_answer = await play_course(http, guest, course, None)
        assert guest_answer["board"] == {
            "board": course_board(course),
            "posted": False,
            "reason": "guest",
            "you": None,
            "total": 1,
        }
        page = (await http.get(f"/api/leaderboards/course/{str(course).lower()}")).json()
        assert page["total"] == 1
        (entry,) = page["entries"]
        assert (entry["rank"], entry["name"], entry["strokes"], entry["holes"]) == (
            1,
            "Ann",
            card.total,
            list(card.holes),
        )
        assert entry["moves"] == sum(len(line(course.hole(n))) for n in range(1, HOLES + 1))
        mine = (await http.get(f"/api/courses/{course}/card", headers=auth(ann, session))).json()
        assert mine["card"]["holes"] == list(card.holes)
        # the course again from hole 1: a new attempt; the board keeps the best
        again = await ann.new(str(course.hole(1)))
        await play(ann, again.game, line(course.hole(1)))
        restarted = await record(http, ann, str(course), 1, again.game, session)
        assert restarted.json()["card"]["holes"] == [card.holes[0]]
        assert (await http.get(f"/api/leaderboards/course/{course}")).json()["total"] == 1


RANKED = CourseCode.parse("GC1-E-RANKING")


def test_the_two_lines_differ_on_the_ranked_course() -> None:
    """The next test's premise: on its course, drawing first leaves more cards than tapping first."""
    worse = sum(35 - end_of(RANKED.hole(n), draw_first=True).removed for n in range(1, HOLES + 1))
    better = sum(35 - end_of(RANKED.hole(n)).removed for n in range(1, HOLES + 1))
    assert worse > better


async def test_fewer_strokes_rank_first(course_server: Any, course_client: Any) -> None:
    """Two accounts on one course's board: the fewer strokes first, though it finished last."""
    totals = {}
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        for name, draw_first in (("Bea", True), ("Cy", False)):
            client = await course_client(name=name)
            session = await sign_in_client(course_server.ctx.redis, client, display=name)
            card, answer = await play_course(http, client, RANKED, session, draw_first)
            totals[name] = card.total
            assert answer["board"]["posted"]
        page = (await http.get(f"/api/leaderboards/course/{RANKED}")).json()
    assert [e["name"] for e in page["entries"]] == ["Cy", "Bea"]
    assert [e["strokes"] for e in page["entries"]] == [totals["Cy"], totals["Bea"]]
    assert [e["rank"] for e in page["entries"]] == [1, 2]


async def test_forged_wrong_and_unfinished_holes_are_refused(course_server: Any, course_client: Any) -> None:
    ann, bob = await course_client(name="Ann"), await course_client(name="Bob")
    course = random_course()
    one, two = course.hole(1), course.hole(2)
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        playing = await ann.new(str(one))
        refused(await record(http, ann, str(course), 1, playing.game), 409, "hole_not_over")
        refused(await record(http, ann, str(course), 1, "forgedgame12"), 404, "game_not_found")
        await play(ann, playing.game, line(one))
        refused(await record(http, bob, str(course), 1, playing.game), 403, "not_player")
        second = await ann.new(str(two))
        await play(ann, second.game, line(two))
        refused(await record(http, ann, str(course), 1, second.game), 409, "wrong_hole")
        refused(await record(http, ann, str(course), 2, second.game), 409, "hole_out_of_order")
        other = random_course()  # a game of another course's hole is not this course's
        stranger = await ann.new(str(other.hole(1)))
        await play(ann, stranger.game, line(other.hole(1)))
        refused(await record(http, ann, str(course), 1, stranger.game), 409, "wrong_hole")
        refused(await record(http, ann, "GO1-E-AAAAAAB", 1, playing.game), 400, "bad_code")
        refused(await record(http, ann, str(course), 10, playing.game), 400, "bad_option")
        refused(await record(http, ann, str(course), True, playing.game), 400, "bad_option")  # type: ignore[arg-type]
        no_token = await http.post(f"/api/courses/{course}/holes", json={"hole": 1, "game": playing.game})
        refused(no_token, 401, "bad_token")
        headers = {**auth(ann), "Content-Type": "application/json"}
        bad_body = await http.post(f"/api/courses/{course}/holes", content=b"[1", headers=headers)
        refused(bad_body, 400, "bad_option")
        form = await http.post(f"/api/courses/{course}/holes", data={"hole": "1"}, headers=auth(ann))
        refused(form, 400, "bad_request")
        # nothing of it was recorded; the right game, in order, is
        assert (await http.get(f"/api/courses/{course}/card", headers=auth(ann))).json()["card"][
            "played"
        ] == 0
        assert (await record(http, ann, str(course), 1, playing.game)).json()["card"]["played"] == 1
        assert (await record(http, ann, str(course), 1, playing.game)).json()["card"]["played"] == 1  # again
        assert (await record(http, ann, str(course), 2, second.game)).json()["card"]["played"] == 2


async def test_a_hinted_hole_keeps_the_course_off_the_board(course_server: Any, course_client: Any) -> None:
    ann = await course_client(name="Ann")
    session = await sign_in_client(course_server.ctx.redis, ann, display="Ann")
    course = random_course()
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        first = await ann.new(str(course.hole(1)))
        await ann.send({"t": "hint", "game": first.game})
        hint = await ann.expect("hint", T, where=lambda m: m.get("game") == first.game)
        assert hint["move"] is not None
        await play(ann, first.game, line(course.hole(1)))
        assert (await record(http, ann, str(course), 1, first.game, session)).json()["card"]["hinted"]
        for n in range(2, HOLES + 1):
            view = await ann.new(str(course.hole(n)))
            await play(ann, view.game, line(course.hole(n)))
            answer = (await record(http, ann, str(course), n, view.game, session)).json()
        assert answer["board"]["posted"] is False and answer["board"]["reason"] == "hinted"
        assert (await http.get(f"/api/leaderboards/course/{course}")).json()["total"] == 0
