"""The daily challenge over websockets with an injected clock: determinism, first attempt, streaks, the
live daily leaderboard, the share text, and replay verification of the stored record."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from golfrace.engine import GameCode, Status, parse_token, replay
from golfrace.races import solving
from golfrace.races.daily import choose_code, day_start_ms
from golfrace.races.followers import RaceWire
from golfrace.settings import Settings
from golfrace_testkit.servers import RunningServer, running_server

from ..accounts.helpers import sign_in_client
from ..clock import MovableClock
from ..conftest import TEST_SECRET
from .test_wire import T, open_seat, play_out, wait_start

DAY = date(2031, 3, 14)


class FakeClock(MovableClock):
    """Server time = wall time shifted to a chosen day; a countdown ends when the test moves it on."""

    def __init__(self, day: date) -> None:
        super().__init__()
        self.go(day)

    def go(self, day: date) -> None:
        self.set(day_start_ms(day) + 12 * 3_600_000)


@pytest.fixture
async def clocked(settings: Settings) -> AsyncIterator[tuple[RunningServer, FakeClock]]:
    """A server of its own on an injected clock (``create_app(..., clock=...)``) that a test moves."""
    clock = FakeClock(DAY)
    async with running_server(settings.with_(port=0), clock=clock) as srv:
        yield srv, clock


async def play_daily(client: Any, resign: bool, clock: MovableClock | None = None) -> dict[str, Any]:
    # the answer, not a `race` of an earlier attempt (its par, computed from the start, comes when known)
    earlier = {m["race"] for m in client._inbox if m.get("t") == "race"}
    await client.send({"t": "daily_play"})
    race = await client.expect(
        "race",
        T,
        where=lambda m: m.get("daily") is not None and m["phase"] != "finished" and m["race"] not in earlier,
    )
    rid = race["race"]
    if resign:
        await client.send({"t": "race_resign", "race": rid})
    else:
        game = await open_seat(client, rid, 1)
        assert game["state"]["code"] is None
        await wait_start(race, clock)
        await play_out(client, rid, game["state"], 0)
    done = await client.expect("race", T, where=lambda m: m["race"] == rid and m["phase"] == "finished")
    return {**race, "final": done}


async def daily(client: Any) -> dict[str, Any]:
    await client.send({"t": "daily"})
    return await client.expect("daily", T)


async def test_daily_first_attempt_streaks_and_board(
    make_client: Any, clocked: tuple[RunningServer, FakeClock]
) -> None:
    server, clock = clocked
    player = await make_client(server.ws, name="Dee")
    await sign_in_client(server.ctx.redis, player, "Dee")  # the daily board takes accounts only
    fan = await make_client(server.ws, name="Fan")
    await fan.send({"t": "board_watch", "board": f"daily:{DAY}"})
    assert (await fan.expect("board", T))["total"] == 0

    status = await daily(player)
    assert status["date"] == DAY.isoformat() and not status["played"] and status["streak"] == 0
    assert status["next_at"] == day_start_ms(DAY + timedelta(days=1))
    assert 12 * 3_600_000 - 5_000 < status["next_in"] <= 12 * 3_600_000
    assert status["code"] is None and status["share"] is None

    first = await play_daily(player, resign=False, clock=clock)
    assert first["ranked"] and first["options"]["seats"] == 1 and first["code"] is None
    assert first["final"]["code"] is None  # fair play 11.2: not before the day is over, not to its player
    secret = hmac.new(TEST_SECRET.encode(), b"golfrace daily challenge", hashlib.sha256).digest()
    expected = choose_code(DAY, secret, lambda c: solving.winnable(c, 2.0), 64)
    code = str(expected)
    assert solving.winnable(GameCode.parse(code)) is True

    live = await fan.expect("board", T, where=lambda m: m["total"] == 1)
    entry = live["entries"][0]
    assert entry["player"] == player.player and entry["rank"] == 1

    status = await daily(player)
    assert status["played"] and status["streak"] == 1 and status["code"] is None
    result = first["final"]["results"][0]
    head, symbols = status["share"].splitlines()
    mins, secs = divmod(result["elapsed"] // 1000, 60)
    time = f"{mins}:{secs:02d}.{result['elapsed'] % 1000 // 100}"
    assert head == f"Golf Race daily {DAY} · {result['score']} · {time} · {result['moves']} moves"
    assert len(symbols) == 7 and code not in status["share"]

    practice = await play_daily(player, resign=True, clock=clock)
    assert not practice["ranked"]
    assert (await daily(player))["result"]["game"] == result["game"]  # the first attempt still counts

    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        board = (await http.get(f"/api/leaderboards/daily/{DAY}", params={"token": player.token})).json()
        assert board["total"] == 1 and board["you"]["rank"] == 1
        assert (await http.get(f"/api/leaderboards/daily/{DAY + timedelta(days=1)}")).status_code == 400
        # the day is still on: nobody may fetch the record, its own player included (fair play 11.2)
        assert (await http.get(f"/api/games/{result['game']}")).status_code == 409
        own = {"Authorization": f"Bearer {player.token}"}
        assert (await http.get(f"/api/games/{result['game']}", headers=own)).status_code == 409
        clock.go(DAY + timedelta(days=1))
        rec = (await http.get(f"/api/games/{result['game']}")).json()
    assert rec["code"] == code
    final = replay(rec["code"], [parse_token(t) for t, _ms in rec["log"]])
    assert final.status is not Status.PLAYING and final.score == rec["score"] == result["score"]
    assert len(rec["steps"]) == len(rec["log"]) == final.moves + final.undos

    # the next day: the streak grows; a skipped day breaks it
    assert (await daily(player))["streak"] == 1
    nxt = await play_daily(player, resign=True, clock=clock)
    assert nxt["ranked"] and nxt["daily"] == (DAY + timedelta(days=1)).isoformat()
    status = await daily(player)
    assert status["streak"] == 2 and status["best_streak"] == 2 and status["code"] is None
    clock.go(DAY + timedelta(days=3))
    status = await daily(player)
    assert status["streak"] == 0 and status["best_streak"] == 2 and not status["played"]


async def test_the_daily_code_stays_secret_until_the_day_is_over(
    make_client: Any, clocked: tuple[RunningServer, FakeClock]
) -> None:
    server, clock = clocked
    clock.go(DAY + timedelta(days=10))
    player = await make_client(server.ws, name="Dee")
    await sign_in_client(server.ctx.redis, player, "Dee")  # only an account is dealt the day's deal (19.1)
    other = await make_client(server.ws, name="Oz")
    # a second daily_play while the first attempt is unfinished takes the player back to it
    await player.send({"t": "daily_play"})
    first = await player.expect("race", T, where=lambda m: m.get("daily") is not None)
    await player.send({"t": "daily_play"})
    again = await player.expect("race", T, where=lambda m: m.get("daily") is not None)
    assert again["race"] == first["race"] and again["ranked"]
    await player.send({"t": "race_resign", "race": first["race"]})
    done = await player.expect(
        "race", T, where=lambda m: m["race"] == first["race"] and m["phase"] == "finished"
    )
    # fair play 11.2 (a throwaway token resigns at once): not even its own player sees the code the same day,
    # nor anybody else: not in the race's page data, not when watching it
    assert done["code"] is None
    code = str(await server.ctx.get(RaceWire).service.daily.code(DAY + timedelta(days=10)))
    async with httpx.AsyncClient(base_url=server.http, timeout=T) as http:
        assert (await http.get(f"/api/races/{first['race']}")).json()["code"] is None
        await other.send({"t": "watch", "race": first["race"]})
        assert (await other.expect("race_watch", T))["code"] is None
        clock.go(DAY + timedelta(days=11))  # the day is over: the code is public
        assert (await http.get(f"/api/races/{first['race']}")).json()["code"] == code


async def test_a_daily_play_refused_for_its_name_does_not_use_up_the_attempt(
    make_client: Any, clocked: tuple[RunningServer, FakeClock]
) -> None:
    server, clock = clocked
    clock.go(DAY + timedelta(days=20))
    player = await make_client(server.ws, name="N" * 30)  # hello allows 32 characters, a race name 24
    session = await sign_in_client(server.ctx.redis, player, "Dee")  # the day's deal: accounts only (19.1)
    await player.send({"t": "daily_play"})
    assert (await player.expect("error", T))["code"] == "bad_option"
    await player.send({"t": "hello", "name": "Dee", "session": session})
    await player.expect("welcome", T)
    await player.send({"t": "daily_play"})
    race = await player.expect("race", T, where=lambda m: m.get("daily") is not None)
    assert race["ranked"]  # still the day's first attempt
