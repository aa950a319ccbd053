"""The terminal game (``golfrace play`` without moves) driven by textual's own test pilot: the keys of the
web client, undo, hints from the solver, the refusal and stuck texts of each catalog, the win."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from golfrace.engine import Game, GameCode, Tap, parse_moves, replay
from golfrace.engine.i18n import LOCALES, catalog, refusal_message, stuck_message
from golfrace.engine.solver import solve
from golfrace.terminal.apps import SoloApp, move_words
from golfrace.terminal.board import face, tui_text
from golfrace.terminal.links import LinkError, race_link

from ..engine.test_seeds import MOVE_35, TO_MOVE_35, TO_THE_WIN

pytestmark = pytest.mark.timeout(120)
EXAMPLE = GameCode.parse("GO1-E-AAAAAAB")
SIZE = (100, 36)
KEYS = {"d": "d", "u": "u"}


async def until(pilot: Any, condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.02)


def keys(tokens: str) -> list[str]:
    return [KEYS.get(t, t) for t in tokens.split()]


def columns(game: Game) -> list[list[str]]:
    return [[c.code for c in col] for col in game.columns]


@pytest.mark.parametrize("lang", LOCALES)
async def test_the_keys_play_undo_and_refuse_in_each_language(lang: str) -> None:
    app = SoloApp(EXAMPLE, lang)
    async with app.run_test(size=SIZE) as pilot:
        assert tui_text("code", lang, code=EXAMPLE) in app.shown("head")
        assert app.shown("keys") == catalog(lang)["ui"]["tui"]["keys"]
        await pilot.press("1")  # the 6H does not fit the AC: refused, nothing changes
        assert app.shown("message") == refusal_message("not_adjacent", lang)
        assert app.game == Game.new(EXAMPLE)
        await pilot.press("space", "5", "2")  # the seeds' opening: draw, 9C from column 5, 8C from column 2
        opening = replay(EXAMPLE, parse_moves("d 5 2"))
        assert columns(app.game) == columns(opening) and app.game.discard == opening.discard
        assert app.shown("message") == ""
        board = app.shown("board")
        assert tui_text("discard", lang, card=face("8C", lang)) in board
        assert tui_text("stock", lang, n=15) in board
        await pilot.press("u")
        assert columns(app.game) == columns(replay(EXAMPLE, parse_moves("d 5")))
        await pilot.press("ctrl+z")  # the 9C back to column 5
        assert columns(app.game) == columns(Game.new(EXAMPLE)) and app.game.stock_count == 15
        await pilot.press("u")  # the draw
        assert app.game.stock_count == 16
        await pilot.press("u")
        assert app.shown("message") == refusal_message("nothing_to_undo", lang)


async def test_hint_names_the_solvers_move_and_a_new_game_deals_another() -> None:
    app = SoloApp(EXAMPLE, "ro")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await until(pilot, lambda: app.message != "", "the hint")
        first = solve(Game.new(EXAMPLE)).line[0]
        assert app.shown("message") == tui_text("hint", "ro", move=move_words(first, "ro"))
        await pilot.press("n")
        assert app.game.code != EXAMPLE and app.game.moves == 0 and app.shown("message") == ""


async def test_the_hebrew_layout_letters_draw_and_undo() -> None:
    app = SoloApp(EXAMPLE, "he")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ג")
        assert app.game.stock_count == 15
        await pilot.press("ו")
        assert app.game.stock_count == 16
        assert app.shown("keys") == catalog("he")["ui"]["tui"]["keys"]


async def test_the_seeds_win_by_keys_and_a_stuck_end_says_so() -> None:
    app = SoloApp(EXAMPLE, "ms")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*keys(f"{TO_MOVE_35} {MOVE_35} {TO_THE_WIN}"))
        assert app.game.status.value == "won"
        assert app.shown("message") == tui_text("won", "ms", score=350)
        await pilot.press("h")
        assert app.shown("message") == tui_text("hint_none", "ms")
    stuck = SoloApp(EXAMPLE, "he")
    async with stuck.run_test(size=SIZE) as pilot:
        await pilot.press(*(["d"] * 16))
        while stuck.game.status.value == "playing":
            action = stuck.game.legal_actions()[0]
            assert isinstance(action, Tap)
            await pilot.press(str(action.column))
        assert stuck.shown("message") == stuck_message("he")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8000/r/rAbCdEfGhIjK", ("ws://127.0.0.1:8000/ws", "rAbCdEfGhIjK")),
        ("https://golf.example/#/race/rAbCdEfGhIjK", ("wss://golf.example/ws", "rAbCdEfGhIjK")),
        ("http://h:1/watch/rAbCdEfGhIjK/", ("ws://h:1/ws", "rAbCdEfGhIjK")),
        ("http://h:1/#/watch/rAbCdEfGhIjK", ("ws://h:1/ws", "rAbCdEfGhIjK")),
    ],
)
def test_race_links(url: str, expected: tuple[str, str]) -> None:
    assert race_link(url) == expected


@pytest.mark.parametrize("url", ["rAbCdEfGhIjK", "ftp://h/r/x", "http://h:1/", "http://h:1/r/"])
def test_a_bad_race_link_is_refused(url: str) -> None:
    with pytest.raises(LinkError):
        race_link(url)
