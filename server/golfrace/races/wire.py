"""Races on the wire: message types, websocket handlers, fan-out per audience and the HTTP routes.

A server extension (see ``app.EXTENSIONS``): its handlers answer the race messages of ``messages.py``;
``startup``/``shutdown`` build and stop the race services; ``routes`` adds the pages and JSON endpoints.
Each connection following a race holds one ``RaceFollower`` on the race's channel, which turns the internal
events into what that connection may see (racer: own board + others' progress; watcher: every board).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections import Counter
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..context import Context
from ..engine import GameCode, Rules, Variants
from ..engine.errors import CodeError
from ..handlers import _action, handler, localize
from ..hub import Envelope
from ..protocol import ID_LEN, ProtocolError
from ..session import Session
from . import leaderboard as lb
from . import pages, solving, stats, views
from .daily import DailyBook, parse_day
from .errors import RaceError
from .race import Race, RaceOptions
from .replay import public
from .service import RaceService, race_channel, retrying, split_game_id, wall_clock
from .settings import DEFAULT_SETTINGS, RaceSettings

log = logging.getLogger("golfrace.races")
CLOCK = wall_clock  # tests may replace it before the server starts
SWEEP_INTERVAL_S = 0.5
SETTINGS = RaceSettings.from_env()  # read when the server loads the extension: a bad value stops `serve`
HTTP_ERRORS = {"game_not_found": 404, "race_not_found": 404, "game_not_ended": 409}


# --- per-connection followers -----------------------------------------------------------------------------
class RaceFollower:
    """One connection following one race, as a racer or a watcher."""

    def __init__(self, session: Session, race_id: str, role: str) -> None:
        self.session = session
        self.race_id = race_id
        self.role = role

    def deliver(self, envelope: Envelope) -> None:
        msg, session, rid = envelope.message, self.session, self.race_id
        if session.closing:
            return
        kind = msg.get("k")
        if kind == "watchers":
            session.send({"t": "watchers", "race": rid, "n": msg.get("n", 0)})
            _wire(session).service.saw_watchers(rid, int(msg.get("n", 0)))
            return
        me = session.player
        # a race started or changed on another instance: this one settles it on time too
        _wire(session).service.settle_later(rid, msg.get("check_at"), msg.get("ended_at"))
        if kind == "move":
            if self.role == "racer" and msg.get("player") == me:
                v = int(msg["v"])
                session.send(
                    {
                        "t": "race_diff",
                        "race": rid,
                        "game": f"{rid}-{msg['seat']}",
                        "v": v,
                        "from": v - 1,
                        **msg["diff"],
                    }
                )
            session.send({"t": "race_progress", "race": rid, "racer": msg["progress"], "now": CLOCK()})
            if self.role == "watcher":
                shown = {k: v for k, v in msg["diff"].items() if k != "code"}
                session.send({"t": "race_board", "race": rid, "board": msg["board"], "diff": shown})
        viewsets = msg.get("views")
        if isinstance(viewsets, dict):
            view = viewsets.get(me or "") if self.role == "racer" else viewsets.get("")
            if view is not None:
                session.send({"t": "race", **view})
        states = msg.get("states")
        if self.role == "racer" and isinstance(states, dict) and me in states:
            session.send({"t": "race_game", "race": rid, **states[me]})

    def resume(self, name: str) -> None:
        """Race events may have been missed (a pub/sub reconnect): send the race as it is now."""
        if not self.session.closing:
            service = _wire(self.session).service
            service._spawn(_resend(self.session, self.race_id, self.role))


async def _resend(session: Session, race_id: str, role: str) -> None:
    async def send() -> None:
        if session.closing:
            return
        if role == "watcher":
            race = await _wire(session).service.load(race_id)
            if race is not None:
                await _send_watch(session, race)
        else:
            await _send_race(session, race_id)

    # a ProtocolError: the race is gone; Redis away right after the reconnect: tried again
    await retrying(send, RESEND_RETRY_S, (ProtocolError,), f"resending race {race_id}")


RESEND_RETRY_S = (0.25, 0.5, 1.0, 2.0, 5.0)


class BoardFollower:
    """One connection following a leaderboard: every change sends the board's top entries."""

    def __init__(self, session: Session, board: str, service: RaceService) -> None:
        self.session = session
        self.board = board
        self.service = service

    def deliver(self, envelope: Envelope) -> None:
        if not self.session.closing:
            self.service._spawn(send_board(self.session, self.service, self.board))

    def resume(self, name: str) -> None:
        self.deliver(Envelope(name, b"", {}))


async def send_board(session: Session, service: RaceService, board: str) -> None:
    total, entries = await service.boards.page(board, 0, service.settings.board_live_top)
    session.send({"t": "board", "board": board, "total": total, "entries": entries})


class RaceWire:
    """The extension's state in ``ctx.extras['races']``: the service and every local follower."""

    def __init__(self, ctx: Context, service: RaceService) -> None:
        self.ctx = ctx
        self.service = service
        self.followers: dict[tuple[int, str], RaceFollower | BoardFollower] = {}
        self.joined: dict[int, tuple[str, set[str]]] = {}
        """Connection → (its player, the races it followed as a racer and did not leave). A page that only
        looks elsewhere (``unwatch``) is still there; a closed connection is not."""
        self.racers_here: Counter[tuple[str, str]] = Counter()
        """(race id, player) → connections on this instance that joined that race as that racer."""
        self.sweeper: asyncio.Task[None] | None = None

    async def follow(self, session: Session, race_id: str, role: str) -> RaceFollower:
        key = (id(session), race_id)
        old = self.followers.get(key)
        if isinstance(old, RaceFollower) and old.role == role:
            return old
        if old is not None:
            await self.drop(key)
        follower = RaceFollower(session, race_id, role)
        await self._add(key, follower, race_channel(race_id), ref="race")
        if role == "watcher":
            await self.service.add_watcher(race_id, 1)
        elif session.player is not None:
            await self._arrive(session, race_id)
        return follower

    async def _arrive(self, session: Session, race_id: str) -> None:
        assert session.player is not None
        player, races = self.joined.setdefault(id(session), (session.player, set()))
        if race_id in races:
            return
        races.add(race_id)
        self.racers_here[(race_id, player)] += 1
        if self.racers_here[(race_id, player)] == 1:
            await self.service.here(race_id, player, True)

    async def depart(self, session_id: int, race_id: str, gone: bool) -> None:
        """Connection ``session_id`` no longer joins ``race_id`` (``gone``: it closed, rather than leaving the
        race on purpose). The player's last connection on this instance: their presence stamp goes, and if
        they closed the page, they leave the lobby unless a connection comes back within the grace."""
        player, races = self.joined.get(session_id, ("", set()))
        if race_id not in races:
            return
        races.discard(race_id)
        if not races:
            del self.joined[session_id]
        here = (race_id, player)
        self.racers_here[here] -= 1
        if self.racers_here[here] > 0:
            return
        del self.racers_here[here]
        await self.service.here(race_id, player, False)
        if gone:
            self.service.leave_later(race_id, player)

    async def follow_board(self, session: Session, board: str) -> None:
        key = (id(session), "lb:" + board)
        if key not in self.followers:
            follower = BoardFollower(session, board, self.service)
            await self._add(key, follower, lb.channel(board), ref="board_watch")

    async def _add(
        self, key: tuple[int, str], follower: RaceFollower | BoardFollower, name: str, ref: str
    ) -> None:
        """Within the connection's ``max_open_games`` (races and boards together), keep ``follower`` and
        subscribe it to channel ``name``; a failed subscription forgets it, so that a retry starts afresh."""
        if sum(1 for k in self.followers if k[0] == key[0]) >= self.ctx.settings.max_open_games:
            raise ProtocolError("too_many_games", "this connection follows too many races and boards", ref)
        self.followers[key] = follower
        try:
            await self.ctx.hub.subscribe(name, follower)
        except BaseException:
            if self.followers.get(key) is follower:
                del self.followers[key]
            raise

    async def drop(self, key: tuple[int, str]) -> None:
        follower = self.followers.pop(key, None)
        if isinstance(follower, RaceFollower):
            await self.ctx.hub.unsubscribe(race_channel(follower.race_id), follower)
            if follower.role == "watcher":
                await self.service.add_watcher(follower.race_id, -1)
        elif isinstance(follower, BoardFollower):
            await self.ctx.hub.unsubscribe(lb.channel(follower.board), follower)

    async def sweep(self) -> None:
        """Connections that went away stop following (and stop counting as watchers); every
        ``watcher_refresh_s`` the watcher counts of the races followed here are refreshed."""
        loop = asyncio.get_running_loop()
        refresh_at = loop.time()
        while True:
            await asyncio.sleep(SWEEP_INTERVAL_S)
            live = {id(s) for s in self.ctx.sessions}
            for key in [k for k, f in self.followers.items() if k[0] not in live or f.session.closing]:
                with contextlib.suppress(Exception):
                    await self.drop(key)
            closing = {id(s) for s in self.ctx.sessions if s.closing}
            for session_id in [s for s in self.joined if s not in live or s in closing]:
                for race_id in list(self.joined.get(session_id, ("", set()))[1]):
                    with contextlib.suppress(Exception):
                        await self.depart(session_id, race_id, gone=True)
            if loop.time() >= refresh_at:
                refresh_at = loop.time() + self.service.settings.watcher_refresh_s
                races = {f.race_id for f in self.followers.values() if isinstance(f, RaceFollower)}
                try:
                    await self.service.refresh_watchers(races)
                    await self.service.restamp_here(set(self.racers_here))
                except Exception:  # Redis away: the next round tries again
                    log.warning("refreshing watcher counts failed", exc_info=True)


def _wire(session: Session) -> RaceWire:
    wire: RaceWire = session.ctx.extras["races"]
    return wire


def _player(session: Session) -> str:
    if session.player is None:
        raise ProtocolError("no_hello", "send hello first")
    return session.player


def _race_error(exc: RaceError, ref: Any) -> ProtocolError:
    return ProtocolError(exc.code, exc.message, ref=ref, **exc.params)


def _name(session: Session, msg: dict[str, Any]) -> str:
    return str(msg.get("name") or session.name or "")


async def _send_race(session: Session, race_id: str, with_game: bool = True) -> None:
    wire = _wire(session)
    race = await wire.service.load(race_id)
    if race is None:
        raise ProtocolError("race_not_found", f"no race {race_id!r}", ref="race", race=race_id)
    now = CLOCK()
    me = session.player
    session.send({"t": "race", **views.race_view(race, me, now, await wire.service.watchers(race_id))})
    racer = race.racer(me) if me else None
    if with_game and racer is not None and racer.game is not None:
        session.send(
            {
                "t": "race_game",
                "race": race.id,
                "game": race.game_id(racer),
                "seq": racer.seq,
                "v": len(racer.log),
                "state": views.game_state(race, racer, me),
            }
        )


# --- handlers -----------------------------------------------------------------------------------------------
@handler("race_new")
async def on_race_new(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), _wire(session)
    code = None
    if msg.get("code"):
        try:
            code = GameCode.parse(msg["code"])
        except CodeError as exc:
            raise ProtocolError("bad_code", str(exc), ref="race_new", part=exc.part) from None
    v = msg.get("variants", {})
    options = RaceOptions(
        msg.get("undo", True), msg.get("limit", 0), msg.get("seats", DEFAULT_SETTINGS.max_racers)
    )
    try:
        race = await wire.service.create(
            player,
            _name(session, msg),
            code,
            Rules(msg.get("rules", "easy")),
            Variants(v.get("strict", False), v.get("jokers", 0), v.get("empty_discard", False)),
            options,
        )
    except RaceError as exc:
        raise _race_error(exc, "race_new") from None
    await wire.follow(session, race.id, "racer")
    view = {"t": "race", **views.race_view(race, player, CLOCK())}
    if "rid" in msg:
        view["rid"] = msg["rid"]
    session.send(view)


@handler("race_join")
async def on_race_join(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), _wire(session)
    race_id = msg["race"]
    try:
        existing = await wire.service.load(race_id)
        if existing is None:
            raise RaceError("race_not_found", f"no race {race_id!r}", race=race_id)
        await wire.follow(session, race_id, "racer")
        name = msg.get("name") or (None if existing.racer(player) else _name(session, msg))
        await wire.service.join(race_id, player, name)
    except RaceError as exc:
        await wire.drop((id(session), race_id)) if (id(session), race_id) in wire.followers else None
        raise _race_error(exc, "race_join") from None
    await _send_race(session, race_id)


async def _simple(session: Session, msg: dict[str, Any], what: str) -> None:
    player, wire = _player(session), _wire(session)
    service = wire.service
    try:
        if what == "leave":
            await service.leave(msg["race"], player)
        elif what == "start":
            await wire.follow(session, msg["race"], "racer")
            await service.start(msg["race"], player)
        elif what == "resign":
            await service.resign(msg["race"], player)
    except RaceError as exc:
        raise _race_error(exc, f"race_{what}") from None
    if what == "leave":
        await wire.drop((id(session), msg["race"]))
        await wire.depart(id(session), msg["race"], gone=False)
        await _send_race(session, msg["race"], with_game=False)  # no longer a follower: its own answer


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
    player, wire = _player(session), _wire(session)
    race_id, seq = msg["race"], msg["seq"]
    action = _action(msg)
    from ..engine import Refusal

    try:
        race, v, _applied = await wire.service.act(race_id, player, seq, action)
    except Refusal as refusal:
        racer_game = f"{race_id}-?"
        race_now = await wire.service.load(race_id)
        racer = race_now.racer(player) if race_now else None
        if race_now is not None and racer is not None:
            racer_game = race_now.game_id(racer)
        answer = {"t": "refused", "race": race_id, "game": racer_game, "seq": seq, "code": refusal.code}
        session.send(localize({**answer, "params": refusal.params}, session.lang))
        return
    except RaceError as exc:
        session.send(
            {
                "t": "refused",
                "race": race_id,
                "seq": seq,
                "code": exc.code,
                "params": exc.params,
                "message": exc.message,
            }
        )
        return
    racer = race.racer(player)
    assert racer is not None
    await wire.follow(session, race_id, "racer")
    session.send({"t": "ack", "race": race_id, "game": race.game_id(racer), "seq": seq, "v": v})


@handler("race_rematch")
async def on_race_rematch(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), _wire(session)
    try:
        nxt = await wire.service.rematch(msg["race"], player)
    except RaceError as exc:
        raise _race_error(exc, "race_rematch") from None
    await wire.follow(session, nxt.id, "racer")
    await _send_race(session, nxt.id)


@handler("watch")
async def on_watch(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), _wire(session)
    ident = msg["race"]
    split = split_game_id(ident)
    race_id = split[0] if split else ident
    race = await wire.service.load(race_id)
    if race is None:
        raise ProtocolError("race_not_found", f"no race {ident!r}", ref="watch", race=ident)
    if race.racer(player) is not None:
        raise ProtocolError("own_race", "a racer cannot watch their own race", ref="watch", race=race_id)
    await wire.follow(session, race_id, "watcher")
    race = await wire.service.load(race_id) or race  # read after subscribing: no event falls between
    await _send_watch(session, race)


async def _send_watch(session: Session, race: Race) -> None:
    now = CLOCK()
    n = await _wire(session).service.watchers(race.id)
    boards = [views.board(race, r, now) for r in race.racers]
    session.send({"t": "race_watch", **views.race_view(race, None, now, n), "boards": boards})


@handler("unwatch")
async def on_unwatch(session: Session, msg: dict[str, Any]) -> None:
    await _wire(session).drop((id(session), msg["race"]))


def _board_name(text: str, ref: str) -> str:
    kind, _, rest = text.partition(":")
    try:
        if kind == "code":
            return lb.code_board(rest)
        if kind == "daily":
            return lb.daily_board(parse_day(rest, CLOCK()).isoformat())  # a future day: bad_date
    except CodeError as exc:
        raise ProtocolError("bad_code", str(exc), ref=ref, part=exc.part) from None
    except RaceError as exc:
        raise _race_error(exc, ref) from None
    raise ProtocolError("bad_field", "board is code:<code> or daily:<yyyy-mm-dd>", ref=ref, field="board")


@handler("board_watch")
async def on_board_watch(session: Session, msg: dict[str, Any]) -> None:
    wire = _wire(session)
    board = _board_name(msg["board"], "board_watch")
    await wire.follow_board(session, board)
    await send_board(session, wire.service, board)


@handler("board_unwatch")
async def on_board_unwatch(session: Session, msg: dict[str, Any]) -> None:
    with contextlib.suppress(ProtocolError):
        await _wire(session).drop((id(session), "lb:" + _board_name(msg["board"], "board_unwatch")))


@handler("daily")
async def on_daily(session: Session, msg: dict[str, Any]) -> None:
    try:
        status = await _wire(session).service.daily_status(_player(session))
    except RaceError as exc:
        raise _race_error(exc, "daily") from None
    session.send({"t": "daily", **status})


@handler("daily_play")
async def on_daily_play(session: Session, msg: dict[str, Any]) -> None:
    player, wire = _player(session), _wire(session)
    try:
        race = await wire.service.daily_play(player, _name(session, msg))
    except RaceError as exc:
        raise _race_error(exc, "daily_play") from None
    await wire.follow(session, race.id, "racer")
    await _send_race(session, race.id)


# --- extension hooks ----------------------------------------------------------------------------------------
async def startup(ctx: Context) -> None:
    secret = ctx.settings.secret or await ctx.store.shared_secret()
    daily_secret = hmac.new(secret.encode(), b"golfrace daily challenge", hashlib.sha256).digest()
    settings = SETTINGS

    def winnable(code: GameCode) -> bool | None:
        return solving.winnable(code, settings.solver_budget_s)

    book = DailyBook(ctx.redis, daily_secret, winnable, settings.daily_max_tries, settings.daily_grace_s)
    service = RaceService(ctx.redis, settings, book, clock=lambda: CLOCK(), accounts=ctx.settings.accounts)
    wire = RaceWire(ctx, service)
    wire.sweeper = asyncio.create_task(wire.sweep())
    ctx.extras["races"] = wire
    ctx.extras["game_over"] = stats.solo_hook(service.history, service.clock)


async def shutdown(ctx: Context) -> None:
    wire: RaceWire | None = ctx.extras.get("races")
    if wire is None:
        return
    if wire.sweeper is not None:
        wire.sweeper.cancel()
        with contextlib.suppress(BaseException):
            await wire.sweeper
    await wire.service.close()


# --- HTTP ---------------------------------------------------------------------------------------------------
def _service(request: Request) -> RaceService:
    wire: RaceWire = request.app.state.ctx.extras["races"]
    return wire.service


def _http_error(code: str, message: str, status: int | None = None) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status or HTTP_ERRORS.get(code, 400))


def _caller(request: Request) -> str | None:
    token = request.query_params.get("token")
    auth = request.headers.get("authorization", "")
    if not token and auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    if not token:
        return None
    player: str | None = request.app.state.ctx.tokens.verify(token)
    return player


async def page_endpoint(request: Request) -> Response:
    from ..app import static_dir

    root = static_dir(request.app.state.settings)
    if root is not None and (root / "index.html").is_file():
        return FileResponse(root / "index.html")
    return HTMLResponse("<!doctype html><title>Golf Race</title><p>The web client is not built.")


async def race_endpoint(request: Request) -> Response:
    service = _service(request)
    race = await service.load(request.path_params["race"][:ID_LEN])
    if race is None:
        return _http_error("race_not_found", "no such race")
    now = CLOCK()
    return JSONResponse(views.race_view(race, None, now, await service.watchers(race.id)))


def _int(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:  # ASCII only: "²".isdigit() is true but int() refuses it; int() also refuses > 4300 digits
        value = int(raw) if raw.isascii() and raw.isdigit() else None
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise RaceError("bad_option", f"{name} must be an integer in {lo}..{hi}", option=name)
    return value


async def _board_page(request: Request, board: str) -> Response:
    service = _service(request)
    try:
        limit = _int(request, "limit", 20, 1, service.settings.board_page_max)
        offset = _int(request, "offset", 0, 0, 10**9)
    except RaceError as exc:
        return _http_error(exc.code, exc.message)
    total, entries = await service.boards.page(board, offset, limit)
    caller = _caller(request)
    owner = caller if not board.startswith("pb:") else None
    you = await service.boards.rank_of(board, owner) if owner else None
    return JSONResponse(
        {"board": board, "total": total, "offset": offset, "limit": limit, "entries": entries, "you": you}
    )


async def code_board_endpoint(request: Request) -> Response:
    try:
        board = lb.code_board(request.path_params["code"][:40])
    except CodeError as exc:
        return _http_error("bad_code", str(exc))
    return await _board_page(request, board)


async def daily_board_endpoint(request: Request) -> Response:
    try:
        day = parse_day(request.path_params["day"][:12], CLOCK())
    except RaceError as exc:
        return _http_error(exc.code, exc.message)
    return await _board_page(request, lb.daily_board(day.isoformat()))


async def bests_endpoint(request: Request) -> Response:
    player = _caller(request)
    if player is None:
        return _http_error("bad_token", "send your token (token=… or Authorization: Bearer …)", 401)
    return await _board_page(request, lb.bests_board(player))


async def daily_endpoint(request: Request) -> Response:
    player = _caller(request)
    service = _service(request)
    if player is None:
        from .daily import day_of, next_day_ms

        now = CLOCK()
        return JSONResponse(
            {"date": day_of(now).isoformat(), "next_at": next_day_ms(now), "next_in": next_day_ms(now) - now}
        )
    try:
        return JSONResponse(await service.daily_status(player))
    except RaceError as exc:
        return _http_error(exc.code, exc.message, 503)


async def game_endpoint(request: Request) -> Response:
    service = _service(request)
    game_id = request.path_params["game"][:ID_LEN]
    record = await service.records.load(game_id)
    if record is None:
        split = split_game_id(game_id)
        race = await service.load(split[0]) if split else None
        if race is not None and race.racer_at(split[1] if split else 0) is not None:
            return _http_error("game_not_ended", "this game is still being played")
        return _http_error("game_not_found", "no record of this game (never existed, or it expired)")
    now = CLOCK()
    from .daily import day_of

    race = await service.load(record.race) if record.race else None
    if (
        race is not None
        and race.ended_at is None
        and not race.typed
        and race.racer(_caller(request) or "") is None
    ):
        return _http_error("game_not_ended", "its race is still on")
    if record.daily and record.daily >= day_of(now).isoformat() and _caller(request) != record.player:
        return _http_error("game_not_ended", "the daily challenge of that day is still on")
    try:
        return JSONResponse(public(record, service.boards.checks))  # fair play: with its review verdict
    except RaceError as exc:
        return _http_error(exc.code, exc.message, 500)


def routes() -> list[BaseRoute]:
    return [
        *pages.routes(),  # first: its /api/races/live before /api/races/{race}, its tagged /r/… and /watch/…
        Route("/r/{race}", page_endpoint),
        Route("/watch/{id}", page_endpoint),
        Route("/api/races/{race}", race_endpoint),
        Route("/api/leaderboards/code/{code}", code_board_endpoint),
        Route("/api/leaderboards/daily/{day}", daily_board_endpoint),
        Route("/api/players/me/bests", bests_endpoint),
        Route("/api/daily", daily_endpoint),
        Route("/api/games/{game}", game_endpoint),
    ]
