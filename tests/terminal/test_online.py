"""``golfrace play --race URL`` and ``golfrace watch URL`` on a real test server (real websockets, a real
Redis), driven by textual's test pilot: the terminal racer joins a race a web-protocol client hosts, plays
its seat with the keys and gets the server's refusals in its language; a terminal watcher follows the
boards."""

from __future__ import annotations

from typing import Any

import pytest

from golfrace.cli import main
from golfrace.engine import parse_moves, replay
from golfrace.engine.i18n import catalog, refusal_message
from golfrace.settings import Settings
from golfrace.store.embedded import free_port
from golfrace.terminal.apps import RaceApp, WatchApp
from golfrace.terminal.board import tui_text
from golfrace.terminal.links import race_link
from golfrace_testkit.servers import running_server

from ..clock import MovableClock
from ..races.test_wire import T, act, greedy, join, new_race, start, wait_start
from .test_solo import EXAMPLE, SIZE, columns, until

pytestmark = pytest.mark.timeout(120)


def link(server: Any, race: str) -> tuple[str, str]:
    """The race's link as the web client shares it, read as the terminal reads it."""
    return race_link(f"{server.http}/r/{race}")


@pytest.mark.parametrize("lang", ["en", "he"])
async def test_a_terminal_racer_joins_and_plays_its_seat(
    server: Any, make_client: Any, server_clock: MovableClock, lang: str
) -> None:
    ann = await make_client(name="Ann")
    rid = (await new_race(ann, name="Ann", code=str(EXAMPLE)))["race"]
    app = RaceApp(*link(server, rid), lang, "Tui")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.race is not None and len(app.race["racers"]) == 2, "the join")
        assert app.shown("head") == tui_text("race_waiting", lang, race=rid)
        assert "Ann" in app.shown("racers") and "Tui" in app.shown("racers")
        await pilot.press("d")  # before the start: the seat is not open yet
        await until(pilot, lambda: app.answers == 1, "the refusal")
        assert app.shown("message") == catalog(lang)["ui"]["errors"]["race_not_started"]
        view = await start(ann, rid)
        await wait_start(view, server_clock)
        await until(pilot, lambda: app.state() is not None, "the seat's snapshot")
        await pilot.press("d", "5", "2")  # the seeds' opening
        await until(pilot, lambda: app.answers == 4, "three moves answered")
        state = app.state()
        assert state is not None and state["columns"] == columns(replay(EXAMPLE, parse_moves("d 5 2")))
        assert state["moves"] == 3 and app.shown("message") == ""
        progress = await ann.expect(
            "race_progress",
            T,
            where=lambda m: m["race"] == rid and m["racer"]["seat"] == 2 and m["racer"]["moves"] == 3,
        )
        assert progress["racer"]["name"] == "Tui"
        await pilot.press("1")  # the 6H on the 8C: refused by the server, told in the app's language
        await until(pilot, lambda: app.answers == 5, "the refusal")
        assert app.shown("message") == refusal_message("not_adjacent", lang)
        await pilot.press("h")
        assert app.shown("message") == tui_text("hint_race", lang)
        assert (await act(ann, rid, 1, {"a": "draw"}))["t"] == "ack"
        await until(
            pilot, lambda: any(r["seat"] == 1 and r["moves"] == 1 for r in app.race["racers"]), "Ann's move"
        )
        await ann.send({"t": "race_resign", "race": rid})
        await until(pilot, lambda: any(r["status"] == "resigned" for r in app.race["racers"]), "Ann resigned")
        while (app.state() or {}).get("status") == "playing":  # Tui plays on to the end, by the keys
            move = greedy(app.state() or {})
            assert move is not None
            answered = app.answers
            await pilot.press(str(move["col"]) if move["a"] == "tap" else "d")
            await until(pilot, lambda n=answered: app.answers == n + 1, "the move's answer")
        await until(pilot, lambda: app.race.get("results") is not None, "the results", timeout=T)
        assert app.shown("head") == tui_text("race_over", lang, race=rid)
        assert app.shown("racers").splitlines()[0].startswith("1. ")
        await pilot.press("q")
    assert not app.is_running


async def test_a_terminal_watcher_follows_every_board(
    server: Any, make_client: Any, server_clock: MovableClock
) -> None:
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann", code=str(EXAMPLE)))["race"]
    await join(bob, rid, name="Bob")
    app = WatchApp(*link(server, rid), "he")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(app.boards) == 2, "the boards")
        assert app.shown("head").startswith(tui_text("watching", "he", race=rid))
        view = await start(ann, rid, bob)
        await wait_start(view, server_clock)
        for seq, move in enumerate(({"a": "draw"}, {"a": "tap", "col": 5}), start=1):
            for racer in (ann, bob):  # both draw: no board is ahead of the other, none hidden
                assert (await act(racer, rid, seq, move))["t"] == "ack"
        await until(pilot, lambda: all(b.get("moves") == 2 for b in app.boards.values()), "both moves")
        opened = columns(replay(EXAMPLE, parse_moves("d 5")))
        assert all(b["columns"] == opened for b in app.boards.values())
        shown = app.shown("board")
        assert shown.count(tui_text("stock", "he", n=15)) == 2 and "Ann" in shown and "Bob" in shown
        await pilot.press("d")  # a watcher plays nothing
        assert all(b.get("moves") == 2 for b in app.boards.values())
        for racer in (ann, bob):
            await racer.send({"t": "race_resign", "race": rid})


async def test_a_terminal_watcher_waits_for_a_server_not_yet_answering(
    server: Any, make_client: Any, settings: Settings
) -> None:
    """Issue 20.13: ``golfrace watch URL`` (and ``play --race``, the same connection) on a server that cannot
    take players yet (here: not listening yet) says so in its language and tries again, instead of giving
    up; once the server answers, the race is followed."""
    ann, bob = await make_client(name="Ann"), await make_client(name="Bob")
    rid = (await new_race(ann, name="Ann", code=str(EXAMPLE)))["race"]
    await join(bob, rid, name="Bob")
    port = free_port()  # another instance on the same Redis, not started yet
    app = WatchApp(*race_link(f"http://127.0.0.1:{port}/r/{rid}"), "he")
    async with app.run_test(size=SIZE) as pilot:
        waiting = tui_text("waiting_server", "he")
        await until(pilot, lambda: app.shown("message") == waiting, "the waiting line")
        async with running_server(settings.with_(port=port)):
            await until(pilot, lambda: len(app.boards) == 2, "the boards", timeout=T)
            assert app.shown("message") == ""
            await pilot.press("q")


def test_a_bad_race_link_exits_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--race", "not-a-link"]) == 2
    assert main(["watch", "http://127.0.0.1:8000/"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("golfrace: bad_link: ") for line in err)
