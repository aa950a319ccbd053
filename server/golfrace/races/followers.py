"""Fan-out of races and leaderboards to this instance's connections.

Each connection following a race holds one ``RaceFollower`` on the race's channel, which turns the internal
events (``service.py``) into what that connection may see (racer: others' progress, the race; watcher: every
board). A racer's own board is not here: it is their seat game, followed like any game (``open``).
``RaceWire`` (``ctx.get(RaceWire)``) keeps every local follower by connection, and the racers' presence; a
connection's followers and presence go when it ends (its close hook, ``RaceWire.closed``), and a refresh loop
re-stamps the watcher counts and presence of the races followed here (``RaceWire.refresh_forever``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any

from golfrace.live.services import Context
from golfrace.live.session import Session
from golfrace.store.pubsub import Envelope
from golfrace.wire.protocol import ProtocolError, encode

from . import leaderboard as lb
from . import race_views
from .progress_lines import Moved, ProgressLines
from .race import Race
from .race_stream import EventNumbers, RaceStream, shown_again
from .racer import Seats
from .service import RaceService
from .storage import race_channel
from .timers import monotonic, pause, retrying

log = logging.getLogger("golfrace.races")
RESEND_RETRY_S = (0.25, 0.5, 1.0, 2.0, 5.0)


class RaceFollower:
    """One connection following one race, as a racer, a watcher, or a racer whose game is over and who looks
    on (``done``: the race as its racer sees it, and every board as a watcher sees it). A watcher's and a
    done racer's messages are a versioned stream in the connection's follow machine (``race_stream.py``)."""

    def __init__(self, session: Session, race_id: str, role: str) -> None:
        self.session = session
        self.race_id = race_id
        self.role = role
        self.lines: ProgressLines | None = None
        """A racer's coalesced progress lines (``ProgressLines``); a watcher gets every move as it comes."""
        if role == "racer":
            service = wire_of(session).service
            self.lines = ProgressLines(session, service.settings.progress_interval_ms, service.clock)

    def deliver(self, envelope: Envelope) -> None:
        msg, session, rid = envelope.message, self.session, self.race_id
        if session.closing:
            return
        wire = wire_of(session)
        v = wire.numbers.number(envelope, rid)
        out: list[Any] | None = None if self.lines is not None else []
        # a watcher's frames of this event, event ``v`` of its stream; None: a racer's, sent as they come
        kind = msg.get("k")
        if kind == "watchers":
            self._emit(out, {"t": "watchers", "race": rid, "n": msg.get("n", 0)}, v)
            wire.service.presence.saw_watchers(rid, int(msg.get("n", 0)))
        elif kind == "move":  # made once per event for every local follower (``RaceWire.moved``)
            self._moved(envelope, wire, v, out)
        else:
            self._changed(envelope, wire, v, out)
        if out is not None:
            session.stream_event(rid, v, tuple(out))

    def _emit(self, out: list[Any] | None, message: dict[str, Any], v: int) -> None:
        if out is None:
            self.session.send(message)
        else:
            out.append(encode({**message, "v": v}, self.session.codec))

    def _moved(self, envelope: Envelope, wire: RaceWire, v: int, out: list[Any] | None) -> None:
        msg, rid = envelope.message, self.race_id
        moved = wire.moved(envelope, rid, v)
        ended = msg["progress"].get("status") != "playing"
        if moved.first and ended:
            wire.service.seat_ended(rid, int(msg["seat"]))
        if self.lines is not None or out is None:
            if self.lines is not None:
                self.lines.offer(int(msg["seat"]), moved, urgent=ended)
            return
        if "board" not in msg:  # made before the race was watched: this watcher's snapshot has it
            if self.role == "done":
                out.append(moved.progress)
            return
        out.append(moved.progress)
        out.append(moved.board)
        for again in shown_again(rid, envelope, v):  # fair play: draws that every racer has reached now
            out.append(encode(again, self.session.codec))

    def _changed(self, envelope: Envelope, wire: RaceWire, v: int, out: list[Any] | None) -> None:
        msg, session, rid, service = envelope.message, self.session, self.race_id, wire.service
        if self.lines is not None:  # older lines go before the race's news, never after
            self.lines.flush()
        shared = msg.get("view")
        if not isinstance(shared, dict):  # an event of an instance from before ``view``: one per audience
            viewsets = msg.get("views")
            shared = viewsets.get("") if isinstance(viewsets, dict) else None
        if isinstance(shared, dict) and shared.get("phase") not in (None, "lobby"):
            wire.started.add(rid)
        if msg.get("ended_at") is not None:
            wire.over.add(rid)
        # a race started or changed on another instance: this one settles it on time too
        service.forget(rid, msg.get("rev"))
        service.timers.arm(rid, msg.get("check_at"), msg.get("ended_at"))
        if msg.get("ended_at") is not None:
            service.ending.later(rid)
        if isinstance(shared, dict):
            player = session.player if self.role != "watcher" else None
            view = race_views.as_racer(shared, player) if player else shared
            if view is not None:
                self._emit(out, {"t": "race", **view}, v)
        if out is not None and msg.get("ended_at") is None:  # e.g. the slowest racer stopped
            out.extend(encode(again, session.codec) for again in shown_again(rid, envelope, v))

    def resume(self, name: str) -> None:
        """Race events may have been missed (a pub/sub reconnect): a racer gets the race as it is now; a
        watcher's stream is caught up by its snapshot (the follow machine's fill)."""
        session = self.session
        if session.closing:
            return
        if self.lines is None:
            wire_of(session).numbers.missed(self.race_id)
            session.run(session.machine.missed(self.race_id))
        else:
            wire_of(session).service.tasks.spawn(_resend(session, self.race_id))


async def _resend(session: Session, race_id: str) -> None:
    async def send() -> None:
        if not session.closing:
            await send_race(session, race_id)

    # a ProtocolError: the race is gone; Redis away right after the reconnect: tried again
    await retrying(send, RESEND_RETRY_S, (ProtocolError,), f"resending race {race_id}")


async def send_race(session: Session, race_id: str, ref: str = "race") -> Race:
    """The race as it is now, as its racer (or a player who left it) sees it: ``race``. A watcher's race is
    its stream's snapshot (``race_stream.py``)."""
    service = wire_of(session).service
    found = await service.load_with_seats(race_id)
    if found is None:
        raise ProtocolError("race_not_found", f"no race {race_id!r}", ref=ref, race=race_id)
    race, seats = found
    send_view(session, race, seats, await service.presence.watchers(race_id))
    return race


def send_view(session: Session, race: Race, seats: Seats, watchers: int) -> None:
    now = session_now(session)
    follower = wire_of(session).follower(session, race.id)
    if isinstance(follower, RaceFollower) and follower.lines is not None:
        follower.lines.flush()  # lines of earlier events go first, as they came
    session.send({"t": "race", **race_views.race_view(race, session.player, now, watchers, seats)})


def session_now(session: Session) -> int:
    return wire_of(session).service.clock()


class BoardFollower:
    """One connection following a leaderboard: every change sends the board's top entries."""

    def __init__(self, session: Session, board: str, service: RaceService) -> None:
        self.session = session
        self.board = board
        self.service = service

    def deliver(self, envelope: Envelope) -> None:
        if not self.session.closing:
            self.service.tasks.spawn(send_board(self.session, self.service, self.board))

    def resume(self, name: str) -> None:
        self.deliver(Envelope(name, b"", {}))


async def send_board(session: Session, service: RaceService, board: str) -> None:
    total, entries = await service.boards.page(board, 0, service.settings.board_live_top)
    session.send({"t": "board", "board": board, "total": total, "entries": entries})


Follower = RaceFollower | BoardFollower


class RaceWire:
    """The extension's state on the context (``ctx.get(RaceWire)``): the service and every local follower,
    kept by connection until it ends (``closed``, its close hook)."""

    def __init__(self, ctx: Context, service: RaceService) -> None:
        self.ctx = ctx
        self.service = service
        self.followers: dict[Session, dict[str, Follower]] = {}
        """Connection → what it follows: race id → ``RaceFollower``, ``lb:<board>`` → ``BoardFollower``."""
        self.joined: dict[Session, tuple[str, set[str]]] = {}
        """Connection → (its player, the races it followed as a racer and did not leave). A page that only
        looks elsewhere (``unwatch``) is still there; a closed connection is not."""
        self.racers_here: Counter[tuple[str, str]] = Counter()
        """(race id, player) → connections on this instance that joined that race as that racer."""
        self.refresher: asyncio.Task[None] | None = None
        """``refresh_forever``, started and ended with the extension (``extension.py``)."""
        self.shut = False
        """The extension has shut down: a connection that ends after it is only forgotten here (its watcher
        share and presence stamp expire; no task is started for it)."""
        self.started: set[str] = set()
        """Races followed here whose events showed them out of the lobby: their racers' presence, which only
        a lobby needs (``lobby.py``), is no longer re-stamped, nor their lobby checked."""
        self.over: set[str] = set()
        """Races followed here whose events showed them ended: their watcher counts are refreshed no more."""
        self.numbers = EventNumbers()
        """The events of the races followed here, numbered (a watcher's stream's versions)."""
        self._moved: Moved | None = None
        """The last move event delivered here, as its followers get it (the hub hands one event to all of
        a channel's followers in turn)."""

    def moved(self, event: Envelope, race_id: str, v: int) -> Moved:
        moved = self._moved
        if moved is None or moved.event is not event or moved.race_id != race_id:
            moved = self._moved = Moved(event, race_id, self.service.clock(), v)
        else:
            moved.first = False
        return moved

    def follower(self, session: Session, name: str) -> Follower | None:
        """What ``session`` follows under ``name`` (a race id, or ``lb:<board>``), if anything."""
        mine = self.followers.get(session)
        return mine.get(name) if mine is not None else None

    async def follow(self, session: Session, race_id: str, role: str, ref: str) -> RaceFollower:
        old = self.follower(session, race_id)
        if isinstance(old, RaceFollower) and old.role == role:
            return old
        if old is not None:
            await self.drop(session, race_id)
        follower = RaceFollower(session, race_id, role)
        placeholder = None
        if follower.lines is None:  # a watcher's stream: its events wait from the subscription on
            source = RaceStream(self.service, self.numbers, race_id, session.player)
            placeholder = session.opening(race_id, role, source)
        try:
            await self._add(session, race_id, follower, race_channel(race_id), ref=ref)
        except BaseException:
            session.abandon(race_id, placeholder)
            raise
        if role == "watcher":
            await self.service.presence.add_watcher(race_id, 1)
        elif session.player is not None:
            await self._arrive(session, race_id)
        return follower

    async def _arrive(self, session: Session, race_id: str) -> None:
        assert session.player is not None
        player, races = self.joined.setdefault(session, (session.player, set()))
        if race_id in races:
            return
        races.add(race_id)
        self.racers_here[(race_id, player)] += 1
        if self.racers_here[(race_id, player)] == 1:
            await self.service.presence.here(race_id, player, True)

    async def depart(self, session: Session, race_id: str, gone: bool) -> None:
        """``session`` no longer joins ``race_id`` (``gone``: it closed, rather than leaving the race on
        purpose). The player's last connection on this instance: their presence stamp goes, and if they
        closed the page, they leave the lobby unless a connection comes back within the grace."""
        player, races = self.joined.get(session, ("", set()))
        if race_id not in races:
            return
        races.discard(race_id)
        if not races:
            del self.joined[session]
        here = (race_id, player)
        self.racers_here[here] -= 1
        if self.racers_here[here] > 0:
            return
        del self.racers_here[here]
        await self.service.presence.here(race_id, player, False)
        if gone:
            self.service.lobbies.leave_later(race_id, player)

    async def follow_board(self, session: Session, board: str) -> None:
        name = "lb:" + board
        if self.follower(session, name) is None:
            follower = BoardFollower(session, board, self.service)
            await self._add(session, name, follower, lb.channel(board), ref="board_watch")

    async def _add(self, session: Session, name: str, follower: Follower, channel: str, ref: str) -> None:
        """Within the connection's ``max_open_games`` (races and boards together), keep ``follower`` and
        subscribe it to ``channel``; a failed subscription forgets it, so that a retry starts afresh. The
        connection's end drops it (``closed``)."""
        mine = self.followers.get(session, {})
        if len(mine) >= self.ctx.settings.max_open_games:
            raise ProtocolError("too_many_games", "this connection follows too many races and boards", ref)
        session.on_close(self.closed)  # first, so that nothing is kept for a connection that has ended
        mine[name] = follower
        self.followers[session] = mine
        try:
            await self.ctx.hub.subscribe(channel, follower)
        except BaseException:
            if mine.get(name) is follower:
                self._forget(session, name)
            raise

    def _forget(self, session: Session, name: str) -> Follower | None:
        mine = self.followers.get(session)
        follower = mine.pop(name, None) if mine is not None else None
        if mine is not None and not mine:
            del self.followers[session]
        return follower

    async def drop(self, session: Session, name: str) -> None:
        """``session`` stops following ``name`` (a race id, or ``lb:<board>``); nothing when it does not."""
        follower = self._forget(session, name)
        if isinstance(follower, RaceFollower):
            if follower.lines is not None:
                follower.lines.close()
            else:
                session.run(session.machine.unfollowed(follower.race_id))
            await self.ctx.hub.unsubscribe(race_channel(follower.race_id), follower)
            if follower.role == "watcher":
                await self.service.presence.add_watcher(follower.race_id, -1)
        elif isinstance(follower, BoardFollower):
            await self.ctx.hub.unsubscribe(lb.channel(follower.board), follower)

    async def closed(self, session: Session) -> None:
        """The close hook of every connection that followed a race or a board: its followers go (and stop
        counting as watchers) and it leaves the races it joined (``depart``, ``gone``), at once. Each step
        is tried on its own (Redis away: the watcher shares and presence stamps expire)."""
        if self.shut:
            self.followers.pop(session, None)
            self.joined.pop(session, None)
            return
        for name in list(self.followers.get(session, {})):
            with contextlib.suppress(Exception):
                await self.drop(session, name)
        self.followers.pop(session, None)
        for race_id in list(self.joined.get(session, ("", set()))[1]):
            with contextlib.suppress(Exception):
                await self.depart(session, race_id, gone=True)
        self.joined.pop(session, None)

    def followed_races(self) -> set[str]:
        return {
            f.race_id
            for mine in self.followers.values()
            for f in mine.values()
            if isinstance(f, RaceFollower)
        }

    async def refresh_forever(self) -> None:
        """From ``sweep_interval_s`` after start-up on, every ``watcher_refresh_s`` (the app's clock: a test
        moves it on): ``refresh``; Redis away is logged, and the next round tries again. It waits in short
        steps of ``sweep_interval_s``: a test's clock counts the long timers (a lobby's grace)."""
        clock = self.ctx.clock
        now = monotonic(clock)
        refresh_at = now()
        while True:
            await pause(clock, self.service.settings.sweep_interval_s)
            if now() < refresh_at:
                continue
            refresh_at = now() + self.service.settings.watcher_refresh_s
            try:
                await self.refresh()
            except Exception:  # Redis away: the next round tries again
                log.warning("refreshing watcher counts and lobbies failed", exc_info=True)

    async def refresh(self) -> None:
        """Re-stamp the watcher counts and the lobby presence of the races followed here (their shares
        expire), and have lobby racers gone from every instance leave."""
        races = self.followed_races()
        known = races | {race_id for race_id, _ in self.racers_here}
        self.started &= known
        self.over &= known
        self.numbers.keep(races)
        # a connection keeps every race it joined: only the lobbies and live races cost a round
        await self.service.presence.refresh_watchers(races - self.over)
        await self.service.presence.restamp_here(
            {here for here in self.racers_here if here[0] not in self.started}
        )
        await self.service.lobbies.check(races - self.started)


def wire_of(session: Session) -> RaceWire:
    wire = session.ctx.get(RaceWire)
    return wire
