"""A racer who stops moving once a rival has finished: the warning with its live countdown, the line after
being taken out, and no warning while there is time (a move pushes the moment back)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from golfrace.engine.i18n import catalog
from golfrace.settings import Settings
from golfrace_testkit.servers import RunningServer, start_process, stop_process

from .conftest import ARTIFACTS, FAST_ENV, WORKER
from .helpers import resign, running_race, shot

UI = catalog("en")["ui"]
IDLE_S = 3
WARNING = "document.querySelector('.idle-warn:not([hidden])')?.textContent ?? ''"


@pytest.fixture(scope="module")
def idle_server(settings: Settings, client_dist: Any) -> Iterator[RunningServer]:
    """A server of its own whose races take a racer out after IDLE_S seconds without a move (the shared
    one keeps the default: its tests' racers may idle while another has finished), after a countdown of one
    second (these tests are about what comes after it)."""
    env = {**FAST_ENV, "GOLFRACE_RACE_IDLE_FORFEIT_S": str(IDLE_S), "GOLFRACE_RACE_COUNTDOWN_MS": "1000"}
    running = start_process(
        settings.with_(port=0), env=env, log=ARTIFACTS / f"browser-idle-server-{WORKER}.log"
    )
    try:
        yield running
    finally:
        stop_process(running)


def test_an_idle_racer_is_warned_with_a_countdown_then_told_they_are_out(
    new_context: Any, idle_server: RunningServer
) -> None:
    host, guest, _ = running_race(new_context, idle_server.http)
    # issue 20.3: the idle limit runs from the start, whether or not anyone has finished (a race of closed
    # tabs ends); here the host resigns and the guest, who makes no move, is warned, then out
    resign(host)
    pattern = "^" + re.escape(UI["idle_warning"]).replace(re.escape("{time}"), r"(\d+:\d\d)") + "$"
    guest.wait_for_function(f"p => new RegExp(p).test({WARNING})", arg=pattern)
    first = re.match(pattern, guest.evaluate(WARNING))
    assert first and first.group(1) in {f"0:0{n}" for n in range(1, IDLE_S + 1)}
    shot(guest, "race-idle-warning")
    # it counts down live, without any message from the server
    guest.wait_for_function(
        f"([p, t]) => {{ const m = new RegExp(p).exec({WARNING}); return m && m[1] !== t; }}",
        arg=[pattern, first.group(1)],
    )
    out = guest.locator(".idle-out:not([hidden])")
    out.wait_for(timeout=IDLE_S * 1000 + 5_000)
    assert out.text_content() == UI["idle_out"]
    assert guest.locator(".idle-warn").is_hidden()
    guest.wait_for_selector(".results:not([hidden])")
    assert out.is_visible()
    for page in (host, guest):
        assert not page.errors, page.errors


def test_the_idle_warning_waits_for_the_last_minute_and_a_move_puts_it_away(
    new_context: Any, web_server: RunningServer
) -> None:
    host, guest, _ = running_race(new_context, web_server.http)
    guest.clock.install()
    guest.reload()
    guest.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])")
    resign(host)
    guest.wait_for_function(
        "document.querySelector('.racer[data-seat=\"1\"]')?.dataset.status === 'resigned'"
    )
    assert guest.locator(".idle-warn").is_hidden()  # five minutes left: no warning yet
    guest.clock.fast_forward("04:10")  # the page's clock, and so its idea of the server's, 250 s on
    # within the last minute (its seconds depend on how long the start took: the limit runs from the start)
    guest.wait_for_function(f"/within 0:[0-5]\\d /.test({WARNING})")
    guest.keyboard.press("d")
    guest.wait_for_selector('.race-room[data-v="1"]')
    guest.wait_for_selector(".idle-warn", state="hidden")
    for page in (host, guest):
        assert not page.errors, page.errors
