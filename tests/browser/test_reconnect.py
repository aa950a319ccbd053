"""The page reconnects by itself after the server goes away, resyncs, and loses no move."""

from __future__ import annotations

import re
from typing import Any

import msgpack

from golfrace.engine import Draw, Tap
from golfrace.settings import Settings
from golfrace.store.embedded import free_port
from golfrace_testkit.servers import start_process, stop_process

from .conftest import ARTIFACTS, FAST_ENV, WORKER
from .helpers import EXAMPLE_CODE, click, deal, replay, settled, version, wait_version


def test_reconnects_after_a_server_restart_and_keeps_the_game(
    new_context: Any, settings: Settings, client_dist: Any
) -> None:
    own = settings.with_(port=free_port())
    log = ARTIFACTS / f"browser-restart-server-{WORKER}.log"
    running = start_process(own, env=FAST_ENV, log=log)
    try:
        page = new_context().new_page()
        page.goto(running.http + "/")
        page.wait_for_selector(".play[data-v]")
        deal(page, EXAMPLE_CODE)
        click(page, Draw())
        click(page, Tap(5))
        stop_process(running)
        page.wait_for_selector(".banner:not([hidden])")  # "reconnecting…"
        v = version(page)
        page.keyboard.press("2")  # played while offline: sent once the connection is back
        running = start_process(own, env=FAST_ENV, log=log)
        page.wait_for_selector(".banner", state="hidden", timeout=20_000)
        wait_version(page, v + 1)
        game = replay(EXAMPLE_CODE, [Draw(), Tap(5), Tap(2)])
        assert page.text_content(".play .score") == str(game.score)
        assert page.text_content(".play .moves") == "3"
        # the same game goes on over the new connection
        click(page, Draw())
        assert page.text_content(".play .moves") == "4"
        # and a reload opens it again (the player's token and the game are remembered)
        page.reload()
        page.wait_for_selector('.play[data-v="4"]')
        assert page.text_content("[data-testid=code]") == EXAMPLE_CODE
    finally:
        stop_process(running)


def test_a_move_whose_answer_was_lost_is_answered_not_applied_again(page: Any) -> None:
    """The connection drops after the server applied a draw but before its diff and ack arrived: the page
    resends the draw with the same seq in the same seq space (hello.sid), and the server answers it."""
    cut = {"armed": False, "done": False}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        closed = False

        def from_server(message: Any) -> None:
            nonlocal closed
            if closed:
                return  # the ack that followed the diff: lost with the connection
            if cut["armed"] and not cut["done"] and isinstance(message, bytes):
                msg = msgpack.unpackb(message)
                if msg.get("t") == "diff" and msg.get("v") == 1:
                    cut["done"] = closed = True
                    server.close()
                    ws.close()
                    return
            ws.send(message)

        server.on_message(from_server)
        ws.on_message(lambda message: server.send(message))

    page.route_web_socket(re.compile(r"/ws$"), route)
    page.reload()  # the page's socket now goes through the route
    page.wait_for_selector(".play[data-v]")
    deal(page, EXAMPLE_CODE)
    cut["armed"] = True
    page.click(".board .stock")
    wait_version(page, 1)  # after the reconnect: from the snapshot or the resync
    assert cut["done"]
    settled(page)  # the draw resent after the reconnect is answered, and the answer handled
    assert version(page) == 1 and page.text_content(".play .moves") == "1"
    click(page, Draw())  # and the game goes on from there
    assert page.text_content(".play .moves") == "2"
