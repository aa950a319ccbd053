"""The websocket handlers of races, watching, leaderboards and the daily challenge (the messages are
defined in ``messages.py``; ``wire.py`` names these handlers for the app's dispatch table). A racer plays
their seat with the core ``open``/``act``/``resync``; ``race_act`` is a thin alias of ``act`` on the
caller's seat."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from golfrace.live import streams
from golfrace.live.dispatch import handler
from golfrace.live.handlers import on_open
from golfrace.live.moves import localize, on_act
from golfrace.live.session import Session
from golfrace.settings.races import DEFAULT_SETTINGS
from golfrace.store import lookalike
from golfrace.store.keys import seat_of
from golfrace.store.public_names import public_name
from golfrace.wire.protocol import ProtocolError

from ..engine import GameCode, Rules, Variants
from ..engine.errors import CodeError
from ..engine.rules import DEFAULT_RULES
from . import leaderboard as lb
from . import race_views
from .daily import parse_day
from .daily_race import daily_play, daily_status
from .errors import RaceError
from .followers import send_board, send_race, send_view, wire_of
from .race import Race, RaceOptions
from .service import RaceService


def _player(session: Session) -> str:
    if session.player is None:
        raise ProtocolError("no_hello", "send hello first")
    return session.player


def _is_account(session: Session) -> bool:
    """Whether the connection is a signed-in account's (a ranked race seats accounts only, and only they are
    dealt the day's deal: fair play 19.1, 19.2)."""
    return session.account is not None


def _net(session: Session) -> str:
    """The connection's client network (``limits.network``), for the review of one race's seats."""
    return "" if session.network == "unknown" else session.network


def race_error(exc: RaceError, ref: Any) -> ProtocolError:
    return ProtocolError(exc.code, exc.message, ref=ref, **exc.params)


async def _name(session: Session, msg: dict[str, Any]) -> str:
    """The racer's name: the one sent, else the connection's (``hello``), else a signed-in account's public
    name (as its leaderboard entries show it), else none (clients show "Player <seat>")."""
    name = msg.get("name") or session.name
    if not name and (account := session.account) is not None:
        name = await public_name(session.ctx.redis, account)
    name = str(name or "")
    held = await lookalike.owner(session.ctx.redis, name) if name else None
    if held is not None and held != session.player:  # fair play 19.6: not another account's username
        raise ProtocolError(
            "bad_option",
            "this name is another player's username",
            ref=msg.get("t"),
            option="name",
            reason="taken",
        )
    return name


@handler("race_new")
async def on_race_new(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), wire_of(session)
    await session.ctx.identity.still_signed_in(
        session, "race_new"
    )  # accounts: a signed-out session plays no more
    code = None
    if msg.get("code"):
        try:
            code = GameCode.parse(msg["code"])
        except CodeError as exc:
            raise ProtocolError("bad_code", str(exc), ref="race_new", part=exc.part) from None
    v = msg.get("variants", {})
    account = _is_account(session)
    ranked = msg.get("ranked")
    if ranked and not account:  # fair play 19.2: a ranked race seats accounts only
        raise ProtocolError("account_required", "a ranked race is for accounts: sign in", ref="race_new")
    options = RaceOptions(
        msg.get("undo", True), msg.get("limit", 0), msg.get("seats", DEFAULT_SETTINGS.max_racers)
    )
    try:
        race = await wire.service.create(
            player,
            await _name(session, msg),
            code,
            Rules(msg.get("rules", DEFAULT_RULES)),
            Variants.from_wire(v),
            options,
            ranked=account if ranked is None else bool(ranked),
            net=_net(session),
        )
    except RaceError as exc:
        raise race_error(exc, "race_new") from None
    await wire.follow(session, race.id, "racer", ref="race_new")
    view = {"t": "race", **race_views.race_view(race, player, wire.service.clock())}
    if "rid" in msg:
        view["rid"] = msg["rid"]
    session.send(view)


@handler("race_join")
async def on_race_join(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), wire_of(session)
    await session.ctx.identity.still_signed_in(
        session, "race_join"
    )  # accounts: a signed-out session plays no more
    race_id = msg["race"]
    try:
        if not await wire.service.storage.exists(race_id):
            raise RaceError("race_not_found", f"no race {race_id!r}", race=race_id)
        await wire.follow(session, race_id, "racer", ref="race_join")  # before the write: no event missed
        joined = await wire.service.join(
            race_id,
            player,
            msg.get("name") or None,
            await _name(session, msg),
            account=_is_account(session),
            net=_net(session),
        )
    except RaceError as exc:
        await wire.drop(session, race_id)
        raise race_error(exc, "race_join") from None
    # the answer: the race as just written (or found, for a racer already seated as they are)
    watchers = joined.watchers
    if watchers is None:
        watchers = await wire.service.presence.watchers(race_id)
    send_view(session, joined.after, joined.seats, watchers)


async def _simple(session: Session, msg: dict[str, Any], what: str) -> None:
    player, wire = _player(session), wire_of(session)
    service = wire.service
    try:
        if what == "leave":
            await service.leave(msg["race"], player)
        elif what == "start":
            await wire.follow(session, msg["race"], "racer", ref="race_start")
            await service.start(msg["race"], player)
        elif what == "resign":
            await service.resign(msg["race"], player)
    except RaceError as exc:
        raise race_error(exc, f"race_{what}") from None
    if what == "leave":
        await wire.drop(session, msg["race"])
        await wire.depart(session, msg["race"], gone=False)
        await send_race(session, msg["race"], ref="race_leave")  # no longer a follower: its own answer


@handler("race_leave")
async def on_race_leave(session: Session, msg: dict[str, Any]) -> None:
    await _simple(session, msg, "leave")


@handler("race_start")
async def on_race_start(session: Session, msg: dict[str, Any]) -> None:
    await _simple(session, msg, "start")


@handler("race_resign")
async def on_race_resign(session: Session, msg: dict[str, Any]) -> None:
    await _simple(session, msg, "resign")


@handler("race_act")
async def on_race_act(session: Session, msg: dict[str, Any]) -> None:
    """``act`` on the caller's seat of ``race`` (opened as its player first when this connection does not
    follow it yet: a ``snapshot`` then comes before the answer)."""
    player, wire = _player(session), wire_of(session)
    race_id, seq = msg["race"], msg["seq"]
    race = await wire.service.load(race_id)
    if race is None:
        raise ProtocolError("race_not_found", f"no race {race_id!r}", ref=seq, race=race_id)
    racer = race.racer(player)
    if racer is None:
        raise ProtocolError("not_racer", "you have no seat in this race", ref=seq, race=race_id)
    game_id = race.game_id(racer)
    await wire.follow(session, race_id, "racer", ref="race_act")
    if race.starts_at is None:  # no seat game before the start
        refused = {"t": "refused", "game": game_id, "seq": seq, "code": "race_not_started", "params": {}}
        session.send(localize(refused, session.lang))
        return
    if game_id not in session.follows:
        await on_open(session, {"t": "open", "game": game_id, "role": "player"})
    await on_act(session, {**msg, "t": "act", "game": game_id})


@handler("race_rematch")
async def on_race_rematch(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), wire_of(session)
    try:
        nxt = await wire.service.rematch(msg["race"], player, account=_is_account(session), net=_net(session))
    except RaceError as exc:
        raise race_error(exc, "race_rematch") from None
    await wire.follow(session, nxt.id, "racer", ref="race_rematch")
    await send_race(session, nxt.id, ref="race_rematch")


@handler("watch")
async def on_watch(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), wire_of(session)
    ident = msg["race"]
    split = seat_of(ident)
    race_id = split[0] if split else ident
    race = await wire.service.load(race_id)
    if race is None:
        raise ProtocolError("race_not_found", f"no race {ident!r}", ref="watch", race=ident)
    role = "watcher"
    if race.racer(player) is not None and race.ended_at is None:  # once it is over: its replay
        if not await _game_over(wire.service, race_id, player):
            raise ProtocolError("own_race", "a racer cannot watch their own race", ref="watch", race=race_id)
        role = "done"  # a racer whose game is over looks on: the others' boards, as any watcher sees them
    await wire.follow(session, race_id, role, ref="watch")
    try:
        if not race.watched and race.ended_at is None:  # from now on its moves carry the watchers' boards
            try:
                await wire.service.update(race_id, _watched)
            except RaceError as exc:
                raise race_error(exc, "watch") from None
        # its stream's snapshot, read after subscribing: the events from then on wait for it
        await streams.opened(session, race_id)
    except BaseException:
        await wire.drop(session, race_id)
        raise


async def _game_over(service: RaceService, race_id: str, player: str) -> bool:
    """Whether ``player``'s own game in the race is over (won, stuck, resigned, out), as settled now."""
    found = await service.load_with_seats(race_id)
    me = found[0].racer(player) if found else None
    return me is not None and me.done


def _watched(race: Race) -> Race:
    return race if race.watched or race.ended_at is not None else replace(race, watched=True)


@handler("unwatch")
async def on_unwatch(session: Session, msg: dict[str, Any]) -> None:
    await wire_of(session).drop(session, msg["race"])


def _board_name(text: str, ref: str, now: int) -> str:
    kind, _, rest = text.partition(":")
    try:
        if kind == "code":
            return lb.code_board(rest)
        if kind == "daily":
            return lb.daily_board(parse_day(rest, now).isoformat())  # a future day: bad_date
    except CodeError as exc:
        raise ProtocolError("bad_code", str(exc), ref=ref, part=exc.part) from None
    except RaceError as exc:
        raise race_error(exc, ref) from None
    raise ProtocolError("bad_field", "board is code:<code> or daily:<yyyy-mm-dd>", ref=ref, field="board")


@handler("board_watch")
async def on_board_watch(session: Session, msg: dict[str, Any]) -> None:
    wire = wire_of(session)
    board = _board_name(msg["board"], "board_watch", wire.service.clock())
    await wire.follow_board(session, board)
    await send_board(session, wire.service, board)


@handler("board_unwatch")
async def on_board_unwatch(session: Session, msg: dict[str, Any]) -> None:
    with contextlib.suppress(ProtocolError):
        wire = wire_of(session)
        await wire.drop(session, "lb:" + _board_name(msg["board"], "board_unwatch", wire.service.clock()))


@handler("daily")
async def on_daily(session: Session, msg: dict[str, Any]) -> None:
    try:
        status = await daily_status(wire_of(session).service, _player(session))
    except RaceError as exc:
        raise race_error(exc, "daily") from None
    session.send({"t": "daily", **status})


@handler("daily_play")
async def on_daily_play(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), wire_of(session)
    await session.ctx.identity.still_signed_in(
        session, "daily_play"
    )  # accounts: a signed-out session plays no more
    try:
        race = await daily_play(wire.service, player, await _name(session, msg), _is_account(session))
    except RaceError as exc:
        raise race_error(exc, "daily_play") from None
    await wire.follow(session, race.id, "racer", ref="daily_play")
    await send_race(session, race.id, ref="daily_play")
