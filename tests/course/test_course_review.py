"""The course boards under the ranked boards' fair play (docs/course.md, "Fair play"): a course with a hole
played faster than any human is held in its board's review list, never shown; one near the top waits for the
knowledge review of its holes (the guard against a second identity that played the weekend's course first),
then goes on its board or, held, to its review list; a burst of 100 concurrent posts of one hole records it
once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from golfrace.course.service import CourseService
from golfrace.engine.course import HOLES, CourseCode, random_course
from golfrace.races.leaderboard import course_board
from golfrace.settings import Settings
from golfrace.settings.races import RaceSettings
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from ..own_server import own_server
from .conftest import SATURDAY_MS
from .helpers import T, auth, line, play, record
from .test_open_course import play_course

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
async def checked(settings: Settings) -> AsyncIterator[RunningServer]:
    """A server with the real timing check on 10 moves (the shared one switches it off for fast bots), on a
    clock that stands still: every move of a bot comes 0 ms after the one before."""
    races = replace(settings.races, review_min_moves=10)
    async with running_server(
        settings.with_(port=0, races=races), clock=MovableClock(SATURDAY_MS)
    ) as running:
        yield running


async def test_a_course_played_faster_than_a_human_is_held_for_review(checked: RunningServer) -> None:
    ann = Client(checked.ws, name="Ann")
    await ann.start()
    try:
        session = await sign_in_client(checked.ctx.redis, ann, display="Ann")
        course = random_course()
        async with httpx.AsyncClient(base_url=checked.http, timeout=T) as http:
            _card, answer = await play_course(http, ann, course, session)
            board = course_board(course)
            assert answer["board"]["posted"] is False and answer["board"]["reason"] == "review", answer
            assert answer["board"]["total"] == 0 and answer["board"]["you"] is None
            page = (await http.get(f"/api/leaderboards/course/{course}")).json()
            assert page["total"] == 0 and page["entries"] == []
        held = await checked.ctx.get(CourseService).boards.held_for_review(board)
        entry = held[str(ann.player)]
        fast = [n for n in range(1, HOLES + 1) if len(line(course.hole(n))) >= 10]
        assert entry["review"] == "too_fast" and entry["holes"] == fast and fast
        assert entry["name"] == "Ann" and entry["strokes"] == answer["card"]["total"]
    finally:
        await ann.close()


async def test_a_burst_of_100_posts_of_one_hole_records_it_once(
    course_server: Any, course_client: Any
) -> None:
    ann = await course_client(name="Ann")
    session = await sign_in_client(course_server.ctx.redis, ann, display="Ann")
    course = random_course()
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        games = []
        for n in (1, 2):
            view = await ann.new(str(course.hole(n)))
            await play(ann, view.game, line(course.hole(n)))
            games.append(view.game)
        # hole 2 before hole 1 and hole 1 a hundred times, all at once: hole 1 once, hole 2 never early
        burst = await asyncio.gather(
            *(record(http, ann, str(course), 2, games[1], session) for _ in range(20)),
            *(record(http, ann, str(course), 1, games[0], session) for _ in range(100)),
        )
        ones = list(burst[20:])
        assert all(a.status_code == 200 for a in ones), [a.text for a in ones]
        assert {a.json()["card"]["holes"][0] for a in ones} == {ones[0].json()["card"]["holes"][0]}
        for early in burst[:20]:
            assert early.status_code in (200, 409), early.text
        card = (await http.get(f"/api/courses/{course}/card", headers=auth(ann, session))).json()["card"]
        assert 1 <= card["played"] <= 2
        # the same hole posted again (a page retrying a post it never heard back from): the same card
        again = await record(http, ann, str(course), card["played"], games[card["played"] - 1], session)
        assert again.status_code == 200 and again.json()["card"] == card, again.text


@pytest.fixture
async def reviewed(
    settings: Settings, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[RunningServer, MovableClock]]:
    """A server with the real timing check and the knowledge review (2 s of CPU a hole; its threshold the
    test's parameter, or the real one), on a Redis of its own, and a clock the test moves by a human's 1.5 s
    before every move."""
    real = RaceSettings()
    threshold = getattr(request, "param", None)
    threshold = real.review_threshold if threshold is None else threshold
    races = replace(
        settings.races, review_min_moves=real.review_min_moves, review_cpu_s=2.0, review_threshold=threshold
    )
    clock = MovableClock(SATURDAY_MS)
    async with own_server(settings, tmp_path / "redis", clock, races=races) as running:
        yield running, clock


async def _paced_course(
    http: httpx.AsyncClient, client: Client, course: CourseCode, session: str, clock: MovableClock
) -> dict[str, Any]:
    """Play the nine holes by the simple line at 1.5 s a move on the server's clock, each named to it."""
    answer: dict[str, Any] = {}
    for n in range(1, HOLES + 1):
        code = course.hole(n)
        view = await client.new(str(code))
        for action in line(code):
            clock.set(clock() + 1_500)
            await play(client, view.game, [action])
        await client.close_game(view.game)
        reply = await record(http, client, str(course), n, view.game, session)
        assert reply.status_code == 200, reply.text
        answer = reply.json()
    return answer


async def _settled(service: CourseService, board: str, player: str) -> None:
    deadline = asyncio.get_running_loop().time() + 240
    while await service.boards.pending_of(board, player) is not None:
        assert asyncio.get_running_loop().time() < deadline, "the course's review within 240 s"
        await asyncio.sleep(0.2)


@pytest.mark.timeout(600)  # nine holes reviewed (2 s of niced CPU each), on a shared machine
@pytest.mark.parametrize("reviewed", [None, -1_000.0], ids=["cleared", "held"], indirect=True)
async def test_a_course_near_the_top_waits_for_the_knowledge_review_of_its_holes(
    reviewed: tuple[RunningServer, MovableClock],
) -> None:
    """Pending (on no board) while its holes are reviewed; then on its board, or (a review that holds a hole:
    here every review, its threshold below any score) in the review list as ``knowledge``, never shown."""
    server, clock = reviewed
    held = server.settings.races.review_threshold < 0
    service = server.ctx.get(CourseService)
    course = random_course()
    board = course_board(course)
    hal = Client(server.ws, name="Hal")
    try:
        async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
            await hal.start()
            session = await sign_in_client(server.ctx.redis, hal, display="Hal")
            answer = await _paced_course(http, hal, course, session, clock)
            assert answer["board"]["posted"] is False and answer["board"]["reason"] == "pending", answer
            pending = await service.boards.pending_of(board, str(hal.player))
            assert pending is not None and pending["review"] == "pending"
            assert (await http.get(f"/api/leaderboards/course/{course}")).json()["total"] == 0
            await _settled(service, board, str(hal.player))
            page = (await http.get(f"/api/leaderboards/course/{course}")).json()
            kept = await service.boards.held_for_review(board)
            if held:
                assert page["total"] == 0 and kept[str(hal.player)]["review"] == "knowledge", kept
                assert kept[str(hal.player)]["holes"] == [1]
            else:
                assert [e["name"] for e in page["entries"]] == ["Hal"] and not kept, (page, kept)
    finally:
        await hal.close()
