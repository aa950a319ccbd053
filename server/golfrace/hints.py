"""Hints for solo games: ``{t: "hint", game}`` -> the next move of a winning line (or of the best line).

A server extension (listed in ``app.EXTENSIONS``): its handler answers the ``hint`` message of messages.py.
Only the game's player may ask, and only for a solo game (race and daily seats are stored games marked
with their race: they answer ``no_game``, races get no hints). The solver runs in a worker thread under a
named budget (``settings.HintSettings``, ``GOLFRACE_HINT_*``), in a task of its own so that the connection
keeps playing while it thinks; one hint per connection is computed at a time (``hint_busy`` otherwise).

Solo games feed no leaderboard (only race and daily records do, see ``races/service.py``), so a hinted game
needs no mark to keep it off the boards.

The answer names a column or the stock, never a card: the hint frame carries no card identity, so nothing
beyond the public state leaves the server other than the advice itself (the solver does read the hidden
stock order, as any hint must).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from .dispatch import answered_later, handler
from .engine import Draw, Game, Status, Tap
from .engine.actions import Action
from .engine.solver import SolveResult, solve
from .protocol import ProtocolError
from .session import Session
from .settings import HintSettings

log = logging.getLogger("golfrace.hints")


EXTRAS_KEY = "hints_in_flight"
_TASKS: set[asyncio.Task[None]] = set()  # keeps running hint tasks referenced until they finish


# --- pure part ------------------------------------------------------------------------------------------
def move_of(action: Action | None) -> dict[str, Any] | None:
    """The wire form of a suggested move: a column or the stock, never a card."""
    if isinstance(action, Tap):
        return {"a": "tap", "col": action.column}
    if isinstance(action, Draw):
        return {"a": "draw"}
    return None


def think(game: Game, settings: HintSettings) -> tuple[Action | None, bool | None]:
    """The hinted action and whether the position can still be won (None: the budget ran out).

    Among the winning lines, a removal is preferred to a draw when one is known to keep the win: a draw
    the solver chose first is replaced by the first removal whose position it proves winnable within what
    is left of the budget."""
    if game.status is Status.WON:
        return None, True
    if game.status is not Status.PLAYING:
        return None, False
    started = time.monotonic()
    result: SolveResult = solve(
        game, max_states=settings.max_states, max_seconds=settings.max_seconds, clock=time.monotonic
    )
    first = result.line[0] if result.line else None
    if result.winnable and isinstance(first, Draw):
        for action in game.legal_actions():
            if not isinstance(action, Tap):
                continue
            left = settings.max_seconds - (time.monotonic() - started)
            if left <= 0:
                break
            after = solve(
                game.apply(action), max_states=settings.max_states, max_seconds=left, clock=time.monotonic
            )
            if after.winnable:
                return action, True
    return first, result.winnable


# --- the handler ------------------------------------------------------------------------------------------
@handler("hint")
async def on_hint(session: Session, msg: dict[str, Any]) -> None:
    game_id = msg["game"]
    busy = int(session.extras.get(EXTRAS_KEY, 0))
    if busy >= session.settings.hints.in_flight:
        raise ProtocolError(
            "hint_busy", "a hint is still being computed; ask again after it", ref="hint", game=game_id
        )
    stored = await session.ctx.store.load(game_id)
    if stored is None or "race" in stored.meta:  # a race seat is a stored game too, but gets no hints
        raise ProtocolError("no_game", f"no game {game_id!r}", ref="hint", game=game_id)
    if stored.owner != session.player:
        raise ProtocolError("not_player", "hints are for the game's player", ref="hint", game=game_id)
    session.extras[EXTRAS_KEY] = busy + 1
    answered_later()
    rid = msg.get("rid")
    task = asyncio.create_task(_answer(session, game_id, stored.v, stored.game, session.settings.hints, rid))
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


async def _answer(
    session: Session, game_id: str, v: int, game: Game, settings: HintSettings, rid: str | None
) -> None:
    try:
        action, winnable = await asyncio.to_thread(think, game, settings)
        if not session.closing:
            answer = {"t": "hint", "game": game_id, "v": v, "move": move_of(action), "winnable": winnable}
            session.send({**answer, "rid": rid} if rid is not None else answer)
    except Exception:
        log.exception("hint failed for %s", game_id)
        if not session.closing:
            error = ProtocolError("internal", "the hint could not be computed", ref="hint")
            error.rid = rid
            session.error(error)
    finally:
        session.extras[EXTRAS_KEY] = max(0, int(session.extras.get(EXTRAS_KEY, 1)) - 1)
