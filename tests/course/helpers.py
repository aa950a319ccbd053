"""Playing a hole to its end over a real websocket, and the course's HTTP calls."""

from __future__ import annotations

from typing import Any

import httpx

from golfrace.accounts.sessions import COOKIE
from golfrace.engine import Draw, Game, GameCode, Status, Tap

T = 20.0


def line(code: GameCode | str, draws_final: bool = False, draw_first: bool = False) -> list[Tap | Draw]:
    """A simple line to the deal's end: the leftmost playable column, else a draw (``draw_first``: a draw
    while the stock lasts, a worse line)."""
    game = Game.new(GameCode.parse(str(code)), draws_final=draws_final)
    actions: list[Tap | Draw] = []
    while game.status is Status.PLAYING:
        columns = game.playable_columns()
        tap = bool(columns) and not (draw_first and game.stock_count)
        action: Tap | Draw = Tap(columns[0] + 1) if tap else Draw()
        actions.append(action)
        game = game.apply(action)
    return actions


def end_of(code: GameCode | str, draws_final: bool = False, draw_first: bool = False) -> Game:
    game = Game.new(GameCode.parse(str(code)), draws_final=draws_final)
    for action in line(code, draws_final, draw_first):
        game = game.apply(action)
    return game


async def play(client: Any, game_id: str, actions: list[Tap | Draw]) -> None:
    for action in actions:
        if isinstance(action, Tap):
            answer = await client.act(game_id, "tap", col=action.column, timeout=T)
        else:
            answer = await client.act(game_id, "draw", timeout=T)
        assert answer["t"] == "ack", answer


def auth(client: Any, session: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {client.token}"}
    if session:
        headers["Cookie"] = f"{COOKIE}={session}"
    return headers


async def record(
    http: httpx.AsyncClient, client: Any, course: str, hole: int, game: str, session: str | None = None
) -> httpx.Response:
    return await http.post(
        f"/api/courses/{course}/holes", json={"hole": hole, "game": game}, headers=auth(client, session)
    )


def refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status and answer.json()["error"] == code, answer.text
    assert set(answer.json()) == {"error", "message"}
