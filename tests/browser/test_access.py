"""Keyboard-only play, accessible names and the board description, languages and the Hebrew layout."""

from __future__ import annotations

from typing import Any

from golfrace.engine import Draw, Game, Tap, Undo
from golfrace.engine.describe import describe
from golfrace.engine.i18n import card_name, catalog, refusal_message

from .helpers import EXAMPLE_CODE, REPO, deal, press, replay, resign, shot, version, wait_version

FOCUSED_CARD = "document.activeElement && document.activeElement.classList.contains('card')"


def test_keyboard_only_play(page: Any) -> None:
    deal(page, EXAMPLE_CODE)
    # Tab reaches the free cards, and the focused one is visibly outlined
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED_CARD):
            break
    assert page.evaluate(FOCUSED_CARD)
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")

    line = [Draw(), Tap(5), Tap(2)]  # the seeds' opening: draw 8♠, 9♣ from column 5, 8♣ from column 2
    for action in line:
        press(page, action)
    game = replay(EXAMPLE_CODE, line)
    assert page.text_content(".play .moves") == "3"
    assert page.text_content(".play .score") == "20"
    # the polite live region says what the move changed; B reads the engine's own description of the board
    page.wait_for_function(
        "text => document.getElementById('live').textContent === text",
        arg="8 of clubs to the discard; column 2 shows 2 of clubs; 15 in the stock",
    )
    assert page.get_attribute("#live", "aria-live") == "polite"
    page.keyboard.press("b")
    page.wait_for_function(
        "text => document.getElementById('live').textContent === text", arg=describe(game, "en")
    )

    # U and Ctrl+Z undo, Space draws, the refusal of a key press is explained too
    press(page, Undo())
    v = version(page)
    page.keyboard.press("Control+z")
    wait_version(page, v + 1)
    v = version(page)
    page.evaluate("document.activeElement?.blur()")
    page.keyboard.press(" ")  # nothing focused: Space draws
    wait_version(page, v + 1)
    # Enter on a focused card presses it: here the free card of column 1, which does not fit
    page.focus('.tableau .column[data-col="1"] .card.free')
    page.keyboard.press("Enter")
    page.wait_for_function(
        "text => document.querySelector('#toast.show')?.textContent === text",
        arg=refusal_message("not_adjacent", "en"),
    )
    assert version(page) == v + 1  # no draw
    page.wait_for_selector("#toast.show", state="detached", timeout=15_000)
    page.keyboard.press("1")  # 6♥ on 9♣? no: refused
    page.wait_for_function(
        "text => document.querySelector('#toast.show')?.textContent === text",
        arg=refusal_message("not_adjacent", "en"),
    )
    # N opens the new game dialog with the focus in the code field; Escape closes it
    page.keyboard.press("n")
    page.wait_for_selector("dialog.new-game[open]")
    assert page.evaluate("document.activeElement.id") == "code-input"
    shot(page, "keyboard-new-game")
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.new-game", state="detached")


def test_cards_have_names_in_the_page_language(page: Any) -> None:
    deal(page, EXAMPLE_CODE)
    game = Game.new(EXAMPLE_CODE)
    for loc in ("ro", "ms", "he", "en"):
        page.select_option(".lang-select", loc)
        page.wait_for_function("loc => document.documentElement.lang === loc", arg=loc)
        free = game.free_card(0)
        assert free is not None
        label = page.get_attribute('.column[data-col="1"] .card.free', "aria-label")
        assert label == catalog(loc)["ui"]["card_free"].format(card=card_name(free, loc))
        assert page.text_content("#board-desc") == describe(game, loc)
        assert page.text_content(".hud .new") == catalog(loc)["ui"]["new_game"]


def test_hebrew_layout_is_mirrored_and_codes_stay_readable(new_context: Any, web_server: Any) -> None:
    page = new_context(locale="he-IL").new_page()  # the browser's language picks Hebrew
    page.goto(web_server.http + "/")
    page.wait_for_selector(".play[data-v]")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("document.documentElement.lang") == "he"
    deal(page, EXAMPLE_CODE)
    first = page.locator('.column[data-col="1"]').bounding_box()
    last = page.locator('.column[data-col="7"]').bounding_box()
    assert first is not None and last is not None
    assert first["x"] > last["x"]  # column 1 on the right
    code = page.locator("[data-testid=code]")
    assert code.text_content() == EXAMPLE_CODE
    assert code.evaluate("el => getComputedStyle(el).direction") == "ltr"
    new = page.locator(".hud .new").bounding_box()
    score = page.locator(".hud .score").bounding_box()
    assert new is not None and score is not None and new["x"] < score["x"]  # actions on the left
    game = Game.new(EXAMPLE_CODE)
    assert page.text_content("#board-desc") == describe(game, "he")
    press(page, Draw())
    # the drawn card half-way from the stock to the discard (its animation held there): the stock's count
    # stays visible while the card flies and after it lands
    flying = page.evaluate(
        """() => document.getAnimations().map(a => {
             a.pause(); a.currentTime = a.effect.getComputedTiming().duration * 0.15; return a; }).length"""
    )
    assert flying >= 1
    assert badge_visible(page)
    page.evaluate("document.getAnimations().forEach(a => a.finish())")
    drawn = game.apply(Draw())
    said = catalog("he")["ui"]["announce"]
    assert drawn.discard is not None
    to_discard = said["to_discard"].format(card=card_name(drawn.discard, "he"))
    change = f"{to_discard}; {said['stock']['few'].format(n=drawn.stock_count)}"
    page.wait_for_function("text => document.getElementById('live').textContent === text", arg=change)
    page.wait_for_function("document.getAnimations().length === 0")
    assert badge_visible(page)
    shot(page, "play-hebrew")
    page.keyboard.press("n")
    page.wait_for_selector("dialog.new-game[open]")
    page.fill("#code-input", "GO1-X-AAAAAAB")
    page.wait_for_selector("#code-error:not([hidden])")
    assert page.text_content("#code-error") == catalog("he")["ui"]["code_errors"]["rules"]
    shot(page, "new-game-hebrew")


def badge_visible(page: Any) -> bool:
    """The stock's count badge is on top (at both ends and the centre) and does not touch the discard."""
    return bool(
        page.evaluate(
            """() => {
              const badge = document.querySelector('.play .count').getBoundingClientRect();
              const discard = document.querySelector('.play .discard').getBoundingClientRect();
              const apart = badge.right <= discard.left || badge.left >= discard.right
                || badge.bottom <= discard.top || badge.top >= discard.bottom;
              const points = [[badge.left + 4, badge.top + badge.height / 2],
                              [badge.right - 4, badge.top + badge.height / 2],
                              [badge.left + badge.width / 2, badge.top + badge.height / 2]];
              const onTop = points.every(([x, y]) => document.elementFromPoint(x, y)?.closest('.count'));
              return apart && onTop;
            }"""
        )
    )


def test_phone_layout_fits_the_screen(new_context: Any, web_server: Any) -> None:
    page = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True).new_page()
    page.goto(web_server.http + "/")
    page.wait_for_selector(".play[data-v]")
    width = page.evaluate("document.documentElement.clientWidth")
    for col in range(1, 8):
        box = page.locator(f'.column[data-col="{col}"]').bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    stock = page.locator(".board .stock").bounding_box()
    assert stock is not None and stock["y"] + stock["height"] <= 844
    page.tap(".board .stock")
    page.wait_for_selector('.play[data-v="1"]')
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert_nav_fits(page, "en")  # every view reachable without scrolling the nav
    page.wait_for_function("document.getAnimations().length === 0")
    assert badge_visible(page)
    shot(page, "play-phone")


def test_rules_page_in_each_language(page: Any) -> None:
    page.click(".nav a[data-view=rules]")
    titles = set()
    for loc in ("en", "ro", "ms", "he"):
        page.select_option(".lang-select", loc)
        source = (REPO / "docs" / f"rules-{loc}.md").read_text("utf-8")
        first = next(line for line in source.splitlines() if line.startswith("# "))[2:].strip()
        page.wait_for_function(
            "text => document.querySelector('.rules-body h1')?.textContent === text", arg=first
        )
        titles.add(first)
    assert len(titles) == 4
    shot(page, "rules-he")


LOCALES = ("en", "ro", "ms", "he")
PHONE = {"width": 390, "height": 844}
FITS = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def test_play_and_race_lobby_fit_a_phone_in_every_language(new_context: Any, web_server: Any) -> None:
    page = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    page.goto(web_server.http + "/")
    page.wait_for_selector(".play[data-v]")
    for shown in ("random", "code"):
        if shown == "code":
            deal(page, EXAMPLE_CODE)
        for loc in LOCALES:
            page.select_option(".lang-select", loc)
            page.wait_for_function("loc => document.documentElement.lang === loc", arg=loc)
            assert page.evaluate(FITS), (shown, loc, page.evaluate("document.documentElement.scrollWidth"))
            new = page.locator(".hud .new").bounding_box()
            assert new is not None and new["x"] >= 0 and new["x"] + new["width"] <= PHONE["width"], loc
            assert_nav_fits(page, loc)
    page.select_option(".lang-select", "en")

    page.click(".nav a[data-view=race]")
    page.click(".race-create .create")
    page.wait_for_selector(".race-room .share:not([hidden])")
    for loc in LOCALES:
        page.select_option(".lang-select", loc)
        page.wait_for_function("loc => document.documentElement.lang === loc", arg=loc)
        assert page.evaluate(FITS), ("lobby", loc, page.evaluate("document.documentElement.scrollWidth"))
        copy = page.locator(".copy-link").bounding_box()
        assert copy is not None and copy["x"] >= 0 and copy["x"] + copy["width"] <= PHONE["width"], loc
    shot(page, "race-lobby-phone")

    # the results of the (one-racer) race: the table neither scrolls sideways nor clips a heading
    page.select_option(".lang-select", "en")
    page.click(".start")
    page.wait_for_selector(".race-room[data-phase=running]")
    resign(page)
    page.wait_for_selector(".results:not([hidden]) tbody tr")
    for loc in LOCALES:
        page.select_option(".lang-select", loc)
        page.wait_for_function("loc => document.documentElement.lang === loc", arg=loc)
        assert page.evaluate(FITS), ("results", loc)
        assert page.evaluate(TABLE_FITS), ("results", loc)
        assert page.evaluate(CLIPPED) == [], ("results", loc)
        assert page.evaluate(BROKEN) == [], ("results", loc)
    shot(page, "race-results-phone")


# the cells of rank, score and time that wrap onto a second line ("0:03." over "5")
BROKEN = (
    "[...document.querySelectorAll('.results-table td:is(:nth-child(1), :nth-child(4), :nth-child(5))')]"
    ".filter(c => { const r = document.createRange(); r.selectNodeContents(c);"
    " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1; })"
    ".map(c => c.textContent)"
)
TABLE_FITS = "(w => w.scrollWidth <= w.clientWidth)(document.querySelector('.results .table-wrap'))"
CLIPPED = (
    "[...document.querySelectorAll('.results-table th, .results-table td')]"
    ".filter(c => c.offsetParent && c.scrollWidth > c.clientWidth).map(c => c.textContent)"
)


def assert_nav_fits(page: Any, loc: str) -> None:
    """Every navigation entry whole on the screen, in the header's row or in its menu (a phone's header is one
    row since issue 20), and the navigation itself not scrolling sideways."""
    assert page.evaluate("(n => n.scrollWidth <= n.clientWidth)(document.querySelector('.nav'))"), loc
    for menu in (False, True):
        if menu:
            page.click(".menu-btn")
            page.wait_for_selector(".topbar[data-menu-open] .nav-more a")
        for link in page.locator(".nav a:visible").all():
            box = link.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (
                loc,
                link.text_content(),
            )
    assert page.locator(".nav a:visible").count() == page.locator(".nav a").count()  # none out of reach
    page.click(".menu-btn")  # closed again
    page.wait_for_selector(".topbar:not([data-menu-open])")


def test_the_tab_title_names_the_view_in_the_page_language(page: Any) -> None:
    views = {
        "play": "nav_play",
        "race": "nav_race",
        "daily": "daily_title",
        "leaderboards": "nav_leaderboards",
    }
    views["rules"] = "nav_rules"
    for loc in ("ms", "he"):
        page.select_option(".lang-select", loc)
        ui = catalog(loc)["ui"]
        for view, key in views.items():
            page.click(f".nav a[data-view={view}]")
            page.wait_for_function("title => document.title === title", arg=f"{ui[key]} · {ui['app_title']}")
    page.select_option(".lang-select", "en")  # a language switch retitles the shown view
    page.wait_for_function("document.title === 'Rules · Golf Race'")


def test_the_board_is_a_named_group_and_an_empty_stock_offers_no_draw(page: Any) -> None:
    deal(page, EXAMPLE_CODE)
    board = page.locator(".play .board")
    assert board.get_attribute("aria-describedby") == "board-desc"
    snapshot = board.aria_snapshot()
    assert snapshot.startswith(f'- group "{catalog("en")["ui"]["board_label"]}"'), snapshot
    assert f'button "{describe_stock(16)}. {catalog("en")["ui"]["draw"]}"' in snapshot
    for _ in range(16):
        press(page, Draw())
    snapshot = board.aria_snapshot()
    assert catalog("en")["ui"]["draw"] not in snapshot, snapshot
    assert f'button "{describe_stock(0)}" [disabled]' in snapshot, snapshot


def describe_stock(n: int) -> str:
    texts = catalog("en")["describe"]["stock"]
    return str(texts["zero" if n == 0 else "one" if n == 1 else "few"]).format(n=n)
