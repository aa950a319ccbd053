"""Learning to play (issue 13.13): the first visit's walkthrough on the seeds' example deal, skipping and
replaying it, the rules page's example drawn as cards with "Play this deal", and the playable-cards aid (never
in a race). In English and Hebrew, on a phone (390×844) and a desktop (1440×900), with screenshots."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace.engine import Draw, Game, Tap

from .helpers import EXAMPLE_CODE, deal, host_race, nav_to, shot

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
SCREENS = [("en", PHONE), ("en", DESKTOP), ("he", PHONE), ("he", DESKTOP)]
IDS = ["en-phone", "en-desktop", "he-phone", "he-desktop"]
EXAMPLE_LINE = [Draw(), Tap(5), Tap(2)]  # the seeds' example: draw 8♠, 9♣ from column 5, 8♣ from column 2


def visit(new_context: Any, url: str, viewport: dict[str, int], first_visit: bool = False) -> Any:
    phone = viewport == PHONE
    ctx = new_context(viewport=viewport, first_visit=first_visit, has_touch=phone, is_mobile=phone)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.errors = errors
    return page


def columns_shown(page: Any, board: str) -> list[list[str]]:
    return page.evaluate(
        """sel => [...document.querySelectorAll(sel + ' .column')].map(
             c => [...c.querySelectorAll('.card')].map(e => e.dataset.card))""",
        board,
    )


def engine_columns(game: Game) -> list[list[str]]:
    return [[c.code for c in col] for col in game.columns]


def discard_shown(page: Any, board: str) -> str | None:
    # the top card (a card flying onto the discard has the old top card under it until it lands)
    return page.evaluate(
        f"document.querySelector('{board} .discard > .card:not(.under)')?.dataset.card ?? null"
    )


def settled(page: Any, selector: str) -> None:
    """Wait until what moves under ``selector`` has landed (the highlight's endless glow aside): screenshots
    of a card in mid-flight, or of a dialog still fading in, say nothing."""
    page.wait_for_function(
        "sel => { const el = document.querySelector(sel); return !!el && el.getAnimations({ subtree: true })"
        ".every(a => a.effect.getTiming().iterations === Infinity); }",
        arg=selector,
    )


def on_screen(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None, selector
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] + 1 and box["y"] + box["height"] <= size["height"] + 1, (
        selector,
        box,
        size,
    )


# whether every card named in an element's text ("9♣", "10♥") has its suit drawn right of its rank
CARD_NAMES_READ_LTR = """box => {
  const walk = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  let named = 0, inOrder = true;
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const x = (i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                       return r.getBoundingClientRect().left; };
    for (const m of node.textContent.matchAll(/(10|[2-9AJQK])([♣♦♥♠])/g)) {
      named += 1;
      inOrder &&= x(m.index + m[1].length - 1) < x(m.index + m[1].length);
    }
  }
  return [named, inOrder];
}"""


@pytest.mark.parametrize(("lang", "viewport"), SCREENS, ids=IDS)
def test_first_visit_walkthrough_plays_the_example(
    new_context: Any, web_server: Any, lang: str, viewport: dict[str, int]
) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={lang}", viewport, first_visit=True)
    walk = "dialog.walkthrough"
    page.wait_for_selector(f"{walk}[open][data-step=intro]")
    assert page.get_attribute("html", "dir") == ("rtl" if lang == "he" else "ltr")
    game = Game.new(EXAMPLE_CODE)
    assert columns_shown(page, walk) == engine_columns(game)
    assert discard_shown(page, walk) == game.discard.code
    settled(page, walk)
    shot(page, f"learn-intro-{lang}-{viewport['width']}")
    page.click(f"{walk} .next")
    page.wait_for_selector(f"{walk}[data-step=draw]")
    # the stock is the card to play: highlighted, on screen; another card is refused with a word
    on_screen(page, f"{walk} .stock")
    assert "hinted" in (page.get_attribute(f"{walk} .stock", "class") or "")
    page.click(f'{walk} .column[data-col="1"] .card.free')
    page.wait_for_function(f"document.querySelector('{walk} .walk-wrong')?.textContent.length > 0")
    assert page.get_attribute(walk, "data-step") == "draw"
    for action, step in zip(EXAMPLE_LINE, ("nine", "eight", "done"), strict=True):
        if isinstance(action, Draw):
            page.click(f"{walk} .stock")
        else:
            target = f'{walk} .column[data-col="{action.column}"] .card.free'
            on_screen(page, target)
            assert "hinted" in (page.get_attribute(target, "class") or "")
            page.click(target)
        page.wait_for_selector(f"{walk}[data-step={step}]")
        game = game.apply(action)
        assert columns_shown(page, walk) == engine_columns(game), step
        assert discard_shown(page, walk) == game.discard.code, step
        # a card named in the text reads rank then suit, left to right, in Hebrew too ("9♣", never "♣9")
        named, in_order = page.locator(f"{walk} .walk-text").evaluate(CARD_NAMES_READ_LTR)
        assert in_order and (named > 0 or step == "done"), (step, named)
        if step == "nine":
            settled(page, walk)
            shot(page, f"learn-step-{lang}-{viewport['width']}")
    assert game.discard.code == "8C" and game.score == 20
    settled(page, walk)
    shot(page, f"learn-done-{lang}-{viewport['width']}")
    page.click(f"{walk} .next")  # "Start playing"
    page.wait_for_selector(walk, state="detached")
    page.wait_for_selector(".play[data-v]")
    # seen: the next visit starts on the board
    page.reload()
    page.wait_for_selector(".play[data-v]")
    assert page.locator(walk).count() == 0
    assert not page.errors


@pytest.mark.parametrize(("lang", "viewport"), SCREENS, ids=IDS)
def test_rules_page_shows_the_example_and_plays_it(
    new_context: Any, web_server: Any, lang: str, viewport: dict[str, int]
) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={lang}", viewport, first_visit=True)
    page.wait_for_selector("dialog.walkthrough[open]")
    page.keyboard.press("Escape")  # skipped
    page.wait_for_selector("dialog.walkthrough", state="detached")
    nav_to(page, "rules")
    page.wait_for_selector(f".rules-view[data-loaded={lang}] .rules-body .rules-example")
    board = ".rules-example .example-table"
    assert columns_shown(page, board) == engine_columns(Game.new(EXAMPLE_CODE))
    steps = page.evaluate(
        f"[...document.querySelectorAll('{board} .card[data-step]')]"
        ".map(c => [c.dataset.step, c.dataset.card])"
    )
    assert sorted(steps) == [["1", "9C"], ["2", "8C"]]
    assert page.text_content(".rules-example .example-caption bdi") == EXAMPLE_CODE
    assert page.locator(".rules-example .example-caption").evaluate(CARD_NAMES_READ_LTR) == [3, True]
    page.locator(".rules-example").scroll_into_view_if_needed()
    shot(page, f"learn-rules-{lang}-{viewport['width']}")
    # the walkthrough again, from the rules
    page.click(".rules-example .replay-walk")
    page.wait_for_selector("dialog.walkthrough[open][data-step=intro]")
    page.click("dialog.walkthrough .skip")
    page.wait_for_selector("dialog.walkthrough", state="detached")
    page.click(".rules-example .play-example")
    page.wait_for_function(
        "code => location.hash === '#/' && document.querySelector('[data-testid=code]')?.textContent === code"
        " && document.querySelector('.play')?.dataset.v === '0'",
        arg=EXAMPLE_CODE,
    )
    assert columns_shown(page, ".play .board") == engine_columns(Game.new(EXAMPLE_CODE))
    assert not page.errors


@pytest.mark.parametrize(("lang", "viewport"), SCREENS, ids=IDS)
def test_playable_cards_aid_in_play_but_never_in_a_race(
    new_context: Any, web_server: Any, lang: str, viewport: dict[str, int]
) -> None:
    page = visit(new_context, f"{web_server.http}/?lang={lang}#/rules", viewport)
    page.wait_for_selector(".rules-example .aid-switch input")
    page.check(".rules-example .aid-switch input")
    page.click(".nav a[data-view=play]")
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    game = Game.new(EXAMPLE_CODE)

    def marked() -> list[int]:
        return page.evaluate(
            "[...document.querySelectorAll('.play .card.playable')].map(c => +c.parentElement.dataset.col)"
        )

    assert marked() == []  # A♣ on the discard: nothing fits
    for action in EXAMPLE_LINE:
        v = int(page.get_attribute(".play", "data-v"))
        page.click(
            ".board .stock" if isinstance(action, Draw) else f'.column[data-col="{action.column}"] .card.free'
        )
        page.wait_for_selector(f'.play[data-v="{v + 1}"]')
        game = game.apply(action)
        page.wait_for_function(
            "cols => JSON.stringify([...document.querySelectorAll('.play .card.playable')]"
            ".map(c => +c.parentElement.dataset.col)) === JSON.stringify(cols)",
            arg=[c + 1 for c in game.playable_columns()],
        )
        if isinstance(action, Draw):
            settled(page, ".play .board")
            shot(page, f"learn-aid-{lang}-{viewport['width']}")
    assert marked() == [c + 1 for c in game.playable_columns()]
    # a race (ranked): the same player's board is never marked
    host, race_id = host_race(new_context, web_server.http)
    host.close()
    page.goto(f"{web_server.http}/?lang={lang}#/race/{race_id}")
    page.wait_for_selector(".race-room")
    assert page.evaluate("document.querySelectorAll('.card.playable').length") == 0
    assert page.evaluate("localStorage.getItem('golfrace.aid')") == "on"
    assert not page.errors
