"""The Hint button and the H key in a real Chromium: the server's suggestion is highlighted on the board."""

from __future__ import annotations

from typing import Any

from golfrace.engine import Draw, Game, Tap
from golfrace.engine.i18n import catalog
from golfrace.live.hint_worker import think
from golfrace.settings import HintSettings

from .helpers import click, deal, shot

CODE = "GO1-E-AAAAAAB"  # winnable in Easy: the hint follows a winning line


def expected(game: Game) -> str:
    action, winnable, _best = think(game, HintSettings())
    assert winnable is True
    if isinstance(action, Tap):
        return f"tap:{action.column}"
    assert isinstance(action, Draw)
    return "draw"


def highlighted(page: Any, hint: str) -> None:
    """Wait for the hint and check that exactly the suggested card (or the stock) is highlighted."""
    page.wait_for_selector(f'.play[data-hint="{hint}"]')
    if hint == "draw":
        assert page.locator(".board .stock.hinted").count() == 1
    else:
        col = hint.split(":")[1]
        assert page.locator(f'.tableau .column[data-col="{col}"] .card.free.hinted').count() == 1
    assert page.locator(".board .hinted").count() == 1


def test_hint_button_and_key_highlight_the_suggested_move(page: Any) -> None:
    assert page.text_content(".play .hint") == catalog("en")["ui"]["hint"]
    deal(page, CODE)
    game = Game.new(CODE)
    for step in range(4):
        hint = expected(game)
        if step % 2 == 0:
            page.click(".play .hint")
        else:
            page.keyboard.press("h")
        highlighted(page, hint)
        if step == 0:
            shot(page, "play-hint")
        action: Tap | Draw = Draw() if hint == "draw" else Tap(int(hint.split(":")[1]))
        click(page, action)  # follow the hint; the next one is for the new position
        game = game.apply(action)
        page.evaluate("document.querySelector('.play').dataset.hint = ''")


def test_no_hint_button_in_race_and_daily_views(page: Any, web_server: Any) -> None:
    page.goto(web_server.http + "/#/race")
    page.wait_for_selector(".race-view")
    assert page.locator(".race-view .hint, .race-view [data-t='ui.hint']").count() == 0
    page.goto(web_server.http + "/#/daily")
    page.wait_for_selector(".daily-view[data-played]")
    assert page.locator(".daily-view .hint, .daily-view [data-t='ui.hint']").count() == 0
