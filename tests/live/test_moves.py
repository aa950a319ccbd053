"""``live/moves.py`` without a socket, on the session's server and its real Redis: a move is answered
(``ack``) and its diff delivered, a resent ``seq`` gets the same answer without moving the game again, an
illegal move is refused and recorded as that seq's answer, and a Play game's end is followed up (the player's
list of open games) by a task the app owns (``ctx.tasks``), which then ends."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from golfrace.engine import parse_token
from golfrace.live.handlers import on_new
from golfrace.live.moves import on_act
from golfrace.live.session import Session
from golfrace.wire.protocol import JSON, ProtocolError
from golfrace_testkit.servers import RunningServer

from ..server.helpers import WIN_CODE, WIN_MOVES
from ..waiting import until
from .sockets import Recorded


async def new_game(server: RunningServer, player: str) -> tuple[Session, Recorded, str]:
    socket = Recorded()
    session = Session(server.ctx, socket, JSON)
    session.player = player
    await on_new(session, {"t": "new", "code": WIN_CODE})
    await until(lambda: any(f["t"] == "snapshot" for f in socket.frames), "the new game's snapshot")
    game = next(f for f in socket.frames if f["t"] == "snapshot")["game"]
    return session, socket, game


def answers(socket: Recorded, t: str) -> list[dict[str, Any]]:
    return [f for f in socket.frames if f["t"] == t]


def move_of(text: str) -> dict[str, Any]:
    action = parse_token(text)
    column = getattr(action, "column", None)
    return {"a": "draw"} if column is None else {"a": "tap", "col": column}


async def test_a_move_is_acknowledged_and_its_diff_delivered(server: RunningServer, player: str) -> None:
    session, socket, game = await new_game(server, player)
    await on_act(session, {"t": "act", "game": game, "seq": 1, **move_of(WIN_MOVES.split()[0])})
    await until(lambda: answers(socket, "ack") and answers(socket, "diff"), "the ack and the diff")
    assert answers(socket, "ack")[0]["v"] == 1 and answers(socket, "diff")[0]["v"] == 1
    await on_act(session, {"t": "act", "game": game, "seq": 1, **move_of(WIN_MOVES.split()[0])})  # resent
    await until(lambda: len(answers(socket, "ack")) == 2, "the resend's answer")
    assert answers(socket, "ack")[1]["v"] == 1  # the same answer: the game moved once
    stored = await server.ctx.store.load(game)
    assert stored is not None and stored.v == 1
    await session.shutdown()


async def test_an_illegal_move_is_refused_and_recorded(server: RunningServer, player: str) -> None:
    session, socket, game = await new_game(server, player)
    await on_act(session, {"t": "act", "game": game, "seq": 1, "a": "undo"})  # nothing to undo
    await until(lambda: answers(socket, "refused"), "the refusal")
    refused = answers(socket, "refused")[0]
    assert refused["seq"] == 1 and refused["code"]
    stored = await server.ctx.store.load(game)
    assert stored is not None and stored.v == 0
    await session.shutdown()


async def test_a_move_needs_the_game_open_as_its_player(server: RunningServer, player: str) -> None:
    _, _, game = await new_game(server, player)
    stranger = Session(server.ctx, Recorded(), JSON)
    stranger.player = player + "x"
    with pytest.raises(ProtocolError) as refused:
        await on_act(stranger, {"t": "act", "game": game, "seq": 1, "a": "draw"})
    assert refused.value.code == "not_open"


async def test_the_end_of_a_play_game_is_followed_up_by_an_owned_task(
    server: RunningServer, player: str
) -> None:
    session, socket, game = await new_game(server, player)
    assert game in await server.ctx.store.player_games(player)
    moves = WIN_MOVES.split()
    for seq, text in enumerate(moves, start=1):
        await on_act(session, {"t": "act", "game": game, "seq": seq, **move_of(text)})
    await until(lambda: len(answers(socket, "ack")) == len(moves), "every move's ack")
    await until(lambda: len(server.ctx.tasks) == 0, "the app's follow-up task ended")
    assert game not in await server.ctx.store.player_games(player)  # the follow-up: no longer open
    await session.shutdown()


@pytest.fixture
def player() -> str:
    return f"p{secrets.token_hex(8)}"
