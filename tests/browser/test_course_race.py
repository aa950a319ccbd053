"""The course as a race in the web client (issue 22.3): a course race made from the Course view, a second
player joining by its link, the host starting; the host plays the first hole by the keys (its strokes the
engine's) and both resign (quick: every hole not played counts a full tableau); both pages then show the
results scorecard in the standing's order, with the course's code, hidden until then. English on a desktop,
Hebrew on a phone."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from golfrace.engine.course import HOLES, CourseCode, to_par_text
from golfrace.engine.i18n import catalog

from .helpers import shot
from .test_axe import scan
from .test_course_daily import keys_of

SIZES = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}


def resign(page: Any) -> None:
    page.click("[data-testid=crace-resign]")
    page.click("dialog.confirm .ok")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("case", ["en-desktop", "he-phone"])
def test_a_course_race_from_the_course_view(new_context: Any, web_server: Any, case: str) -> None:
    loc, size = case.split("-")
    phone = size == "phone"
    pages, errors = [], []
    for _ in range(2):
        ctx = new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        pages.append(page)
    host, guest = pages
    texts = catalog(loc)["ui"]["course"]

    host.goto(f"{web_server.http}/?lang={loc}#/course")
    host.click("[data-testid=course-race-new]")
    host.fill("#crace-name", "Ann")
    host.click("[data-testid=crace-create]")
    host.wait_for_selector(".course-race[data-phase=lobby] [data-testid=crace-start]:visible")
    race_id = host.evaluate("location.hash").rsplit("/", 1)[1]
    guest.goto(f"{web_server.http}/?lang={loc}#/course/race/{race_id}")
    guest.fill("#crace-name", "Bob")
    guest.click("[data-testid=crace-join]")
    host.wait_for_selector(".crace-racer[data-seat='2']")
    host.click("[data-testid=crace-start]")

    stored = redis.Redis.from_url(str(web_server.settings.redis_url)).get(f"crace:{{{race_id}}}")
    course = CourseCode.parse(json.loads(stored)["course"])  # the test reads Redis: no page can
    host.wait_for_selector(".course-race[data-phase=running][data-hole='1'][data-status=playing][data-v='0']")
    shot(host, f"course-race-hole-{case}")
    assert host.locator("[data-testid=crace-code]").text_content() == ""  # hidden while the race is on
    keys, end = keys_of(course.hole(1))
    for key in keys:
        host.keyboard.press(key)
    host.wait_for_selector(f".course-race[data-status={end.status.value}]")
    host.click("[data-testid=crace-next]")
    host.wait_for_selector(".course-race[data-hole='2'][data-status=playing][data-v='0']")
    first = 35 - end.removed
    resign(host)
    host.wait_for_selector("[data-testid=crace-status]:visible")
    assert host.locator("[data-testid=crace-status]").text_content() == texts["race_waiting"]
    guest.wait_for_selector(".course-race[data-phase=running][data-hole='1'][data-status=playing]")
    resign(guest)

    holes = {"1": [first, *[35] * (HOLES - 1)], "2": [35] * HOLES}
    order = ["1", "2"]  # the host's played hole beats a full tableau
    for page in pages:
        page.wait_for_selector(".course-race[data-phase=finished] [data-testid=crace-code]:visible")
        assert page.locator("[data-testid=crace-code]").text_content() == str(course)
        rows = page.locator(".crace-racer")
        assert [rows.nth(i).get_attribute("data-seat") for i in range(2)] == order
        for i, seat in enumerate(order):
            assert rows.nth(i).locator("th").text_content().startswith({"1": "Ann", "2": "Bob"}[seat])
            cells = rows.nth(i).locator("td").all_text_contents()
            assert cells[0] == str(i + 1)  # the place
            assert cells[1 : 1 + HOLES] == [str(s) for s in holes[seat]]
            assert cells[1 + HOLES] == str(sum(holes[seat]))
        won = page.locator("[data-testid=crace-status]").text_content()
        assert won == texts["race_won"].format(
            name="Ann", strokes=sum(holes["1"]), to_par=to_par_text(sum(holes["1"]) - 45, loc)
        )
    shot(host, f"course-race-results-{case}")
    assert scan(host, "course race results") == []
    assert not errors, errors


def test_a_click_before_the_first_welcome_acts_as_its_player(new_context: Any, web_server: Any) -> None:
    """A first visit has no token until the server's welcome: a course race made in that instant waits for it
    and goes out as the player the welcome brings (it went out as nobody, and was refused, in the CI failure
    of stop 27). The welcome is held at the socket until the click was made, then let through."""
    page = new_context().new_page()
    held: list[Any] = []
    sockets: list[Any] = []
    released: list[bool] = []

    def hold(ws: Any) -> None:
        sockets.append(ws)
        server = ws.connect_to_server()
        server.on_message(lambda m: ws.send(m) if released else held.append(m))

    page.route_web_socket("**/ws", hold)
    posts: list[tuple[str, str | None]] = []  # each POST's path and Authorization

    def sent(r: Any) -> None:
        if r.method == "POST":
            posts.append((r.url, r.headers.get("authorization")))

    page.on("request", sent)
    page.goto(f"{web_server.http}/?lang=en#/course")
    for _ in range(200):  # the welcome reached the route (each playwright call lets its handlers run)
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "no welcome from the server"
    page.click("[data-testid=course-race-new]")
    page.fill("#crace-name", "Ann")
    page.click("[data-testid=crace-create]")
    assert page.evaluate("localStorage.getItem('golfrace.token')") is None  # the page has no token yet
    released.append(True)
    for message in held:
        sockets[0].send(message)
    page.wait_for_selector(".course-race[data-phase=lobby] [data-testid=crace-start]:visible")
    assert page.locator("#toast[data-kind=error]").count() == 0
    token = page.evaluate("localStorage.getItem('golfrace.token')")
    assert token
    assert [auth for url, auth in posts if url.endswith("/api/course-races")] == [f"Bearer {token}"]
