"""The move: the ``act`` handler, from the player's action to its one commit and its answer.

``on_act`` takes the game from the process cache (or loads it with any earlier answer to this ``seq``), runs
``Game.apply``, builds the diff and the answer (``ack`` or ``refused``) and commits them in one Redis round
trip (``store.commit``), trying again on a version conflict; then it delivers the diff to the local
followers and answers. A race seat is an ordinary game whose commit also checks the race's gate and
publishes its move event (``SeatRules``, the race extension's, in ``ctx.seats``). A resent ``seq``
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

from golfrace.engine import Action, Draw, Game, Refusal, Status, Tap, Undo, token
from golfrace.engine.i18n import catalog, refusal_message
from golfrace.live import metrics, solo_follow
from golfrace.live.dispatch import handler
from golfrace.live.session import Session
from golfrace.store.commit import Also, Commit, Gate, Outcome
from golfrace.store.keys import channel
from golfrace.store.stored_game import Stored
from golfrace.wire.errors import cause
from golfrace.wire.protocol import ProtocolError, unpack
from golfrace.wire.views import action_name, diff, undo_open

log = logging.getLogger("golfrace.live.handlers")


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
            stored = await _load(session, game_id, seq)
            if stored is None:
                return  # answered again
        if stored.owner != session.player:
            raise ProtocolError("not_player", "this game belongs to another player", ref=seq, game=game_id)
        answer, after, change = _move(session, stored, action, seq, gated)
        now = store.clock()
        seats: SeatRules | None = session.ctx.seats if "race" in stored.meta else None
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
        outcome = result.outcome
        if outcome is Outcome.OK:
            await _committed(session, stored, action, answer, after, change, result, seats, also)
            return
        if outcome is Outcome.GATE:  # recorded next round, as an answer only (a resend gets it again)
            gated = _refused(game_id, seq, result.refusal, {})
        elif outcome is Outcome.REGATE:  # the race changed: describe it anew
            if seats is not None:
                seats.stale(stored)
        elif outcome is Outcome.CONFLICT:
            metrics.CONFLICTS.inc()
            stored = None
        else:
            await _not_recorded(session, result, game_id, seq)
            return
    raise ProtocolError("busy", "too much contention on this game, resend the same seq", ref=seq)


async def _load(session: Session, game_id: str, seq: int) -> Stored | None:
    """The game from Redis, with any earlier answer to ``seq``: None once that answer is sent again."""
    stored, earlier = await session.ctx.store.load_with_answer(game_id, session.stream, seq)
    if earlier is not None:
        await _answer_again(session, game_id, unpack(earlier))
        return None
    if stored is None:
        raise ProtocolError("no_game", "the game has expired", ref=seq, game=game_id)
    return stored


def _move(
    session: Session, stored: Stored, action: Action, seq: int, gated: dict[str, Any] | None
) -> tuple[dict[str, Any], Game | None, dict[str, Any] | None]:
    """The engine's verdict on ``action``: the answer (``ack`` or ``refused``; ``gated``: the race gate's
    refusal, to record), and for a move the game after it and its diff."""
    game_id = stored.id
    if gated is not None:
        return gated, None, None
    if stored.v >= session.settings.max_game_actions:  # the move log is full: bounded per game
        return (
            _refused(game_id, seq, "too_many_moves", {"max": session.settings.max_game_actions}),
            None,
            None,
        )
    before = stored.game
    if isinstance(action, Undo) and "sealed" in stored.meta and not undo_open(before, stored.meta):
        return _refused(game_id, seq, "game_ended", {}), None, None  # a sealed hole's stuck end is its result
    try:
        after = before.apply(action)
    except Refusal as refusal:
        return _refused(game_id, seq, refusal.code, refusal.params), None, None
    answer = {"t": "ack", "game": game_id, "seq": seq, "v": stored.v + 1}
    return answer, after, diff(game_id, stored.v, before, after, action, stored.hidden, stored.meta)


async def _committed(
    session: Session,
    stored: Stored,
    action: Action,
    answer: dict[str, Any],
    after: Game | None,
    change: dict[str, Any] | None,
    result: Commit,
    seats: SeatRules | None,
    also: Also | None,
) -> None:
    """Recorded: a move is delivered to the local followers (a seat's race follows it, a Play game's end
    is followed up), and the answer is sent."""
    if change is None or after is None:
        metrics.REFUSALS.labels(answer["code"]).inc()
        session.send(localize(answer, session.lang))
        return
    store, hub, game_id = session.ctx.store, session.ctx.hub, stored.id
    before = stored.game
    store.advanced(stored, after)
    metrics.labelled(metrics.MOVES, action_name(action)).inc()
    hub.deliver_local(channel(game_id), change, result.diff)
    changed = (before.status is Status.PLAYING) != (after.status is Status.PLAYING)
    if seats is not None:  # the ack first: the race follows its seat in a task of its own
        session.send(answer)
        followed = seats.committed(store.cached(game_id) or stored, changed)
        if also is not None:  # published after the diff: delivered here in the same order
            hub.deliver_local(also.channel, also.message, also.raw)
        await _followed(followed)
        return
    if changed:  # stored: acknowledged at once, whatever the shard of the player's keys does
        following = _SoloFollow(session, stored, after)
        await asyncio.wait({following.task}, timeout=session.settings.solo_end_wait_s)
        await following.keep()  # not done yet: durable first (bounded by its own timeouts)
        session.send(localize(answer, session.lang))
        await _followed(following.task)  # this connection's later requests still come after it
        return
    session.send(localize(answer, session.lang))


async def _not_recorded(session: Session, result: Commit, game_id: str, seq: int) -> None:
    """A commit that recorded nothing and ends the move: ``dup`` (the earlier answer again), ``stale`` or
    ``nogame``."""
    if result.outcome is Outcome.DUP and result.answer is not None:
        await _answer_again(session, game_id, unpack(result.answer))
        return
    if result.outcome is Outcome.NOGAME:
        session.ctx.store.forget(game_id)
        raise ProtocolError("no_game", "the game has expired", ref=seq, game=game_id)
    raise ProtocolError("stale_seq", f"seq {seq} is older than the last answered", ref=seq)


SOLO_FOLLOW_RETRY_S = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
"""Waits between the attempts at what follows a Play game's status change while Redis refuses it."""


class _SoloFollow:
    """What follows a stored status change of a Play game (``solo_follow.py``): the player's list of open
    games, and at its end the player's history, retried while Redis refuses them (a shard in a failover:
    issue 20.15) in a task of its own that the ``ack`` does not wait for beyond ``solo_end_wait_s``; if it
    is not done by then, a durable "to follow" record is kept first (``keep``), which the task drops once
    done and any instance's sweep completes otherwise."""

    def __init__(self, session: Session, stored: Stored, after: Game) -> None:
        self.ctx, self.stored, self.after = session.ctx, stored, after
        self.ended = session.ctx.clock()
        self.key: str | None = None
        self.task = session.ctx.tasks.spawn(self._run())  # the app's: given a grace, then ended at shutdown

    async def keep(self) -> None:
        if not self.task.done():
            self.key = await solo_follow.note(self.ctx, self.stored.id, self.stored.owner, self.ended)

    async def _run(self) -> None:
        stored, after, playing = self.stored, self.after, self.after.status is Status.PLAYING
        for wait in (*SOLO_FOLLOW_RETRY_S, None):
            try:
                await solo_follow.follow(
                    self.ctx, stored.id, stored.owner, playing, after, int(stored.created), self.ended
                )
                await solo_follow.done(self.ctx, self.key, stored.id, stored.owner, self.ended)
                return
            except (RedisError, OSError) as exc:
                if wait is None:  # the durable record, if kept, is left to the sweeps
                    log.error("after the end of %s: giving up here: %s", stored.id, cause(exc))
                    return
                log.warning("after the end of %s: %s; retrying in %g s", stored.id, cause(exc), wait)
                await asyncio.sleep(wait)


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
        seats = session.ctx.seats
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
