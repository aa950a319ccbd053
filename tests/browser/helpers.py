"""Driving the web client like a player, and finding lines of play with the engine."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from golfrace.engine import Draw, Game, Status, Tap, Undo
from golfrace.engine.actions import Action, parse_moves
from tests.engine.test_seeds import MOVE_35, TO_MOVE_35, TO_THE_WIN

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
SEARCH_LIMIT = 200_000


# The seeds' example deal and the winning line that tests/engine/test_seeds.py checks move by move.
EXAMPLE_CODE = "GO1-E-AAAAAAB"
EXAMPLE_WIN = parse_moves(" ".join([TO_MOVE_35, MOVE_35, TO_THE_WIN]))


def winning_line(code: str) -> list[Action]:
    """A won game's actions: the checked line of the example deal, else a depth-first search over the
    engine (removals first, then a draw) for small searches."""
    if code == EXAMPLE_CODE:
        line = list(EXAMPLE_WIN)
        assert replay(code, line).status is Status.WON
        return line
    seen: set[tuple[Any, ...]] = set()
    nodes = 0

    def search(game: Game, line: list[Action]) -> list[Action] | None:
        nonlocal nodes
        nodes += 1
        if nodes > SEARCH_LIMIT:
            raise AssertionError(f"no win found for {code} within {SEARCH_LIMIT} positions")
        if game.status is Status.WON:
            return line
        key = (game.heights, game.drawn, game.discard)
        if game.status is Status.STUCK or key in seen:
            return None
        seen.add(key)
        for action in game.legal_actions():
            found = search(game.apply(action), [*line, action])
            if found is not None:
                return found
        return None

    found = search(Game.new(code), [])
    assert found is not None, f"{code} cannot be won"
    return found


def stuck_line(code: str) -> list[Action]:
    """Draw whenever possible, remove only when the stock is empty: almost every deal ends stuck."""
    game, line = Game.new(code), []
    while game.status is Status.PLAYING:
        action: Action = Draw() if game.stock_count else Tap(game.playable_columns()[0] + 1)
        game = game.apply(action)
        line.append(action)
    assert game.status is Status.STUCK, f"{code}: this line wins, pick another code"
    return line


def replay(code: str, line: list[Action]) -> Game:
    game = Game.new(code)
    for action in line:
        game = game.apply(action)
    return game


# --- the page --------------------------------------------------------------------------------------------
def version(page: Any) -> int:
    return int(page.get_attribute(".play", "data-v"))


def wait_version(page: Any, v: int) -> None:
    page.wait_for_selector(f'.play[data-v="{v}"]')


# One request over the page's own connection, with a request id; resolves with the `ref` of its `ok`.
_ROUND_TRIP = """async ({ msg, rid, timeoutMs }) => {
  const { conn, state } = window.golfrace;
  const request = { ...msg, rid };
  if (request.t === "resync") Object.assign(request, { game: state?.game, v: state?.v });
  if (request.t === "resync" && !request.game) throw new Error("no game shown");
  return await new Promise((resolve, reject) => {
    const fail = (text) => {
      off();
      clearTimeout(timer);
      reject(new Error(text));
    };
    const timer = setTimeout(() => fail(`no answer to ${rid} within ${timeoutMs} ms`), timeoutMs);
    const off = conn.on("*", (m) => {
      if (m.rid !== rid) return;
      if (m.t !== "ok") return fail(JSON.stringify(m));
      off();
      clearTimeout(timer);
      resolve(m.ref);
    });
    if (!conn.send(request)) fail("not connected");
  });
}"""
_rids = iter(range(1, 1 << 30))


def round_trip(page: Any, msg: dict[str, Any], timeout_ms: int = 10_000) -> None:
    """Send ``msg`` (with a fresh ``rid``) over the page's own connection and wait until its ``ok`` is
    handled: the frames the server sent before that answer have been handled by the page too."""
    rid = f"rt-{next(_rids)}"
    assert page.evaluate(_ROUND_TRIP, {"msg": msg, "rid": rid, "timeoutMs": timeout_ms}) == msg["t"]


def settled(page: Any) -> None:
    """Every move the Play page sent on its game so far has been answered and the answers handled: a
    ``resync`` at the shown version is answered only by ``ok``, and only after the earlier moves on that game
    (one connection handles a game's requests in order; ``ping`` waits for nothing, so it cannot tell)."""
    round_trip(page, {"t": "resync"})


def quiet(page: Any) -> None:
    """Whatever the page sent in reaction to the frames it had received has been answered: a first round trip
    (``unwatch`` of a race nobody follows, which waits for every earlier request) ends after the page handled
    those frames, the second after the server answered what the page sent meanwhile."""
    for _ in range(2):
        round_trip(page, {"t": "unwatch", "race": NO_RACE})


NO_RACE = "r-none"  # race ids are "r" and 11 letters: no race has this one


def deal(page: Any, code: str) -> None:
    """Start `code` through the New game dialog."""
    page.click(".hud .new")
    page.fill("#code-input", code)
    page.click("dialog.new-game .deal")
    page.wait_for_selector("dialog.new-game", state="detached")
    dealt(page, code)


def dealt(page: Any, code: str) -> None:
    """Wait until the page shows `code` dealt afresh: its code in the header, no move made yet."""
    page.wait_for_function(
        "code => document.querySelector('[data-testid=code]')?.textContent === code"
        " && document.querySelector('.play')?.dataset.v === '0'",
        arg=code,
    )


def click(page: Any, action: Action) -> None:
    """One action by mouse, waiting for the server's diff to be shown."""
    v = version(page)
    if isinstance(action, Tap):
        page.click(f'.tableau .column[data-col="{action.column}"] .card.free')
    elif isinstance(action, Draw):
        page.click(".board .stock")
    elif isinstance(action, Undo):
        page.click(".hud .undo")
    wait_shown(page, v + 1, action)


def wait_shown(page: Any, v: int, action: Action) -> None:
    """``wait_version``, failing with what the page showed and the last frames (when recorded)."""
    try:
        wait_version(page, v)
    except Exception as exc:
        shown = page.evaluate(
            "() => ({v: document.querySelector('.play')?.dataset.v,"
            " status: document.querySelector('.play')?.dataset.status,"
            " toast: document.querySelector('#toast')?.textContent,"
            " focused: document.activeElement?.outerHTML?.slice(0, 200)})"
        )
        frames = getattr(page, "recorded_frames", None) or {}
        last = {k: frames.get(k, [])[-6:] for k in ("sent", "received")}
        raise AssertionError(f"{action} not shown as version {v}: page {shown}, last frames {last}") from exc


KEYS = {Draw: "d", Undo: "u"}


def press(page: Any, action: Action) -> None:
    """One action by keyboard."""
    v = version(page)
    page.keyboard.press(str(action.column) if isinstance(action, Tap) else KEYS[type(action)])
    wait_shown(page, v + 1, action)


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def decode_frame(payload: str | bytes) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(payload) if isinstance(payload, str) else msgpack.unpackb(payload)
    return message


def record_frames(page: Any) -> dict[str, list[Any]]:
    """Every websocket message the page sends and receives from now on, decoded, and its sockets:
    {"sent": [], "received": [], "sockets": []} (attach before the page opens its connection)."""
    frames: dict[str, list[Any]] = {"sent": [], "received": [], "sockets": []}
    decode = decode_frame

    def on_socket(ws: Any) -> None:
        frames["sockets"].append(ws)
        ws.on("framesent", lambda payload: frames["sent"].append(decode(payload)))
        ws.on("framereceived", lambda payload: frames["received"].append(decode(payload)))

    page.on("websocket", on_socket)
    return frames


def of_type(messages: list[dict[str, Any]], t: str) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("t") == t]


def wait_until(page: Any, condition: Callable[[], bool], timeout_ms: int = 10_000) -> None:
    """Wait for a condition on what Python recorded (frames): Playwright delivers events while it waits."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition():
        assert time.monotonic() < deadline, f"timed out: {condition}"
        page.wait_for_timeout(20)


def resign(page: Any) -> None:
    """Resign from a race through its confirmation dialog (Enter confirms)."""
    page.click(".resign")
    page.wait_for_selector("dialog.confirm[open] .ok:focus")
    page.keyboard.press("Enter")
    page.wait_for_selector("dialog.confirm", state="detached")


def open_page(new_context: Any, url: str) -> Any:
    """A page of a fresh profile at ``url``; its uncaught errors collect in ``page.errors``."""
    page = new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.errors = errors
    return page


def host_race(new_context: Any, base: str, code: str | None = None, account: bool = False) -> tuple[Any, str]:
    """A fresh profile creates a race (of ``code``, else a random deal) and waits in its lobby: (page, id).
    ``account``: it signs up first (a random deal is ranked for an account, casual for a guest)."""
    host = open_page(new_context, base + "/#/race")
    if account:
        from ..accounts.helpers import sign_up_in_page

        host.wait_for_function("window.golfrace.conn.welcome != null")
        sign_up_in_page(host)
    if code is not None:
        host.fill("#race-code", code)
    host.click(".race-create .create")
    host.wait_for_function("location.hash.startsWith('#/race/')")
    return host, str(host.evaluate("location.hash.split('/')[2]"))


def running_race(new_context: Any, base: str) -> tuple[Any, Any, str]:
    """A race of the example deal between two fresh profiles, past its countdown: (host, guest, id)."""
    host, race_id = host_race(new_context, base, EXAMPLE_CODE)
    guest = open_page(new_context, f"{base}/r/{race_id}")
    host.wait_for_function("document.querySelectorAll('.racer').length === 2")
    host.click(".start")
    for page in (host, guest):
        page.wait_for_selector(".race-room[data-phase=running]")
    return host, guest, race_id


def nav_to(page: Any, view: str) -> None:
    """Click the navigation's entry of ``view``: on a phone the header's menu opens first (issue 20)."""
    link = page.locator(f".nav a[data-view={view}]")
    if not link.is_visible():
        page.click(".menu-btn")
        link.wait_for()
    link.click()
