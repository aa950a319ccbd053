"""The weekend's daily course over a real server and Redis (issue 22.3, fair play 11.2 and 19.1): the
server deals each hole to an account's attempt as a sealed game, no frame and no HTTP answer before the day
is over carries the course's code, a hole's code or a face-down card, a burst of requests deals a hole once,
the course goes on the day's board with its share text, and the codes are public once the day is over."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import httpx
import pytest

from golfrace.course.service import CourseService
from golfrace.course.weekend import daily_course
from golfrace.engine import Draw, GameCode, Status
from golfrace.engine.course import HOLES, daily_share_text, to_par_text
from golfrace.engine.deal import deal
from golfrace.races.leaderboard import daily_course_board

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from ..races.test_hidden import strings
from ..races.test_wire import CARD
from .conftest import SATURDAY_MS
from .helpers import T, auth, end_of, line, play, refused

pytestmark = pytest.mark.timeout(180)
DAY = date(2027, 1, 2)


def assert_hidden(answers: list[Any], codes: list[str], stock: list[str], drawn: int) -> None:
    """No answer holds one of ``codes``' letters (in any case), nor a card of ``stock`` past the first
    ``drawn`` (a stock card is never on the tableau: one deck)."""
    letters = [GameCode.parse(c).letters if c.startswith("GO1") else c.split("-")[2] for c in codes]
    hidden = set(stock[drawn:])
    for answer in answers:
        texts = strings(answer)
        joined = " ".join(texts).upper()
        assert not [x for x in letters if x in joined], f"a code leaked in {answer}"
        leaked = {t for t in texts if t in hidden and CARD.match(t)}
        assert not leaked, f"face-down cards {leaked} leaked in {answer}"


async def test_the_daily_course_is_dealt_sealed_and_its_codes_wait_for_the_day_to_end(
    course_server: Any, course_client: Any, course_clock: MovableClock
) -> None:
    ann = await course_client(name="Ann", lang="he")
    session = await sign_in_client(course_server.ctx.redis, ann, display="Ann")
    course = daily_course(DAY, course_server.ctx.get(CourseService).secret)
    codes = [str(course), *(str(c) for c in course.holes)]
    answers: list[Any] = []
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        status = (await http.get("/api/course/daily", headers=auth(ann, session))).json()
        assert (status["date"], status["weekend"], status["card"], status["code"]) == (
            DAY.isoformat(),
            True,
            None,
            None,
        )
        answers.append(status)
        totals = []
        for n in range(1, HOLES + 1):
            dealt = await http.post("/api/course/daily/next?lang=he", json={}, headers=auth(ann, session))
            assert dealt.status_code == 200, dealt.text
            body = dealt.json()
            answers.append(body)
            assert body["hole"] == n and body["card"]["played"] == n - 1
            game = body["game"]
            start = len(ann.frames)
            view = await ann.open(game)
            assert view.state["code"] is None
            code = course.hole(n)
            actions = line(code, draws_final=True)
            stock = [c.code for c in deal(code).stock]
            assert_hidden([*ann.frames[start:], body], codes, stock, 0)
            half = actions[: len(actions) // 2]
            await play(ann, game, half)  # halfway: the cards drawn so far, and none further
            assert_hidden(ann.frames[start:], codes, stock, sum(isinstance(a, Draw) for a in half))
            # its game gives nothing away while the day is on: no hint, no analysis, no codes
            await ann.send({"t": "hint", "game": game})
            no_hint = await ann.expect("error", T, where=lambda m: m.get("ref") == "hint")
            assert no_hint["code"] == "no_game"
            again = await http.post("/api/course/daily/next", json={}, headers=auth(ann, session))
            assert again.json()["game"] == game  # still being played: the same hole again
            await play(ann, game, actions[len(half) :])
            end = end_of(code, draws_final=True)
            if end.status is Status.STUCK:  # a stuck hole is its result: no undo back into it
                undo = await ann.act(game, "undo", timeout=T)
                assert undo["t"] == "refused" and undo["code"] == "game_ended", undo
                assert ann.views[game].state["can_undo"] is False
            await ann.close_game(game)
            totals.append(35 - end.removed)
            analysis = await http.get(f"/api/games/{game}/analysis", headers=auth(ann, session))
            refused(analysis, 409, "code_hidden")
            answers.append(analysis.json())
        finished = (
            await http.post("/api/course/daily/next?lang=he", json={}, headers=auth(ann, session))
        ).json()
        answers.append(finished)
        assert finished["card"]["holes"] == totals and finished["card"]["done"]
        assert finished["share"] == daily_share_text(DAY.isoformat(), totals, "he")
        assert to_par_text(sum(totals) - 45, "he") in finished["share"]
        assert finished["posted"] and finished["you"]["rank"] == 1
        assert finished["board"] == daily_course_board(DAY.isoformat())
        page = (await http.get(f"/api/leaderboards/course-day/{DAY.isoformat()}")).json()
        assert [(e["name"], e["strokes"], e["holes"]) for e in page["entries"]] == [
            ("Ann", sum(totals), totals)
        ]
        answers.append(page)
        hidden = await http.get(f"/api/course/daily/{DAY.isoformat()}/codes")
        refused(hidden, 409, "code_hidden")
        answers.append(hidden.json())
        status = (await http.get("/api/course/daily?lang=he", headers=auth(ann, session))).json()
        assert status["share"] == finished["share"] and status["code"] is None
        answers.append(status)
        # every frame of the whole course and every answer: no code of the day, nor of a hole
        assert_hidden([*ann.frames, *answers], codes, [], 0)
        # the day and its grace over: the codes are public, and they are the ones the holes dealt
        grace_s = course_server.settings.races.daily_grace_s
        over_at = (SATURDAY_MS // 86_400_000 + 1) * 86_400_000 + grace_s * 1000
        await course_clock.advance((over_at - course_clock()) / 1000 + 1)
        public = (await http.get(f"/api/course/daily/{DAY.isoformat()}/codes")).json()
        assert public == {"date": DAY.isoformat(), "code": str(course), "holes": codes[1:]}


async def test_one_attempt_per_account_under_a_burst_and_none_for_a_guest(
    course_server: Any, course_client: Any
) -> None:
    bob, guest = await course_client(name="Bob"), await course_client(name="Gus")
    session = await sign_in_client(course_server.ctx.redis, bob, display="Bob")
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        refused(
            await http.post("/api/course/daily/next", json={}, headers=auth(guest)), 403, "account_required"
        )
        refused(await http.post("/api/course/daily/next", json={}), 401, "bad_token")
        form = await http.post("/api/course/daily/next", data={"a": "1"}, headers=auth(bob, session))
        refused(form, 400, "bad_request")  # a form (another site's page could post one): not taken
        burst = await asyncio.gather(
            *(http.post("/api/course/daily/next", json={}, headers=auth(bob, session)) for _ in range(100))
        )
    games = {answer.json()["game"] for answer in burst}
    assert len(games) == 1 and all(a.json()["hole"] == 1 for a in burst), [a.text for a in burst]
    # the games the lost claims dealt are gone: the account holds that one hole's game, and no other
    store = course_server.ctx.store
    kept = [g for g in await store.player_games(str(bob.player)) if await store.load(g) is not None]
    assert kept == list(games)
    assert (await store.load(kept[0])).meta["sealed"] > 0


async def test_no_daily_course_on_a_weekday(
    course_server: Any, course_client: Any, course_clock: MovableClock
) -> None:
    cy = await course_client(name="Cy")
    session = await sign_in_client(course_server.ctx.redis, cy, display="Cy")
    monday = SATURDAY_MS + 2 * 86_400_000
    if course_clock() < monday:
        await course_clock.advance((monday - course_clock()) / 1000 + 1)
    async with httpx.AsyncClient(base_url=course_server.http, timeout=T) as http:
        status = (await http.get("/api/course/daily", headers=auth(cy, session))).json()
        assert status["weekend"] is False and status["card"] is None
        refused(
            await http.post("/api/course/daily/next", json={}, headers=auth(cy, session)), 409, "not_weekend"
        )
