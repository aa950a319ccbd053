"""The solo nine-deal course in the web client (issue 22.3): a course code typed in, nine holes played in a
row by the keys, each hole's code the engine's (client_web/src/game/course.js against engine/course.py), the
scorecard hole by hole with its running total, the final line and the share text; each hole named to the
server, and the course on its board (a signed-up account's), seen from the course view and the
leaderboards view; English and Hebrew, on a phone and a desktop."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace.engine import Draw, Game, Status, Tap
from golfrace.engine.course import (
    HOLE_PAR,
    HOLES,
    CourseCode,
    Scorecard,
    random_course,
    share_text,
    to_par_text,
)
from golfrace.engine.i18n import catalog

from ..accounts.helpers import sign_up_in_page
from .helpers import shot
from .test_axe import scan

SIZES = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}


def policy(code: Any) -> tuple[list[str], Game]:
    """The keys of a simple line (the leftmost playable column, else draw) to the deal's end, and that end."""
    game, keys = Game.new(code), []
    while game.status is Status.PLAYING:
        columns = game.playable_columns()
        action = Tap(columns[0] + 1) if columns else Draw()
        keys.append(str(columns[0] + 1) if columns else "d")
        game = game.apply(action)
    return keys, game


def signed(n: int) -> str:
    return f"\u2212{-n}" if n < 0 else f"+{n}" if n > 0 else "0"


@pytest.mark.timeout(300)  # nine deals by the keys, the board twice: long on a shared machine
# both languages and both sizes in two runs, English on a desktop and Hebrew (RTL) on a phone: nine deals by
# the keys cost ~20 s of a browser's CPU each time, and the four-way product cost the suite minutes
@pytest.mark.parametrize(("loc", "size"), [("en", "desktop"), ("he", "phone")])
def test_a_solo_course_of_nine_holes(new_context: Any, web_server: Any, loc: str, size: str) -> None:
    phone = size == "phone"
    ctx = new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=web_server.http)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{web_server.http}/?lang={loc}#/course")
    username = sign_up_in_page(page)  # an account's course goes on its board
    course_text = str(random_course())  # a board of this test's own
    ui = catalog(loc)["ui"]
    texts = ui["course"]
    page.wait_for_selector(".course-start")
    assert page.locator("#course-title").text_content() == texts["title"]
    assert page.get_attribute("html", "dir") == ("rtl" if loc == "he" else "ltr")

    # a game code is not a course code: the field says so
    page.fill("#course-code", "GO1-E-AAAAAAB")
    page.click(".course-go")
    page.wait_for_selector("#course-error:not([hidden])")
    page.fill("#course-code", course_text.lower())
    page.click(".course-go")
    page.wait_for_selector(".course-play:not([hidden])")
    assert page.locator("[data-testid=course-code]").text_content() == course_text

    course = CourseCode.parse(course_text)
    card = Scorecard(course)
    for n in range(1, HOLES + 1):
        hole = course.hole(n)
        # the browser derives the hole's code as the engine does, and deals it
        page.wait_for_function(
            "([n, code]) => { const c = document.querySelector('.view.course');"
            " return !!c && c.dataset.hole === String(n) && c.dataset.holeCode === code"
            " && c.dataset.v === '0'; }",
            arg=[n, str(hole)],
        )
        assert page.locator("[data-testid=hole]").text_content() == texts["hole_of"].format(n=n, total=HOLES)
        if n == 1:  # the board and the scorecard, before a move (an empty stock's badge is the board's own)
            assert scan(page, "course, hole 1") == []
        keys, end = policy(hole)
        if n == 2:  # a reload mid-hole comes back to the same game, its moves kept
            for key in keys[:3]:
                page.keyboard.press(key)
            page.wait_for_function("() => document.querySelector('.view.course')?.dataset.v === '3'")
            page.reload()
            page.wait_for_function(
                "code => { const c = document.querySelector('.view.course');"
                " return !!c && c.dataset.holeCode === code && c.dataset.v === '3'; }",
                arg=str(hole),
            )
            assert page.locator(".sc-strokes td").all_text_contents()[0] == str(card.holes[0])
            keys = keys[3:]
        for key in keys:  # as fast as a robot types: the session numbers and orders them
            page.keyboard.press(key)
        page.wait_for_function(
            "v => document.querySelector('.view.course')?.dataset.v === String(v)",
            arg=len(keys) + (3 if n == 2 else 0),
        )
        page.wait_for_function(
            "s => document.querySelector('.view.course')?.dataset.status === s", arg=end.status.value
        )
        if n == 3:  # mid-course: the card so far, in the page's language and direction
            page.wait_for_selector("[data-testid=next-hole]:not([hidden])")
            shot(page, f"course-hole3-{size}-{loc}")
        page.click("[data-testid=next-hole]")
        card = card.record_game(end)
        strokes_row = page.locator(".sc-strokes td").all_text_contents()
        assert strokes_row[:n] == [str(s) for s in card.holes]
        assert strokes_row[-1] == str(card.total)
        running = page.locator(".sc-running td").all_text_contents()
        assert running[n - 1] == signed(card.running[-1] - HOLE_PAR * n)

    page.wait_for_selector("[data-testid=course-result]:not([hidden])")
    assert page.locator("[data-testid=course-result]").text_content() == texts["finished"].format(
        strokes=card.total, to_par=to_par_text(card.to_par, loc)
    )
    assert page.locator(".sc-par td").all_text_contents() == ["5"] * HOLES + ["45"]
    page.evaluate("document.querySelector('.scorecard-wrap').scrollIntoView()")
    shot(page, f"course-done-{size}-{loc}")
    assert scan(page, "course over") == []
    page.click("[data-testid=share-course]")
    page.wait_for_function(
        "text => document.querySelector('#toast.show')?.textContent === text", arg=ui["copied"]
    )
    assert page.evaluate("navigator.clipboard.readText()") == share_text(card, loc)
    # the server checked the nine games and put the course on its board: first of one
    page.wait_for_selector("[data-testid=course-rank]:not([hidden])")
    assert page.locator("[data-testid=course-rank]").text_content() == texts["your_rank"].format(
        rank=1, total=1
    )

    # the card is kept in this browser: a reload shows the finished course again
    page.reload()
    page.wait_for_selector("[data-testid=course-result]:not([hidden])")
    assert page.locator(".sc-strokes td").all_text_contents()[-1] == str(card.total)
    # no element leaves the screen sideways (the scorecard scrolls inside its own box on a phone)
    width = SIZES[size]["width"]
    outside = page.evaluate(
        """w => [...document.querySelectorAll('.view.course *')]
          .filter((e) => e.getClientRects().length && !e.closest('.scorecard-wrap'))
          .map((e) => [e, e.getBoundingClientRect()])
          .filter(([, r]) => r.width && (r.left < -0.5 || r.right > w + 0.5))
          .map(([e, r]) => `${e.tagName}.${e.className} ${r.left}..${r.right}`)""",
        width,
    )
    assert outside == []

    # the course's board, from the course view: this account, its strokes and holes' total
    page.click("[data-testid=course-board-link]")
    page.wait_for_function(
        "board => document.querySelector('.boards-view')?.dataset.loaded === board",
        arg=f"course:{course_text}",
    )
    assert page.locator(".board-table .score-head").text_content() == texts["strokes"]
    rows = page.locator(".board-table tbody tr")
    assert rows.count() == 1
    cells = rows.nth(0).locator("td").all_text_contents()
    assert cells[0] == "1" and username in cells[1] and cells[2] == str(card.total)
    assert rows.nth(0).get_attribute("class") == "me"
    shot(page, f"course-board-{size}-{loc}")
    assert scan(page, "course board") == []
    # and from the leaderboards view's own form: the course kind and its code
    page.goto(f"{web_server.http}/?lang={loc}#/leaderboards")
    page.select_option("select[name=kind]", "course")
    page.fill("input[name=key]", course_text.lower())
    page.click(".board-form button[type=submit]")
    page.wait_for_function(
        "board => document.querySelector('.boards-view')?.dataset.loaded === board",
        arg=f"course:{course_text}",
    )
    assert page.locator(".board-table tbody td").nth(2).text_content() == str(card.total)
    assert not errors, errors


@pytest.mark.timeout(120)
def test_a_hole_post_that_gets_no_answer_is_sent_again_once_it_gets_one(
    new_context: Any, web_server: Any
) -> None:
    """The first post of hole 1 gets no answer (the network), the page is reloaded meanwhile, the second
    gets a 503: the page says the hole is not saved yet and sends the same post again (after the reload
    too), until the server answers: one hole."""
    page = new_context(viewport=SIZES["desktop"]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    calls: list[Any] = []
    answers: list[Any] = []

    def flaky(route: Any) -> None:
        calls.append(route.request.post_data_json)
        if len(calls) == 1:
            route.abort("internetdisconnected")
        elif len(calls) == 2:
            route.fulfill(status=503, json={"error": "unavailable", "message": "down"})
        else:
            answer = route.fetch()
            answers.append(answer.json())
            route.fulfill(response=answer)

    page.route("**/api/courses/*/holes", flaky)
    page.goto(f"{web_server.http}/?lang=en#/course")
    course = random_course()
    page.fill("#course-code", str(course))
    page.click(".course-go")
    page.wait_for_function(  # the hole dealt (v 0), not only named: a key pressed before its board is dropped
        "code => { const c = document.querySelector('.view.course');"
        " return !!c && c.dataset.holeCode === code && c.dataset.v === '0'; }",
        arg=str(course.hole(1)),
    )
    keys, end = policy(course.hole(1))
    for key in keys:
        page.keyboard.press(key)
    page.wait_for_function(
        "s => document.querySelector('.view.course')?.dataset.status === s", arg=end.status.value
    )
    page.click("[data-testid=next-hole]")
    page.wait_for_selector(".view.course[data-post='retrying'] [data-testid=course-post]:not([hidden])")
    text = page.text_content("[data-testid=course-post]") or ""
    assert text.startswith("Hole 1 is not saved yet"), text
    page.reload()  # the unanswered post is kept in this browser and sent again
    page.wait_for_selector(
        ".view.course[data-post='saved'] [data-testid=course-post][hidden]", state="attached", timeout=20_000
    )
    assert len(calls) == 3 and all(c == calls[0] for c in calls), calls
    assert calls[0]["hole"] == 1 and answers[0]["card"]["played"] == 1, answers
    assert page.locator(".sc-strokes td").all_text_contents()[0] == str(35 - end.removed)
    assert not errors, errors
