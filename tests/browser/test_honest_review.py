"""Your own honest browser games are not held (fair play 19.3): a signed-in account plays its ranked daily
in the real page, by mouse and keys (1–7, D), at a person's pace, with the real knowledge review on; the
result is judged ``clear`` and goes on the daily board.

The player decides from what the page shows only: the tableau, the discard and the stock's count read from
the DOM after each move (the cards it has seen so far remembered), through the strategy's visible-only bot
(``choose`` at strength 3: a removal whenever one fits, its column picked on two stocks sampled from the
unseen cards). Its pace is ``move_delay_ms`` (a log-normal per move, longer for more choices), quickened to
keep the test short (``TEMPO``) but above every human floor of the review: the first move after the board
shows at least ``FIRST_MOVE_MS``, no gap under the pace's 260 ms floor. The waits between moves are that
pace itself, the thing under test; every other wait is on a DOM marker or on the board's API.

``GOLFRACE_HONEST_SEED`` (default 1) picks the player's choices and pace, and the server's secret, hence the
day's deal: the calibration runs of docs/fair-play.md ran it with several seeds and read the review's score
from the server's log (printed here)."""

from __future__ import annotations

import hashlib
import os
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from golfrace.engine import Tap
from golfrace.races import knowledge
from golfrace.settings import Settings
from golfrace.settings.races import RaceSettings
from golfrace.store.embedded import RedisServer
from golfrace.strategy import Visible, choose, move_delay_ms, strength
from golfrace_testkit.servers import start_process, stop_process

from ..accounts.helpers import sign_up_in_page
from .conftest import ARTIFACTS, FAST_ENV, WORKER
from .helpers import of_type, open_page, record_frames, shot

pytestmark = pytest.mark.timeout(300)  # a loaded machine: the server's start, the game, then the review

SEED = int(os.environ.get("GOLFRACE_HONEST_SEED", "1"))
TEMPO = 0.3
"""The pace's tempo: 0.3 of ``move_delay_ms``'s median person (a quick player), never under its floor."""
FIRST_MOVE_MS = RaceSettings().review_first_move_ms + 200
"""The first move comes at least this long after the board shows (the review's floor and a margin)."""
REVIEW_S = 120.0
"""How long the review may take on a loaded machine (its CPU budget is 20 s of a niced worker's time)."""
# the real review, as shipped (the session's servers switch its timing floor off for fast test bots), and a
# short countdown
REAL_REVIEW = {
    "GOLFRACE_RACE_REVIEW_MIN_MOVES": str(RaceSettings().review_min_moves),
    "GOLFRACE_RACE_COUNTDOWN_MS": "1000",
}
SHOWN = """(v) => {
  const room = document.querySelector('.race-room');
  if (room?.dataset.v !== String(v)) return null;
  const board = room.querySelector('.race-board');
  const columns = [...board.querySelectorAll('.tableau .column')]
    .sort((a, b) => Number(a.dataset.col) - Number(b.dataset.col))
    .map((col) => [...col.querySelectorAll('.card')].map((card) => card.dataset.card));
  const top = board.querySelector('.discard .card:not(.under)');
  return {columns, discard: top ? top.dataset.card : null,
          stock_count: Number(board.querySelector('.stock .count').textContent)};
}"""
"""The board as the page shows it once it shows version ``v`` (null before)."""


def visible(page: Any, v: int, rules: dict[str, Any], seen: set[str]) -> Visible:
    """What the page shows once it shows move ``v``, and every card shown before (a player who counts
    cards)."""
    shown = page.wait_for_function(SHOWN, arg=v).json_value()
    seen.update(card for col in shown["columns"] for card in col)
    if shown["discard"]:
        seen.add(shown["discard"])
    return Visible.from_state({**shown, **rules}, seen=seen)


def review_score(log: Path, game: str) -> str:
    found = re.search(rf"knowledge review {re.escape(game)}: (\w+) \(score (-?[\d.]+)", log.read_text())
    return f"{found.group(1)} {found.group(2)}" if found else "not in the log"


def test_an_honest_daily_played_in_the_page_at_a_human_pace_is_cleared_and_on_the_board(
    new_context: Any, settings: Settings, client_dist: Any, own_redis: RedisServer
) -> None:
    started = time.monotonic()
    store = own_redis
    log = ARTIFACTS / f"browser-honest-review-{WORKER}.log"
    log.unlink(missing_ok=True)
    secret = hashlib.sha256(f"honest browser game {SEED}".encode()).hexdigest()  # the seed's own deal
    running = start_process(
        settings.with_(port=0, redis_url=store.url, secret=secret), env={**FAST_ENV, **REAL_REVIEW}, log=log
    )
    rng = random.Random(SEED)
    try:
        base = running.http
        page = open_page(new_context, f"{base}/#/daily")
        frames = record_frames(page)
        page.wait_for_function("window.golfrace.conn.welcome != null")
        username = sign_up_in_page(page)
        page.goto(f"{base}/#/daily")
        page.wait_for_selector(".daily-view[data-played='0'][data-guest='0']")
        page.click(".play-daily")
        page.wait_for_selector(".race-room[data-phase=running] .race-hud:not([hidden])", timeout=15_000)
        shown_at = time.monotonic()  # the board is shown: the first look starts
        race = str(page.evaluate("location.hash.split('/')[2]"))
        [snapshot] = [m for m in of_type(frames["received"], "snapshot") if m.get("state")][-1:]
        rules = {k: snapshot["state"][k] for k in ("rules", "variants") if k in snapshot["state"]}
        seen: set[str] = set()
        moves, gaps, last = 0, [], shown_at
        while legal := (now := visible(page, moves, rules, seen)).legal():
            action = choose(now, strength(3), rng)
            delay = move_delay_ms(rng, first=moves == 0, choices=len(legal), tempo=TEMPO)
            if moves == 0:
                delay = max(delay, FIRST_MOVE_MS)
            wait_ms = delay - (time.monotonic() - last) * 1000
            if wait_ms > 0:
                page.wait_for_timeout(wait_ms)  # the player's pace (see the module)
            gaps.append(round((time.monotonic() - last) * 1000))
            last = time.monotonic()
            if isinstance(action, Tap) and moves == 0:  # the mouse first, then the keys
                page.click(f'.race-board .tableau .column[data-col="{action.column}"] .card.free')
            else:
                page.keyboard.press(str(action.column) if isinstance(action, Tap) else "d")
            moves += 1
        assert moves >= RaceSettings().review_min_moves, "too short a game for the review"
        assert gaps[0] >= FIRST_MOVE_MS and sum(gaps) / len(gaps) >= RaceSettings().review_mean_gap_ms
        page.wait_for_selector(".results tr.me", timeout=15_000)
        played_s = time.monotonic() - started

        game = f"{race}-1"
        day = str(page.evaluate("new Date().toISOString().slice(0, 10)"))
        deadline = time.monotonic() + REVIEW_S
        entries: list[dict[str, Any]] = []
        with httpx.Client(base_url=base, timeout=10) as http:
            while not entries:  # the board's API, until the verdict put the result on it
                assert time.monotonic() < deadline, f"not on the board: {review_score(log, game)}"
                entries = http.get(f"/api/leaderboards/daily/{day}").json()["entries"]
                if not entries:
                    page.wait_for_timeout(200)
        assert [e.get("username") for e in entries] == [username]
        direct = redis.Redis.from_url(store.url)
        try:
            assert direct.get(knowledge.verdict_key(game)) == knowledge.CLEAR.encode()
        finally:
            direct.close()
        print(
            f"honest browser game, seed {SEED}: {moves} moves, mean gap {sum(gaps) / len(gaps):.0f} ms, "
            f"first {gaps[0]} ms, review {review_score(log, game)}; played in {played_s:.1f} s, judged after "
            f"{time.monotonic() - started:.1f} s"
        )
        shot(page, "honest-review-results")
        assert page.errors == []
    finally:
        stop_process(running)
