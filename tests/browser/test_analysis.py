"""Analyse in a real Chromium, in English and Hebrew, on a phone and a desktop: the seeds' Easy deal played
to the move that loses the win (the seeds' move 35 taken another way), then on to a stuck end; the stuck
dialog's Analyse opens the game with the solver beside it: the summary, the marked mistake, and the winning
line still open there stepped to the win on the board, by mouse and by keys."""

from __future__ import annotations

import time
from typing import Any

import pytest

from golfrace.analysis.core import analyse
from golfrace.engine import Draw, Game, Status, parse_moves
from golfrace.engine.i18n import catalog, plural_category
from golfrace.engine.solver import solve

from .helpers import EXAMPLE_CODE, EXAMPLE_WIN, deal, press, resign, shot
from .test_axe import AXE, scan

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
LOADED_MS = 30_000  # the analysis is made on the first visit (about 0.2 s of CPU; more on a loaded machine)
TO_MOVE_35 = (
    "d 5 2 d 7 4 d 5 5 6 6 1 6 d d 3 1 7 d 1 4 4 2 5 2 3 d 4 d 7 3 d d 2"  # tests/engine/test_seeds.py
)


def lost_game() -> list[str]:
    """The seeds' moves to move 35, then a move that loses the win, then the engine's first legal move
    until the game is stuck."""
    game = Game.new(EXAMPLE_CODE)
    tokens = TO_MOVE_35.split()
    for action in parse_moves(TO_MOVE_35):
        game = game.apply(action)
    for action in game.legal_actions():
        if solve(game.apply(action)).winnable is False:
            break
    while True:
        tokens.append("d" if isinstance(action, Draw) else str(action.column))
        game = game.apply(action)
        if game.status is not Status.PLAYING:
            return tokens
        action = game.legal_actions()[0]


def words(texts: dict[str, Any], token: str) -> str:
    return (
        texts["draw"] if token == "d" else texts["undo"] if token == "u" else texts["column"].format(n=token)
    )


def summary(loc: str, a: dict[str, Any]) -> str:
    texts = catalog(loc)["ui"]["analysis"]
    head = texts["summary"].format(par=a["par"], score=a["score"])
    mistakes = texts["mistakes"][plural_category(len(a["mistakes"]), loc)].format(
        n=len(a["mistakes"]), move=(a["mistakes"] or [""])[0]
    )
    inaccuracies = texts["inaccuracies"][plural_category(len(a["inaccuracies"]), loc)].format(
        n=len(a["inaccuracies"])
    )
    return f"{head}: {mistakes}, {inaccuracies}"


# both languages and both sizes in two runs: English on a desktop, Hebrew (RTL) on a phone
@pytest.mark.parametrize(
    ("loc", "viewport"), [("en", DESKTOP), ("he", PHONE)], ids=["en-desktop", "he-phone"]
)
def test_analyse_marks_the_move_that_lost_the_win_and_steps_the_line_still_open(
    new_context: Any, web_server: Any, loc: str, viewport: dict[str, int]
) -> None:
    tokens = lost_game()
    game = Game.new(EXAMPLE_CODE)
    for action in parse_moves(" ".join(tokens)):
        game = game.apply(action)
    expected = analyse(game.code, tokens, game.score, budget_s=30, clock=time.thread_time)
    assert expected["first_mistake"] == 35
    texts = catalog(loc)["ui"]["analysis"]
    page = new_context(viewport=viewport).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    for action in parse_moves(" ".join(tokens)):
        press(page, action)
    page.wait_for_selector("dialog.end.stuck[open] .analyse-end")
    assert page.text_content("dialog.end.stuck .analyse-end") == texts["open"]
    page.click("dialog.end.stuck .analyse-end")
    page.wait_for_selector(".analysis-view[data-loaded='1']", timeout=LOADED_MS)
    assert page.evaluate("document.documentElement.dir") == ("rtl" if loc == "he" else "ltr")
    assert page.text_content(".analysis-summary") == summary(loc, expected)
    assert page.text_content("#analysis-title") == texts["title"]
    # it opens on the move that lost the win, marked, its chip named for a screen reader
    assert page.get_attribute(".analysis-view", "data-pos") == "35"
    assert page.get_attribute(".analysis-verdict", "data-mark") == "mistake"
    chip = page.locator('.move-chip[data-n="35"]')
    assert "mistake" in (chip.get_attribute("class") or "") and chip.get_attribute("aria-current") == "step"
    label = chip.locator(".sr-only").text_content() or ""
    assert label.startswith(texts["move"].format(n=35, move=words(texts, tokens[34])))
    assert texts["mistake"] in label and texts["winnable"] in label
    assert page.get_by_role("button", name=label, exact=True).count() == 1, "the chip's accessible name"
    marked = page.eval_on_selector_all(".move-chip.mistake", "els => els.map(e => Number(e.dataset.n))")
    assert marked == expected["mistakes"]
    assert page.eval_on_selector_all(".move-chip.inaccuracy", "els => els.length") == len(
        expected["inaccuracies"]
    )
    shot(page, f"analysis-{loc}-{'phone' if viewport is PHONE else 'desktop'}")
    assert AXE.is_file(), "client_web/node_modules/axe-core is missing: cd client_web && npm ci"
    assert scan(page, "analysis") == []
    # the keys step through the game: ← is back in every language (the transport reads left to right)
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(".analysis-view[data-pos='34']")
    page.keyboard.press("Home")
    page.wait_for_selector(".analysis-view[data-pos='0']")
    assert page.text_content(".analysis-caption") == texts["start"]
    assert page.locator(".analysis-board .tableau .card").count() == 35
    # the line still open before move 35, step by step to the win
    page.keyboard.press("l")
    page.wait_for_selector(".analysis-view[data-mode='line'][data-pos='0']")
    assert page.text_content(".analysis-line-title") == texts["line_win"].format(n=35)
    line = expected["line"]["steps"]
    page.click(".a-next")
    page.wait_for_selector(".analysis-view[data-pos='1']")
    first = texts["line_step"].format(i=1, total=len(line), move=words(texts, line[0]["token"]))
    assert page.text_content(".analysis-caption") == first
    page.click(".a-last")
    page.wait_for_selector(f".analysis-view[data-pos='{len(line)}']")
    assert page.locator(".analysis-board .tableau .card").count() == 0, (
        "the line ends with the tableau cleared"
    )
    shot(page, f"analysis-line-{loc}-{'phone' if viewport is PHONE else 'desktop'}")
    assert scan(page, "analysis, the line") == []
    page.click(".a-line")
    page.wait_for_selector(".analysis-view[data-mode='game'][data-pos='34']")
    assert not errors, errors


@pytest.mark.parametrize("loc", ["en", "he"])
def test_another_browser_gets_the_refusal_in_its_language(
    new_context: Any, web_server: Any, loc: str
) -> None:
    """A solo game's analysis is its player's only: the game's address in another profile shows why not."""
    page = new_context(viewport=PHONE).new_page()
    page.goto(f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    game = page.evaluate("window.golfrace.state.game")
    other = new_context(viewport=PHONE).new_page()
    other.goto(f"{web_server.http}/?lang={loc}#/analysis/{game}")
    other.wait_for_selector(".analysis-view[data-loaded='error']", timeout=LOADED_MS)
    assert other.get_attribute(".analysis-error", "data-code") == "not_player"
    assert other.text_content(".analysis-error") == catalog(loc)["ui"]["errors"]["not_player"]
    page.goto(f"{web_server.http}/?lang={loc}#/analysis/{game}")  # its player, before the end
    page.wait_for_selector(".analysis-view[data-loaded='error']", timeout=LOADED_MS)
    assert page.text_content(".analysis-error") == catalog(loc)["ui"]["errors"]["game_not_ended"]


@pytest.mark.parametrize(
    ("loc", "viewport"), [("en", DESKTOP), ("he", PHONE)], ids=["en-desktop", "he-phone"]
)
def test_a_racer_analyses_their_seat_from_the_results_once_the_race_is_over(
    new_context: Any, web_server: Any, loc: str, viewport: dict[str, int]
) -> None:
    base = f"{web_server.http}/?lang={loc}"
    host = new_context(viewport=viewport).new_page()
    host.goto(base + "#/race")
    host.fill("#race-code", EXAMPLE_CODE)
    host.click(".race-create .create")
    host.wait_for_function("location.hash.startsWith('#/race/')")
    race = str(host.evaluate("location.hash.split('/')[2]"))
    guest = new_context(viewport=viewport).new_page()
    guest.goto(f"{base}#/race/{race}")
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    for page in (host, guest):
        page.wait_for_selector(".race-room[data-phase=running]")
    for key in ("d", "5", "2"):  # the seeds' opening, by the race's keys
        before = host.locator(".racer.me").text_content()
        host.keyboard.press(key)
        host.wait_for_function(
            "b => (document.querySelector('.racer.me')?.textContent ?? b) !== b", arg=before
        )
    assert host.locator(".results .analyse-seat").is_hidden()
    for page in (host, guest):
        resign(page)
    host.wait_for_selector(".results:not([hidden]) .analyse-seat:not([hidden])")
    link = host.locator(".results .analyse-seat")
    assert link.text_content() == catalog(loc)["ui"]["analysis"]["open"]
    assert link.get_attribute("href") == f"#/analysis/{race}-1"
    scores = host.locator(".results-table a.analyse-score")  # every seat's score opens its analysis
    assert scores.count() == 2
    assert sorted(a.get_attribute("href") or "" for a in scores.all()) == [
        f"#/analysis/{race}-1",
        f"#/analysis/{race}-2",
    ]
    link.click()
    host.wait_for_selector(".analysis-view[data-loaded='1']", timeout=LOADED_MS)
    assert host.get_attribute(".analysis-view", "data-pos") == "3"  # no mistake: it opens on the end
    assert host.locator(".move-chip").count() == 3 and host.locator(".move-chip.mistake").count() == 0
    texts = catalog(loc)["ui"]["analysis"]
    assert host.text_content(".analysis-summary").startswith(texts["summary"].format(par=350, score=0))
    shot(host, f"analysis-race-{loc}")


@pytest.mark.parametrize(
    ("loc", "viewport"), [("en", PHONE), ("he", DESKTOP)], ids=["en-phone", "he-desktop"]
)
def test_the_classic_loss_compares_the_most_cards_any_line_removes_with_the_players(
    new_context: Any, web_server: Any, loc: str, viewport: dict[str, int]
) -> None:
    code = "GO1-C-AAAAAAB"  # the seeds' example deal under Classic rules: no line wins it
    game, tokens = Game.new(code), []
    while game.status is Status.PLAYING:  # the whole stock first, then the engine's first removal
        action = Draw() if game.stock_count else game.legal_actions()[0]
        tokens.append("d" if isinstance(action, Draw) else str(action.column))
        game = game.apply(action)
    best = solve(Game.new(code))
    assert best.winnable is False and game.removed < best.best_removed
    page = new_context(viewport=viewport).new_page()
    page.goto(f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    deal(page, code)
    for action in parse_moves(" ".join(tokens)):
        press(page, action)
    page.wait_for_selector("dialog.end.stuck[open] .analyse-end")
    page.click("dialog.end.stuck .analyse-end")
    page.wait_for_selector(".analysis-view[data-loaded='1']", timeout=LOADED_MS)
    texts = catalog(loc)["ui"]["analysis"]
    never = page.locator(".analysis-never")
    assert never.is_visible()
    assert never.text_content() == texts["never"].format(best=best.best_removed, removed=game.removed)
    assert page.text_content(".analysis-summary").startswith(
        texts["summary"].format(par=best.par, score=game.score)
    )
    assert page.locator(".move-chip.mistake").count() == 0  # a deal never winnable has no mistake
    at_best = texts["best"][plural_category(game.removed, loc)].format(n=game.removed)  # the end: one card
    assert at_best in (page.text_content(".analysis-verdict") or "")
    shot(page, f"analysis-classic-{loc}")


@pytest.mark.parametrize(
    ("loc", "viewport"), [("en", DESKTOP), ("he", PHONE)], ids=["en-desktop", "he-phone"]
)
def test_the_easy_win_has_nothing_to_mark(
    new_context: Any, web_server: Any, loc: str, viewport: dict[str, int]
) -> None:
    """The seeds' Easy win, played by keys: the win dialog's Analyse shows nothing to mark in it."""
    page = new_context(viewport=viewport).new_page()
    page.goto(f"{web_server.http}/?lang={loc}")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    for action in EXAMPLE_WIN:
        press(page, action)
    page.wait_for_selector("dialog.end.won[open] .analyse-end")
    page.click("dialog.end.won .analyse-end")
    page.wait_for_selector(".analysis-view[data-loaded='1']", timeout=LOADED_MS)
    a = {"par": 350, "score": 350, "mistakes": [], "inaccuracies": []}
    assert page.text_content(".analysis-summary") == summary(loc, a)
    assert page.locator(".move-chip").count() == len(EXAMPLE_WIN)
    assert page.locator(".move-chip.mistake, .move-chip.inaccuracy").count() == 0
    assert page.locator(".a-line").is_hidden()  # no line to show: the game kept the win to the end
    assert page.get_attribute(".analysis-view", "data-pos") == str(len(EXAMPLE_WIN))
    other = "he" if loc == "en" else "en"  # a language chosen on the view relabels it in place
    page.select_option(".lang-select", other)
    page.wait_for_function(
        "t => document.querySelector('.analysis-summary')?.textContent === t", arg=summary(other, a)
    )
    chip = page.locator('.move-chip[data-n="1"] .sr-only').text_content() or ""
    assert chip.startswith(
        catalog(other)["ui"]["analysis"]["move"].format(n=1, move=catalog(other)["ui"]["analysis"]["draw"])
    )
