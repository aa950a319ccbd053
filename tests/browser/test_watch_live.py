"""Watching like lichess (issue 13.14): the list of live races (racers and progress, no code, no card), "Go!"
when the countdown ends, a notice when a racer finishes, and the replay's pause, step, speed and scrubber. In
English and Hebrew, on a phone (390×844) and a desktop (1440×900), with screenshots."""

from __future__ import annotations

import re
from typing import Any

import pytest

from golfrace.engine import Draw, Game, Tap
from golfrace.engine.i18n import catalog

from .helpers import EXAMPLE_CODE, host_race, open_page, resign, shot
from .test_learn import DESKTOP, PHONE, columns_shown, engine_columns, visit

CARD = re.compile(r"\b(?:[A2-9TJQK][CDHS])\b")

REPLAY_STEP_MS = 260  # views/watch.js: one move per seat at 1×


def ui(lang: str) -> dict[str, Any]:
    return dict(catalog(lang)["ui"])


def start_two(new_context: Any, base: str, code: str | None = None) -> tuple[Any, Any, str]:
    host, race_id = host_race(new_context, base, code)
    guest = open_page(new_context, f"{base}/r/{race_id}")
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    return host, guest, race_id


# both languages and both sizes in two runs (each is 6–8 s: the suite stays under its time)
TWO_SCREENS = [("en", DESKTOP), ("he", PHONE)]
TWO_IDS = ["en-desktop", "he-phone"]


@pytest.mark.parametrize(("lang", "viewport"), TWO_SCREENS, ids=TWO_IDS)
def test_live_races_go_and_a_racer_finishing(
    new_context: Any, web_server: Any, lang: str, viewport: dict[str, int]
) -> None:
    base, texts = web_server.http, ui(lang)
    host, guest, race_id = start_two(new_context, base)
    watcher = visit(new_context, f"{base}/?lang={lang}#/watch/{race_id}", viewport)
    watcher.wait_for_function("document.querySelectorAll('.seat').length === 2")
    host.click(".start")
    # the countdown ends: "Go!"
    watcher.wait_for_selector(".watch-view[data-phase=running] .go-notice.show")
    assert watcher.text_content(".go-notice") == texts["live"]["go"]
    shot(watcher, f"watch-go-{lang}-{viewport['width']}")
    for page in (host, guest):
        page.wait_for_selector(".race-room[data-phase=running]")
    host.keyboard.press("d")
    host.wait_for_selector('.race-room[data-v="1"]')
    resign(host)
    # the host is done: the watcher is told, in the page's language
    expected = texts["live"]["finished"].format(
        name="\u2068" + texts["player_n"].format(n=1) + "\u2069",  # isolated: FSI … PDI
        status=texts["status"]["resigned"],
        score=0,
    )
    watcher.wait_for_function(
        "text => document.getElementById('toast').textContent === text", arg=expected, timeout=10_000
    )
    # the list of live races: this race, its racers and how far they got
    watcher.goto(f"{base}/?lang={lang}#/watch")
    item = f'.live-race[data-race="{race_id}"]'
    watcher.wait_for_selector(item)
    names = watcher.locator(f"{item} .live-name").all_text_contents()
    assert names == [texts["player_n"].format(n=n) for n in (1, 2)]
    statuses = watcher.evaluate(
        f"[...document.querySelectorAll('{item} .live-racer')].map(r => r.dataset.status)"
    )
    assert statuses == ["resigned", "playing"]
    assert watcher.text_content(f"{item} .live-count") == texts["live"]["racers"]["few"].format(n=2)
    text = watcher.text_content(".live-list") or ""
    assert "GO1-" not in text and not CARD.search(text), "no code and no card in the list"
    assert watcher.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    shot(watcher, f"watch-live-{lang}-{viewport['width']}")
    watcher.click(f"{item} .live-watch")
    watcher.wait_for_function("id => location.hash === '#/watch/' + id", arg=race_id)
    watcher.wait_for_selector(".watch-view[data-phase=running]")
    resign(guest)
    watcher.wait_for_selector(".watch-view[data-phase=finished]")
    watcher.goto(f"{base}/?lang={lang}#/watch")
    # the list is fetched again on the way back (and every few seconds): the race is gone from it
    watcher.wait_for_function("sel => !document.querySelector(sel)", arg=item)
    assert not watcher.errors


@pytest.mark.parametrize(("lang", "viewport"), TWO_SCREENS, ids=TWO_IDS)
def test_replay_pause_step_speed_and_scrub(
    new_context: Any, web_server: Any, lang: str, viewport: dict[str, int]
) -> None:
    base, texts = web_server.http, ui(lang)
    host, guest, race_id = start_two(new_context, base, EXAMPLE_CODE)
    host.click(".start")
    for page in (host, guest):
        page.wait_for_selector(".race-room[data-phase=running]")
    line = [Draw(), Tap(5), Tap(2)]
    for n, action in enumerate(line, start=1):
        host.keyboard.press("d" if isinstance(action, Draw) else str(action.column))
        host.wait_for_selector(f'.race-room[data-v="{n}"]')
    for page in (host, guest):
        resign(page)
    watcher = visit(new_context, f"{base}/?lang={lang}#/watch/{race_id}", viewport)
    watcher.clock.install()  # the replay's timers run on a clock the test can move (they flow meanwhile)
    watcher.wait_for_selector(".watch-view[data-phase=finished] .replay:not([hidden])")
    watcher.click(".replay")
    watcher.wait_for_selector(".replay-bar:not([hidden])")
    seat1 = '.seat[data-seat="1"]'
    # it plays to the end by itself; the scrubber back to the deal pauses it, then step by step
    watcher.wait_for_selector(".watch-view[data-replay=done]", timeout=10_000)
    watcher.evaluate("document.querySelector('.r-scrub').value = 0")
    watcher.dispatch_event(".r-scrub", "input")
    watcher.wait_for_selector(".watch-view[data-replay=paused][data-replay-pos='0']")
    total = int(watcher.get_attribute(".r-scrub", "max"))
    assert total == len(line)  # resigning is no move
    game = Game.new(EXAMPLE_CODE)
    states = [game]
    for action in line:
        game = game.apply(action)
        states.append(game)
    for n in range(1, len(line) + 1):
        watcher.click(".r-forward")
        watcher.wait_for_selector(f".watch-view[data-replay-pos='{n}']")
        assert columns_shown(watcher, seat1) == engine_columns(states[n]), n
    assert watcher.text_content(".r-pos") == texts["live"]["position"].format(n=len(line), total=total)
    watcher.click(".r-back")
    watcher.wait_for_selector(f".watch-view[data-replay-pos='{len(line) - 1}']")
    assert columns_shown(watcher, seat1) == engine_columns(states[len(line) - 1])
    shot(watcher, f"watch-replay-{lang}-{viewport['width']}")
    # the scrubber jumps; a faster speed plays on to the end
    watcher.evaluate("document.querySelector('.r-scrub').value = 1")
    watcher.dispatch_event(".r-scrub", "input")
    watcher.wait_for_selector(".watch-view[data-replay-pos='1']")
    assert columns_shown(watcher, seat1) == engine_columns(states[1])
    # play at half speed, and pause: the position holds
    watcher.select_option(".r-speed select", "0.5")
    watcher.click(".r-toggle")
    watcher.wait_for_selector(".watch-view[data-replay=running]")
    assert watcher.get_attribute(".r-toggle", "aria-label") == texts["live"]["pause"]
    watcher.click(".r-toggle")
    watcher.wait_for_selector(".watch-view[data-replay=paused]")
    held = watcher.get_attribute(".watch-view", "data-replay-pos")
    watcher.clock.run_for(4 * REPLAY_STEP_MS)  # two steps at this speed, at once: a paused replay holds
    assert watcher.get_attribute(".watch-view", "data-replay-pos") == held
    watcher.select_option(".r-speed select", "4")
    watcher.click(".r-toggle")
    watcher.wait_for_selector(".watch-view[data-replay=done]")
    assert watcher.get_attribute(".r-toggle", "aria-label") == texts["live"]["play"]
    if viewport == PHONE:
        assert watcher.evaluate(
            "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
    assert not watcher.errors
