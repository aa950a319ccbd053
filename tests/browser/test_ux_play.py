"""Play (issue 13: defects 3, 4, 6, 7 and the win, 11): the live region says what changed, the hint at the
start of an unwinnable deal, one rule for times (tenths on results), and a win that is a moment — the
cascade (none with reduced motion), the optional chime, score, time, personal best, "unranked" and why, then
Share, Rematch or a race of a friend on the deal. English and Hebrew, phone and desktop where layout
matters."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from golfrace.engine import Card, Draw, Game, Tap, Undo
from golfrace.engine.actions import Action
from golfrace.engine.describe import describe
from golfrace.engine.i18n import card_name, catalog

from .conftest import REPO
from .helpers import (
    EXAMPLE_CODE,
    EXAMPLE_WIN,
    click,
    deal,
    dealt,
    press,
    resign,
    running_race,
    shot,
    version,
    wait_version,
)
from .test_ux_board import SIZES, play_page

UNWINNABLE = "GO1-E-AAAGTSR"  # the solver proves that this Easy deal cannot be won


def live(page: Any, text: str) -> None:
    page.wait_for_function("text => document.getElementById('live').textContent === text", arg=text)


def toast(page: Any, text: str) -> None:
    page.wait_for_function("text => document.querySelector('#toast.show')?.textContent === text", arg=text)


def hint_toast(page: Any, text: str) -> None:
    """The hint was answered (``data-hint`` names a move) and its toast said `text`. The toast's text stays
    after it fades (2.6 s), so a page starved by the other test workers cannot fade it before it is read."""
    page.wait_for_function(
        "() => /^(tap:|draw)/.test(document.querySelector('.play')?.dataset.hint ?? '')", timeout=60_000
    )
    page.wait_for_function("text => document.getElementById('toast')?.textContent === text", arg=text)


QUIET = ("--log-level=error",)
"""esbuild says only errors."""


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_live_region_says_only_what_changed(new_context: Any, web_server: Any, loc: str) -> None:
    page = play_page(new_context, web_server.http, loc, "desktop")
    deal(page, EXAMPLE_CODE)
    said = catalog(loc)["ui"]["announce"]

    def name(code: str) -> str:
        return card_name(Card.parse(code), loc)

    game = Game.new(EXAMPLE_CODE)
    press(page, Draw())
    game = game.apply(Draw())
    assert game.discard is not None
    stock = said["stock"]["few"].format(n=game.stock_count)
    live(page, f"{said['to_discard'].format(card=name(str(game.discard)))}; {stock}")
    press(page, Tap(5))  # the issue's own example: 9♣ to the discard, 8♥ left in column 5
    game = game.apply(Tap(5))
    free = game.free_card(4)
    assert str(game.discard) == "9C" and str(free) == "8H"
    shows = said["column_shows"].format(n=5, card=name(str(free)))
    text = f"{said['to_discard'].format(card=name('9C'))}; {shows}; {stock}"
    live(page, text)
    if loc == "en":
        assert text == "9 of clubs to the discard; column 5 shows 8 of hearts; 15 in the stock"
    assert len(text) < 120  # not the whole board (~700 characters)
    press(page, Undo())
    game = game.apply(Undo())
    assert game.discard is not None
    back = said["back_to_column"].format(card=name("9C"), n=5)
    live(page, f"{back}; {said['discard_shows'].format(card=name(str(game.discard)))}; {stock}")
    page.keyboard.press("b")  # the whole board, one key away
    live(page, describe(game, loc))
    assert page.text_content(".keys-hint") is not None
    assert catalog(loc)["ui"]["key_read_board"] in (page.text_content(".keys-hint") or "")
    assert not page.errors


@pytest.mark.parametrize("loc", ["en", "he"])
def test_the_hint_at_the_start_of_an_unwinnable_deal(new_context: Any, web_server: Any, loc: str) -> None:
    page = play_page(new_context, web_server.http, loc, "desktop")
    texts = catalog(loc)["ui"]
    deal(page, UNWINNABLE)
    page.click(".play .hint")
    hint_toast(page, texts["hint_unwinnable"])  # move 0: nothing was lost, the deal itself can't be won
    hint = page.get_attribute(".play", "data-hint") or ""
    action: Tap | Draw = Tap(int(hint.split(":")[1])) if hint.startswith("tap:") else Draw()
    page.evaluate(
        "const t = document.getElementById('toast'); t.classList.remove('show'); t.textContent = '';"
        "delete document.querySelector('.play').dataset.hint"
    )
    click(page, action)
    page.click(".play .hint")
    hint_toast(page, texts["hint_lost"])
    assert not page.errors


# format.js's one rule for times: a result reads m:ss.t, a running clock or a duration m:ss
TIMES = """
const race = { starts_at: 1_000, ended_at: null, phase: "running" };
const now = 62_789;
console.log(JSON.stringify({
  final: [61_234, 61_789, 5, 0, null].map((ms) => clock(ms, { final: true })),
  running: [61_234, 61_999, 0, -20, null].map((ms) => clock(ms)),
  playing: progressLine(race, { status: "playing", removed: 3, elapsed: 0 }, now).split(" · ").at(-1),
  won: progressLine(race, { status: "won", removed: 35, elapsed: 58_470 }, now).split(" · ").at(-1),
}));
"""


def test_one_rule_for_times() -> None:
    """format.js's clock(), bundled by the project's esbuild and run by Node: a result with tenths (cut, not
    rounded), a running clock in whole seconds, and a racer's line switching once their game is over."""
    node, npx = shutil.which("node"), shutil.which("npx")
    if node is None or npx is None:
        pytest.skip("node is not installed")
    cwd = REPO / "client_web"
    bundle = subprocess.run(
        [npx, "esbuild", "src/ui/format.js", "--bundle", "--format=esm", "--platform=node", *QUIET],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    out = subprocess.run(
        [node, "--input-type=module"],  # the program on stdin: the bundle is over an argument's size limit
        input=bundle + TIMES,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert json.loads(out.stdout) == {
        "final": ["1:01.2", "1:01.7", "0:00.0", "0:00.0", "—"],
        "running": ["1:01", "1:01", "0:00", "0:00", "—"],
        "playing": "1:01",  # its clock runs from the start: 61.789 s, in whole seconds
        "won": "0:58.4",  # done: the time the server sent, as a result
    }


def win(page: Any, by: Callable[[Any, Action], None] = click) -> None:
    """The example deal won by mouse (each click waits for the last card's flight to end: the card must hold
    still to be clicked), or ``by=press``: the same moves from the keyboard, without that wait."""
    for action in EXAMPLE_WIN:
        by(page, action)


# both languages and both sizes, in two runs (each run is 8–15 s: the suite stays under its time)
@pytest.mark.parametrize(("loc", "size"), [("en", "desktop"), ("he", "phone")])
def test_a_win_is_a_moment(new_context: Any, web_server: Any, loc: str, size: str) -> None:
    page = play_page(new_context, web_server.http, loc, size)
    texts = catalog(loc)["ui"]
    page.click(".hud .new")  # the sound is off until the player turns it on
    sound = page.locator("dialog.new-game input[name=sound]")
    assert not sound.is_checked()
    sound.check()
    page.click("dialog.new-game .cancel")
    deal(page, EXAMPLE_CODE)
    win(page)
    page.wait_for_selector("[data-testid=win-dialog]")
    assert page.locator(".cascade .card").count() == 16  # the cascade, over the page
    shot(page, f"ux-win-cascade-{size}-{loc}")
    dlg = page.locator("[data-testid=win-dialog]")
    assert dlg.locator(".won-score").text_content() == "350"
    assert re.fullmatch(r"\d+:\d\d\.\d", dlg.locator(".won-time").text_content() or "")
    assert (dlg.locator(".won-best").text_content() or "").startswith("350 · ")
    # the best reads score, then time, in the page's direction: in Hebrew the score stands on the right
    parts = dlg.locator(".won-best bdi")
    assert parts.all_text_contents() == ["350", dlg.locator(".won-time").text_content()]
    score_x, time_x = (box["x"] for box in (p.bounding_box() for p in parts.all()) if box)
    assert (score_x > time_x) == (loc == "he"), (score_x, time_x)
    assert dlg.locator(".won-par").text_content() == texts["par"].format(n=350)
    assert dlg.locator(".won-rank").text_content() == texts["unranked"]
    assert dlg.locator(".unranked-why").text_content() == texts["unranked_solo"]
    for button, key in [
        (".share-end", "share"),
        (".again-end", "same_deal_again"),
        (".race-end", "race_friend"),
    ]:
        assert dlg.locator(button).is_visible() and dlg.locator(button).text_content() == texts[key]
    assert page.evaluate("window.golfrace.metrics.chimes") == 1
    page.wait_for_selector(".cascade", state="detached", timeout=10_000)  # a short moment
    cascade = page.evaluate("window.golfrace.metrics.cascade")
    assert cascade["frames"] > 0
    box = dlg.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["width"]
    shot(page, f"ux-win-dialog-{size}-{loc}")
    # Rematch: the same deal again, and Race a friend: a race on this code, in its lobby
    dlg.locator(".again-end").click()
    dealt(page, EXAMPLE_CODE)
    assert page.locator("[data-testid=win-dialog]").count() == 0
    win(page, by=press)  # the first win was by mouse
    dlg = page.locator("[data-testid=win-dialog]")
    dlg.wait_for()
    dlg.locator(".race-end").click()
    page.wait_for_function("location.hash.startsWith('#/race/r')")
    page.wait_for_selector(".race-room .lobby-actions:not([hidden])")
    assert EXAMPLE_CODE in (page.text_content(".race-meta") or "")
    assert texts["casual"] in (page.text_content(".race-meta") or "")
    assert not page.errors


def test_no_cascade_with_reduced_motion(new_context: Any, web_server: Any) -> None:
    page = new_context(viewport=SIZES["desktop"], reduced_motion="reduce").new_page()
    page.goto(web_server.http + "/")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    win(page)
    page.wait_for_selector("[data-testid=win-dialog]")
    assert page.locator(".cascade").count() == 0
    assert page.evaluate("window.golfrace.metrics.chimes ?? 0") == 0  # and no sound: it is off by default
    v = version(page)
    assert v == len(EXAMPLE_WIN)
    wait_version(page, v)


@pytest.mark.parametrize("loc", ["en", "he"])
def test_a_race_on_a_typed_code_says_it_does_not_rank(new_context: Any, web_server: Any, loc: str) -> None:
    ui = catalog(loc)["ui"]
    host, guest, _race = running_race(new_context, web_server.http)  # the example deal's code, typed
    for page in (host, guest):
        page.select_option(".lang-select", loc)
        resign(page)
    for page in (host, guest):
        page.wait_for_selector(".results:not([hidden])")
        assert page.text_content(".results .unranked-why") == f"{ui['unranked']}: {ui['unranked_typed']}"
    shot(host, f"ux-race-unranked-{loc}")
    for page in (host, guest):
        assert not page.errors, page.errors
