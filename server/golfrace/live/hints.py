"""Hints for solo games: ``{t: "hint", game}`` -> the next move of a winning line (or of the best line).

A server extension (listed in ``app.EXTENSIONS``): its handler answers the ``hint`` message of messages.py.
Only the game's player may ask, and only for a solo game (race and daily seats are stored games marked
with their race: they answer ``no_game``, races get no hints). The solver (``hint_worker.py``) runs under a
named budget (``settings.HintSettings``, ``GOLFRACE_HINT_*``) in a worker process of the bounded
``hint_queue.HintQueue``, awaited by a task of its own so that the connection keeps playing while it thinks;
one hint per connection and per player is computed at a time, and a full queue refuses more (``hint_busy``
with ``reason`` and ``retry_ms``); each network pays its ``hint`` bucket (``limits.py``).

A solo game feeds a board only as a hole of a nine-deal course (``golfrace.course``): a hint marks the game
``hinted`` (``Store.mark_hinted``, before it is computed), and a course with a hinted hole goes on no board.
A sealed hole (the weekend's daily course, ``meta["sealed"]``) gets no hint at all, as a race seat.

The answer names a column or the stock, never a card: the hint frame carries no card identity, so nothing
beyond the public state leaves the server other than the advice itself (the solver does read the hidden
stock order, as any hint must).
"""

from __future__ import annotations

import logging
from typing import Any

from golfrace.engine import Game
from golfrace.live.dispatch import answered_later, handler
from golfrace.live.hint_queue import HintQueue, HintRefused
from golfrace.live.hint_worker import move_of, think
from golfrace.live.services import Context
from golfrace.live.session import Session
from golfrace.live.tasks import Tasks
from golfrace.wire.protocol import ProtocolError
from golfrace.wire.views import sealed

__all__ = ["move_of", "on_hint", "think"]
log = logging.getLogger("golfrace.live.hints")


class HintTasks(Tasks):
    """The tasks that await hints being computed (one per hint asked for), the hints extension's: cancelled
    and awaited at its shutdown, before its worker processes go."""


def queue_of(ctx: Context) -> HintQueue:
    """This app's hint queue (the ``hints`` extension's, made at start-up)."""
    return ctx.get(HintQueue)


async def startup(ctx: Context) -> None:
    ctx.provide(HintQueue(ctx.settings.hints))
    ctx.provide(HintTasks())


async def shutdown(ctx: Context) -> None:
    tasks = ctx.find(HintTasks)
    if tasks is not None:
        await tasks.close()
    queue = ctx.find(HintQueue)
    if queue is not None:
        queue.close()


# --- the handler ------------------------------------------------------------------------------------------
@handler("hint")
async def on_hint(session: Session, msg: dict[str, Any]) -> None:
    game_id = msg["game"]
    busy = session.hints_busy
    if busy >= session.settings.hints.in_flight:
        raise ProtocolError(
            "hint_busy", "a hint is still being computed; ask again after it", ref="hint", game=game_id
        )
    queue = queue_of(session.ctx)
    player = str(session.player)
    try:
        queue.admit(player)  # before any storage read: a refusal costs the server almost nothing
    except HintRefused as exc:
        raise ProtocolError(
            "hint_busy",
            "hints are busy; ask again later" if exc.reason == "queue_full" else "your hint is still coming",
            ref="hint",
            game=game_id,
            reason=exc.reason,
            retry_ms=exc.retry_ms,
        ) from None
    try:
        stored = await session.ctx.store.load(game_id)
        if stored is None or sealed(stored.meta):  # a race seat or a sealed hole: no hints
            raise ProtocolError("no_game", f"no game {game_id!r}", ref="hint", game=game_id)
        if stored.owner != player:
            raise ProtocolError("not_player", "hints are for the game's player", ref="hint", game=game_id)
        await session.ctx.store.mark_hinted(game_id)
    except BaseException:
        queue.release(player)
        raise
    session.hints_busy = busy + 1
    answered_later()
    rid = msg.get("rid")
    tasks = session.ctx.get(HintTasks)
    tasks.spawn(_answer(session, queue, game_id, stored.v, stored.game, rid))


async def _answer(
    session: Session, queue: HintQueue, game_id: str, v: int, game: Game, rid: str | None
) -> None:
    try:
        action, winnable, best = await queue.run(str(session.player), game)
        if not session.closing:
            answer = {
                "t": "hint",
                "game": game_id,
                "v": v,
                "move": move_of(action),
                "winnable": winnable,
                "best": best,
            }
            session.send({**answer, "rid": rid} if rid is not None else answer)
    except Exception:
        log.exception("hint failed for %s", game_id)
        if not session.closing:
            error = ProtocolError("internal", "the hint could not be computed", ref="hint")
            error.rid = rid
            session.error(error)
    finally:
        session.hints_busy = max(0, session.hints_busy - 1)
