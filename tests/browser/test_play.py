"""Play in a real Chromium: a game won by clicks, a stuck game undone, refusal explanations on and off."""

from __future__ import annotations

from typing import Any

from golfrace.engine import Draw
from golfrace.engine.i18n import catalog, refusal_message, stuck_message

from .helpers import (
    EXAMPLE_CODE,
    click,
    deal,
    press,
    settled,
    shot,
    stuck_line,
    version,
    wait_version,
    winning_line,
)

WIN_CODE = "GO1-E-AAAAAAB"  # the rules page's example deal
STUCK_CODE = "GO1-C-AAAAAAB"  # the same deal under Classic rules


def test_a_whole_game_won_by_clicks(page: Any) -> None:
    shot(page, "play-start")
    line = winning_line(WIN_CODE)
    deal(page, WIN_CODE)
    assert page.text_content("[data-testid=rules]") == "Easy"
    for action in line:
        click(page, action)
    page.wait_for_selector("[data-testid=win-dialog]")
    assert page.text_content(".play .score") == "350"
    assert page.text_content("[data-testid=win-dialog] .end-summary") == f"350 points in {len(line)} moves"
    assert page.locator(".tableau .card").count() == 0
    shot(page, "play-won")


def test_a_stuck_game_offers_undo_and_new_game(page: Any) -> None:
    line = stuck_line(STUCK_CODE)
    deal(page, STUCK_CODE)
    for action in line:
        click(page, action)
    dialog = page.wait_for_selector("[data-testid=stuck-dialog]")
    assert dialog.query_selector("h2").text_content() == stuck_message("en")  # the seeds' text verbatim
    assert page.get_attribute(".play", "data-status") == "stuck"
    stuck_score = int(page.text_content(".play .score"))
    shot(page, "play-stuck")

    v = version(page)
    page.click("[data-testid=stuck-dialog] .undo-end")
    wait_version(page, v + 1)
    page.wait_for_selector("[data-testid=stuck-dialog]", state="detached")
    assert page.get_attribute(".play", "data-status") == "playing"
    # undo takes the stuck penalty back: 10 per removed card again
    removed = 35 - page.locator(".tableau .card").count()
    assert int(page.text_content(".play .score")) == removed * 10 >= stuck_score

    # back to stuck by the same last move, then a new game from the dialog
    click(page, line[-1])
    page.click("[data-testid=stuck-dialog] .new-end")
    page.wait_for_selector("dialog.new-game")
    page.click("dialog.new-game .deal")  # empty code: a random deal
    page.wait_for_selector("dialog.new-game", state="detached")
    page.wait_for_function("document.querySelector('.play')?.dataset.status === 'playing'")


def test_refusal_explanations_on_and_off(page: Any) -> None:
    deal(page, WIN_CODE)
    # the seeds' example refusals: 10♠ on row 4 of column 1 is blocked; 6♥ (column 1) is not next to A♣
    page.click('.column[data-col="1"] .card[data-row="4"]', position={"x": 12, "y": 10})
    toast = page.locator("#toast.show")
    toast.wait_for()
    assert toast.text_content() == refusal_message("blocked", "en")
    page.click('.column[data-col="1"] .card.free')
    page.wait_for_function(
        "text => document.querySelector('#toast.show')?.textContent === text",
        arg=refusal_message("not_adjacent", "en"),
    )
    shot(page, "play-refusal")

    # turn the interactive rules off in the New game dialog: a refused tap then does nothing visible
    page.click(".hud .new")
    box = page.locator("dialog.new-game input[name=interactive]")
    assert box.is_checked()  # on by default
    box.uncheck()
    page.click("dialog.new-game .cancel")
    page.evaluate("document.getElementById('toast').classList.remove('show')")
    v = version(page)
    page.click('.column[data-col="1"] .card.free')
    page.click('.column[data-col="1"] .card[data-row="4"]', position={"x": 12, "y": 10})
    settled(page)  # both taps are answered (refused) and the answers handled: no refusal is shown
    assert page.locator("#toast.show").count() == 0
    assert version(page) == v
    # and on again after a reload: the choice is remembered
    page.reload()
    page.wait_for_selector(".play[data-v]")
    page.click(".hud .new")
    assert not page.locator("dialog.new-game input[name=interactive]").is_checked()


def test_new_game_dialog_checks_the_code_inline(page: Any) -> None:
    page.click(".hud .new")
    field = page.locator("#code-input")
    errors = catalog("en")["ui"]["code_errors"]
    field.fill("GO1-E-AAAA")  # unfinished while typing: no error yet, until the field is left
    page.wait_for_function("document.getElementById('code-input').value === 'GO1-E-AAAA'")
    assert page.locator("#code-error").is_hidden()
    field.blur()
    page.wait_for_function(
        "text => document.getElementById('code-error').textContent === text", arg=errors["length"]
    )
    for text, part in [
        ("XX1-E-AAAAAAB", "prefix"),
        ("GO1-Z-AAAAAAB", "rules"),
        ("GO1-E-" + "A" * 27, "length"),  # 8 to 25 letters may still become a long code (26)
        ("GO1-E-AAAA1AB", "character"),
        ("GO1-E-AAAAAAB-J3", "variant"),
    ]:
        field.fill(text)  # none of these can become a code by typing more: the error shows at once
        page.wait_for_function(
            "text => document.getElementById('code-error').textContent === text", arg=errors[part]
        )
        assert field.get_attribute("aria-invalid") == "true"
    shot(page, "new-game-dialog-error")
    page.click("dialog.new-game .deal")  # refused on our side: the dialog stays open
    assert page.locator("dialog.new-game[open]").count() == 1

    field.fill("go1-n-aaaaaab")  # old N spelling, lower case: valid, and it means Easy
    assert page.locator("#code-error").is_hidden()
    assert page.locator("input[name=rules][value=easy]").is_checked()
    page.click("input[name=rules][value=classic]")  # the same deal under the other rules
    assert field.input_value() == "GO1-C-AAAAAAB"
    page.click("dialog.new-game .deal")
    page.wait_for_function("document.querySelector('[data-testid=code]')?.textContent === 'GO1-C-AAAAAAB'")
    assert page.text_content("[data-testid=rules]") == "Classic"
    shot(page, "play-classic")


def test_a_refused_covered_card_leaves_no_trace_once_play_goes_on(page: Any) -> None:
    deal(page, EXAMPLE_CODE)
    covered = '.column[data-col="3"] .card[data-row="4"]'
    page.click(covered, position={"x": 12, "y": 10})  # blocked: refused, and explained
    page.locator("#toast.show").wait_for()
    press(page, Draw())  # a key press: the keyboard's focus ring shows from now on
    assert page.locator("#toast.show").count() == 0  # the refusal's explanation went with the next move
    # the covered card is not raised over the free card that covers it
    on_top = page.evaluate(
        """() => {
          const free = document.querySelector('.column[data-col="3"] .card.free').getBoundingClientRect();
          return document.elementFromPoint(free.x + free.width / 2, free.y + free.height / 2)
            .closest('.card').classList.contains('free');
        }"""
    )
    assert on_top
    assert not page.evaluate(f"document.activeElement === document.querySelector('{covered}')")


def test_the_hud_keeps_its_height_when_the_code_shows(page: Any) -> None:
    """A random game shows "—" until it ends, then its code: the board must not jump when it does."""
    assert page.text_content("[data-testid=code]") == "—"
    hud = page.locator(".play .hud").bounding_box()
    deal(page, EXAMPLE_CODE)  # the same as a random game's end: the code appears
    shown = page.locator(".play .hud").bounding_box()
    assert hud is not None and shown is not None
    assert shown["height"] == hud["height"]
    # one row at this desktop width in every language: the buttons stand level with the code
    for loc in ("en", "ro", "ms", "he"):
        page.select_option(".lang-select", loc)
        page.wait_for_function("loc => document.documentElement.lang === loc", arg=loc)
        code = page.locator(".play .hud .code").bounding_box()
        new = page.locator(".play .hud .new").bounding_box()
        assert code is not None and new is not None
        assert abs((code["y"] + code["height"] / 2) - (new["y"] + new["height"] / 2)) < 8, loc


def test_a_toast_does_not_follow_the_player_to_another_view(page: Any) -> None:
    deal(page, WIN_CODE)
    page.click('.column[data-col="1"] .card[data-row="4"]', position={"x": 12, "y": 10})  # blocked
    page.locator("#toast.show").wait_for()
    page.click(".nav a[data-view=daily]")
    page.wait_for_selector(".daily-view[data-played]")
    assert page.locator("#toast.show").count() == 0  # it would show for 2.6 s
