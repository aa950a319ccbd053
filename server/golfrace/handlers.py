"""The handlers of the game messages, and the dispatch table each app builds from its modules' handlers.

``@handler("t")`` only marks a function as the handler of message type ``t`` (defined in ``messages.py``);
``Dispatch.from_modules`` collects the marked functions of the modules an app is made of (this one and its
extensions) into that app's table. A handler gets the session and the validated message, answers through
``session.send`` and raises ``ProtocolError`` for errors. Every type not marked ``anonymous`` in
``messages.py`` needs an identified session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Protocol

from redis.exceptions import RedisError

from . import messages, metrics
from .accounts import hello as accounts_hello
from .accounts import history as accounts_history
from .engine import Action, Draw, Game, GameCode, Refusal, Rules, Status, Tap, Undo, random_code, token
from .engine.errors import CodeError
from .engine.i18n import catalog, refusal_message
from .engine.rules import Variants
from .errors import cause
from .protocol import ProtocolError, unpack
from .session import REQUEST, Request, Session
from .store import Also, Gate, Stored, channel, seat_of
from .views import action_name, diff

log = logging.getLogger("golfrace.handlers")
Handler = Callable[[Session, dict[str, Any]], Awaitable[None]]
MARK = "__golfrace_handles__"
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


def handler(t: str) -> Callable[[Handler], Handler]:
    """Mark ``fn`` as the handler of message type ``t`` (nothing is registered: see ``Dispatch``)."""

    def mark(fn: Handler) -> Handler:
        setattr(fn, MARK, t)
        return fn

    return mark


@dataclass(frozen=True, slots=True)
class Dispatch:
    """One app's table: message type → (its definition, its handler)."""

    table: Mapping[str, tuple[messages.In, Handler]]
    specs: Mapping[str, messages.In]
    """The definitions of the types this app handles: what ``protocol.decode`` accepts."""
    guard: Handler | None = None
    """Awaited before each handler, under the same deadline (the per-network limits): may raise."""

    @classmethod
    def from_modules(cls, modules: Iterable[ModuleType], guard: Handler | None = None) -> Dispatch:
        table: dict[str, tuple[messages.In, Handler]] = {}
        for module in modules:
            for fn in vars(module).values():
                t = getattr(fn, MARK, None)
                if not isinstance(t, str):
                    continue
                if t not in messages.CLIENT:
                    raise ValueError(f"{module.__name__}: {t!r} is not a message of messages.CLIENT")
                if t in table and table[t][1] is not fn:
                    raise ValueError(f"two handlers for {t!r}: {table[t][1]!r} and {fn!r}")
                table[t] = (messages.CLIENT[t], fn)
        specs = {t: spec for t, (spec, _fn) in table.items()}
        return cls(MappingProxyType(table), MappingProxyType(specs), guard)

    async def __call__(self, session: Session, msg: dict[str, Any], deadline: float | None = None) -> None:
        """Run ``msg``'s handler, until ``deadline`` (event-loop time) at most: then it is cancelled and the
        answer is ``unavailable`` (for a move: unknown, resend the same seq; a commit already sent to Redis
        may still apply). What the handler sends this connection meanwhile carries ``msg``'s ``rid``; a
        request with a ``rid`` that got no answer of its own gets ``ok``. Errors are raised, with
        ``ref``/``rid``."""
        t = msg["t"]
        metrics.labelled(metrics.MESSAGES_IN, t).inc()
        request = Request(session, msg.get("rid"))
        try:
            entry = self.table.get(t)
            if entry is None:
                raise ProtocolError("bad_type", f"no handler for {t!r}")
            if session.player is None and not entry[0].anonymous:
                raise ProtocolError("no_hello", "send hello first")
            reset = REQUEST.set(request)
            try:
                async with asyncio.timeout_at(deadline):
                    if self.guard is not None:
                        await self.guard(session, msg)
                    await entry[1](session, msg)
            finally:
                request.active = False
                REQUEST.reset(reset)
        except ProtocolError as exc:
            exc.ref, exc.rid = _ref(msg), request.rid
            raise
        except TimeoutError as exc:  # before OSError: the deadline (or Redis' own timeout) passed
            log.warning("no answer from storage on %s within the deadline: %s", t, cause(exc))
            error = ProtocolError(
                "unavailable",
                "storage did not answer in time; unknown whether it took effect: resend (the same seq)",
                ref=_ref(msg),
            )
            error.rid = request.rid
            raise error from exc
        except (RedisError, OSError) as exc:
            log.warning("storage failed on %s: %s", t, cause(exc))
            error = ProtocolError(
                "unavailable", "storage is unreachable; resend later (the same seq)", ref=_ref(msg)
            )
            error.rid = request.rid
            raise error from exc
        if request.rid is not None and not request.answered:
            session.send({"t": "ok", "ref": t, "rid": request.rid})


def answered_later() -> None:
    """The running request is answered by a task of its own (a hint): no ``ok`` for it."""
    request = REQUEST.get()
    if request is not None:
        request.answered = True


def _ref(msg: dict[str, Any]) -> Any:
    return msg.get("seq", msg["t"])


# --- identity -----------------------------------------------------------------------------------------------
@handler("hello")
async def on_hello(session: Session, msg: dict[str, Any]) -> None:
    ctx = session.ctx
    token = msg.get("token")
    if token:
        player = ctx.tokens.verify(token)
        if player is None:
            raise ProtocolError("bad_token", "this token was not issued by this server", ref="hello")
        if session.player is not None and player != session.player:
            raise ProtocolError(
                "bad_token",
                "this connection already belongs to another player; use a new connection for this token",
                ref="hello",
            )
    elif session.player is not None:
        player = session.player
    else:
        player, token = ctx.tokens.issue()
    player, token, account = await accounts_hello.identify(session, msg, player, token)  # accounts
    session.player = player
    session.lang = msg.get("lang", session.lang)
    if "sid" in msg:
        session.sid = msg["sid"]
    if "name" in msg:
        session.name = msg["name"].strip()
    await ctx.store.touch_player(player, session.name)
    session.send(
        {
            "t": "welcome",
            "token": token or ctx.tokens.sign(player),
            "player": player,
            "sid": session.sid,
            "lang": session.lang,
            "now": ctx.clock(),
            "games": await ctx.store.player_games(player),
            "limits": ctx.settings.public_limits(),
            "account": account,
        }
    )


@handler("ping")
async def on_ping(session: Session, msg: dict[str, Any]) -> None:
    session.send({"t": "pong", "n": msg.get("n", 0), "now": session.ctx.clock()})


# --- games --------------------------------------------------------------------------------------------------
def _check_room(session: Session, game_id: str, ref: str) -> None:
    if game_id not in session.follows and len(session.follows) >= session.settings.max_open_games:
        raise ProtocolError(
            "too_many_games", f"at most {session.settings.max_open_games} games per connection", ref=ref
        )


@handler("new")
async def on_new(session: Session, msg: dict[str, Any]) -> None:
    hidden = msg.get("code") is None
    if hidden:
        v = msg.get("variants", {})
        variants = Variants(v.get("strict", False), v.get("jokers", 0), v.get("empty_discard", False))
        code = random_code(Rules(msg.get("rules", "easy")), variants)
    else:
        try:
            code = GameCode.parse(msg["code"])
        except CodeError as exc:
            raise ProtocolError("bad_code", str(exc), ref="new", part=exc.part) from None
    _check_room(session, "", "new")
    assert session.player is not None
    stored = await session.ctx.store.create(session.player, code, hidden)
    await session.subscribe(channel(stored.id))
    await session.follow(stored, "player")


@handler("open")
async def on_open(session: Session, msg: dict[str, Any]) -> None:
    game_id, role = msg["game"], msg["role"]
    _check_room(session, game_id, "open")
    stored = await session.ctx.store.load(game_id)
    if stored is None:
        raise ProtocolError("no_game", f"no game {game_id!r}", ref="open", game=game_id)
    if role == "player" and stored.owner != session.player:
        raise ProtocolError("not_player", "this game belongs to another player", ref="open", game=game_id)
    if role != "player" and seat_of(game_id) is not None:  # watchers see the boards through the race
        raise ProtocolError("not_player", "watch a race seat with `watch`", ref="open", game=game_id)
    placeholder = session.opening(game_id, role)  # holds the diffs that arrive before the snapshot is sent
    try:
        await session.subscribe(channel(game_id))
        stored = await session.ctx.store.load(game_id)  # read after the subscription: no diff falls between
    except BaseException:
        session.abandon(game_id, placeholder)
        raise
    if stored is None:
        await session.unfollow(game_id)
        raise ProtocolError("no_game", f"no game {game_id!r}", ref="open", game=game_id)
    await session.follow(stored, role)


@handler("close")
async def on_close(session: Session, msg: dict[str, Any]) -> None:
    await session.unfollow(msg["game"])


@handler("resync")
async def on_resync(session: Session, msg: dict[str, Any]) -> None:
    follow = session.follows.get(msg["game"])
    if follow is None:
        raise ProtocolError("not_open", "open the game first", ref="resync", game=msg["game"])
    if session.defer_fill(follow, msg["v"]):  # a fill runs: it goes on once more, from msg["v"] if older
        return
    await session.fill(msg["game"], follow, from_v=msg["v"], answer=True)


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
