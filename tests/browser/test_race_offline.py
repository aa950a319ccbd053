"""A race seat is an ordinary game in the page too: a tap made while the server is away is sent again with
its seq once the connection is back, and applied (it was silently lost before); the board is locked while
offline (it takes that one move and no other, and says so: issue 20, 12)."""

from __future__ import annotations

from typing import Any

from golfrace.engine import Draw, Tap
from golfrace.engine.i18n import catalog
from golfrace.settings import Settings
from golfrace.store.embedded import free_port
from golfrace_testkit.servers import start_process, stop_process

from .conftest import ARTIFACTS, FAST_ENV, WORKER
from .helpers import EXAMPLE_CODE, host_race, of_type, record_frames, replay

FREE_CARD = '.race-board .tableau .column[data-col="{}"] .card.free'


def test_a_race_tap_made_offline_is_applied_once_the_server_is_back(
    new_context: Any, settings: Settings, client_dist: Any
) -> None:
    own = settings.with_(port=free_port())
    log = ARTIFACTS / f"browser-race-offline-server-{WORKER}.log"
    running = start_process(own, env=FAST_ENV, log=log)
    try:
        page, _race_id = host_race(new_context, running.http, EXAMPLE_CODE)
        frames = record_frames(page)  # the sockets opened from now on: the one after the restart
        page.click(".start")  # a race of one: its host alone
        page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])")
        page.click(".race-board .stock")
        page.wait_for_selector('.race-room[data-v="1"]')
        page.click(FREE_CARD.format(5))
        page.wait_for_selector('.race-room[data-v="2"]')

        stop_process(running)
        page.wait_for_selector(".banner:not([hidden])")  # "reconnecting…"
        page.wait_for_selector(".race-board[data-offline] .board[aria-busy=true]")  # visibly locked
        page.click(FREE_CARD.format(2))  # a legal tap, made offline: it waits for the connection
        page.wait_for_selector('.race-board[data-offline][data-waiting="1"]')
        page.click(".race-board .stock")  # locked: no second move waits behind it, and the page says so
        notice = catalog("en")["ui"]["offline_one_move"]
        page.wait_for_function(
            "text => document.querySelector('#toast.show')?.textContent === text", arg=notice
        )
        assert page.get_attribute(".race-board", "data-waiting") == "1"

        running = start_process(own, env=FAST_ENV, log=log)
        page.wait_for_selector(".banner", state="hidden", timeout=20_000)
        page.wait_for_selector('.race-room[data-v="3"]', timeout=10_000)
        game = replay(EXAMPLE_CODE, [Draw(), Tap(5), Tap(2)])
        assert page.text_content(".race-hud .score") == str(game.score)
        assert page.text_content(".race-hud .moves") == "3"
        page.wait_for_selector('.race-board:not([data-offline])[data-waiting="0"]')
        sent = of_type(frames["sent"], "act")  # on the new connection
        assert [(m["a"], m.get("col"), m["seq"]) for m in sent] == [("tap", 2, 3)]  # the locked draw: never
        # the race goes on over the new connection
        page.click(".race-board .stock")
        page.wait_for_selector('.race-room[data-v="4"]')
    finally:
        stop_process(running)
