"""The move: the ``act`` handler, from the player's action to its one commit and its answer.

``on_act`` takes the game from the process cache (or loads it with any earlier answer to this ``seq``), runs
``Game.apply``, builds the diff and the answer (``ack`` or ``refused``) and commits them in one Redis round
trip (``store.commit``), trying again on a version conflict; then it delivers the diff to the local
followers and answers. A race seat is an ordinary game whose commit also checks the race's gate and
publishes its move event (``SeatRules``, the race extension's, in ``ctx.extras[SEATS]``). A resent ``seq``
gets its stored answer again (``_answer_again``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable
from typing import Any, Protocol

from redis.exceptions import RedisError

from . import metrics
from .accounts import history as accounts_history
from .commit import Also, Gate
from .dispatch import handler
from .engine import Action, Draw, Game, Refusal, Status, Tap, Undo, token
from .engine.i18n import catalog, refusal_message
from .errors import cause
from .keys import channel
from .protocol import ProtocolError, unpack
from .session import Session
from .stored import Stored
from .views import action_name, diff

log = logging.getLogger("golfrace.handlers")
SEATS = "seats"
"""``ctx.extras`` key of the race extension's ``SeatRules`` (race seats are ordinary games plus a gate)."""


class SeatRules(Protocol):
    """What a race adds to the move of one of its seats (``stored.meta`` names the race)."""

    async def prepare(
        self, stored: Stored, after: Game | None, change: dict[str, Any] | None, now: int
    ) -> tuple[Gate, Also | None]:
        """The race gate the commit checks, and the race's move event it publishes (for a move)."""
        ...

    def resent(self, stored: Stored) -> Awaitable[None] | None:
        """A move of the seat that Redis had stored already (a resent seq, a commit whose reply was lost):
        its event may not have reached this instance's followers of the race (they get it locally from
        the commit that stores it), so they catch up; and the race follows as after ``committed``."""
        ...

    def stale(self, stored: Stored) -> None:
        """The commit answered ``regate``: the race changed since ``prepare`` read it (read it again)."""
        ...

    def committed(self, stored: Stored, status_changed: bool) -> Awaitable[None] | None:
        """A move of the seat was stored (by us, or earlier: a resent seq): the race follows in a task of
        its own (done when it has), which the move's answer does not wait for."""
        ...


def _action(msg: dict[str, Any]) -> Action:
    a = msg["a"]
    if a == "draw":
        return Draw()
    if a == "undo":
        return Undo()
    if "col" not in msg:
        raise ProtocolError("bad_field", "act: a tap needs `col`", ref=msg["seq"], field="col")
    return Tap(msg["col"], msg.get("row"))


@handler("act")
async def on_act(session: Session, msg: dict[str, Any]) -> None:
    game_id, seq = msg["game"], msg["seq"]
    follow = session.follows.get(game_id)
    if follow is None or follow.role != "player":
        raise ProtocolError("not_open", "open the game as its player first", ref=seq, game=game_id)
    action = _action(msg)
    store = session.ctx.store
    stored = store.cached(game_id)  # optimistic: the commit checks the version and the seq in Redis
    gated: dict[str, Any] | None = None  # the race gate's refusal, recorded as this seq's answer
    for _ in range(session.settings.cas_retries):
        if stored is None:
            stored, earlier = await store.load_with_answer(game_id, session.stream, seq)
            if earlier is not None:
                await _answer_again(session, game_id, unpack(earlier))
                return
            if stored is None:
                raise ProtocolError("no_game", "the game has expired", ref=seq, game=game_id)
        if stored.owner != session.player:
            raise ProtocolError("not_player", "this game belongs to another player", ref=seq, game=game_id)
        before: Game = stored.game
        after: Game | None = None
        change: dict[str, Any] | None = None
        if gated is not None:
            answer: dict[str, Any] = gated
        else:
            try:
                after = before.apply(action)
            except Refusal as refusal:
                answer = _refused(game_id, seq, refusal.code, refusal.params)
            else:
                answer = {"t": "ack", "game": game_id, "seq": seq, "v": stored.v + 1}
                change = diff(game_id, stored.v, before, after, action, stored.hidden, stored.meta)
        now = store.clock()
        seats: SeatRules | None = session.ctx.extras.get(SEATS) if "race" in stored.meta else None
        gate, also = (None, None)
        if seats is not None and gated is None:
            gate, also = await seats.prepare(stored, after, change, now)
        started = time.perf_counter()
        result = await store.commit(
            stored,
            session.stream,
            seq,
            answer,
            after,
            change,
            f"{token(action)} {now}",
            gate=gate,
            also=also,
            undo=isinstance(action, Undo),
        )
        metrics.REDIS_SECONDS.observe(time.perf_counter() - started)
        if result.outcome == "gate":  # recorded next round, as an answer only (a resend gets it again)
            gated = _refused(game_id, seq, result.refusal, {})
            continue
        if result.outcome == "regate" and seats is not None:  # the race changed: describe it anew
            seats.stale(stored)
            continue
        if result.outcome == "conflict":
            metrics.CONFLICTS.inc()
            stored = None
            continue
        if result.outcome == "dup" and result.answer is not None:
            await _answer_again(session, game_id, unpack(result.answer))
            return
        if result.outcome == "stale":
            raise ProtocolError("stale_seq", f"seq {seq} is older than the last answered", ref=seq)
        if result.outcome == "nogame":
            store.forget(game_id)
            raise ProtocolError("no_game", "the game has expired", ref=seq, game=game_id)
        if change is not None and after is not None:
            store.advanced(stored, after)
            metrics.labelled(metrics.MOVES, action_name(action)).inc()
            session.ctx.hub.deliver_local(channel(game_id), change, result.diff)
            changed = (before.status is Status.PLAYING) != (after.status is Status.PLAYING)
            if seats is not None:  # the ack first: the race follows its seat in a task of its own
                session.send(answer)
                followed = seats.committed(store.cached(game_id) or stored, changed)
                if also is not None:  # published after the diff: delivered here in the same order
                    session.ctx.hub.deliver_local(also.channel, also.message, also.raw)
                await _followed(followed)
                return
            if changed:
                await store.set_open(stored.owner, game_id, after.status is Status.PLAYING)
                if after.status is not Status.PLAYING:  # the player's history (profile, stats page)
                    await accounts_history.solo_over(
                        session.ctx.redis, session.settings.accounts, stored, after, session.ctx.clock()
                    )
        else:
            metrics.REFUSALS.labels(answer["code"]).inc()
        session.send(localize(answer, session.lang))
        return
    raise ProtocolError("busy", "too much contention on this game, resend the same seq", ref=seq)


def _refused(game_id: str, seq: int, code: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"t": "refused", "game": game_id, "seq": seq, "code": code, "params": params}


async def _followed(follow: Awaitable[None] | None) -> None:
    """After a seat's answer: the connection's later requests that wait for this one (``lanes.py``: its
    next request on the race, or one that reads what the race's end wrote, e.g. ``daily``) wait until the
    race has followed its seat too. The answer is sent, so the request's deadline or the connection's end
    only stops the wait (never an ``unavailable`` after an ``ack``); the race follows regardless."""
    if follow is None:
        return
    with contextlib.suppress(asyncio.CancelledError, Exception):  # the task logs its own failures
        await asyncio.shield(follow)


async def _answer_again(session: Session, game_id: str, earlier: dict[str, Any]) -> None:
    """A resent seq gets its stored answer. For a move that Redis had applied already (a resend by the
    client, or a batch retried after its reply was lost, whose diff this process never delivered), the local
    followers catch up from the store and the player's list of unfinished games follows the game's status;
    that is best effort: the seq has its one answer already."""
    session.send(localize(earlier, session.lang))
    if earlier.get("t") != "ack":
        return
    store = session.ctx.store
    store.forget(game_id)
    session.ctx.hub.resume(channel(game_id))
    try:
        stored = await store.load(game_id)
        seats: SeatRules | None = session.ctx.extras.get(SEATS)
        if stored is not None and "race" in stored.meta and seats is not None:
            await _followed(seats.resent(stored))
        elif stored is not None:
            await store.set_open(stored.owner, game_id, stored.game.status is Status.PLAYING)
    except RedisError as exc:
        log.warning("after a resent move on %s: %s", game_id, cause(exc))


def localize(answer: dict[str, Any], lang: str) -> dict[str, Any]:
    """A stored answer as sent: refusals get their text in the client's language."""
    if answer.get("t") == "refused":
        code = answer["code"]
        if code in catalog(lang)["refusal"]:
            return {**answer, "message": refusal_message(code, lang)}
        return {**answer, "message": catalog(lang)["ui"]["errors"].get(code, code)}  # a race gate's code
    return answer
