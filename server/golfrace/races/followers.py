"""Fan-out of races and leaderboards to this instance's connections.

Each connection following a race holds one ``RaceFollower`` on the race's channel, which turns the internal
events (``service.py``) into what that connection may see (racer: others' progress, the race; watcher: every
board). A racer's own board is not here: it is their seat game, followed like any game (``open``).
``RaceWire`` (``ctx.extras['races']``) keeps every local follower, the racers' presence and the sweeper.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import Counter
from collections.abc import Callable

from ..context import Context
from ..hub import Envelope
from ..protocol import ProtocolError
from ..session import Session
from . import leaderboard as lb
from . import race_views
from .race import Race
from .racer import Seats
from .service import RaceService
from .storage import race_channel
from .timers import monotonic, pause, retrying

log = logging.getLogger("golfrace.races")
RESEND_RETRY_S = (0.25, 0.5, 1.0, 2.0, 5.0)


class ProgressLines:
    """The other racers' progress as one racer's connection gets it, coalesced: at most one send per
    ``progress_interval_ms`` (each seat's latest line, older ones dropped unsent), the first line after a
    quiet spell at once, a trailing send when the interval is up (so the last state always arrives), and at
    once for a status change (a racer done) and before any ``race`` view (which must not be overtaken by older
    lines). One pending timer at most; 0 sends every line at once."""

    __slots__ = ("clock", "interval_ms", "pending", "sent_at", "session", "timer")

    def __init__(self, session: Session, interval_ms: int, clock: Callable[[], int]) -> None:
        self.session = session
        self.interval_ms = interval_ms
        self.clock = clock
        self.pending: dict[int, Moved] = {}
        """Seat → its latest move event not sent yet."""
        self.sent_at: int | None = None
        self.timer: asyncio.TimerHandle | None = None

    def offer(self, seat: int, moved: Moved, urgent: bool) -> None:
        self.pending[seat] = moved
        if urgent or self.interval_ms <= 0:
            self.flush()
            return
        if self.timer is not None:
            return  # the trailing send takes the latest
        now = self.clock()
        wait_ms = 0 if self.sent_at is None else self.sent_at + self.interval_ms - now
        if wait_ms <= 0:
            self.flush()
            return
        # an empty context: the flush belongs to no request (the mover's, on whose turn this event came)
        self.timer = asyncio.get_running_loop().call_later(
            wait_ms / 1000, self.flush, context=contextvars.Context()
        )

    def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.pending:
            return
        lines, self.pending = self.pending, {}
        self.sent_at = self.clock()
        if self.session.closing:
            return
        for moved in lines.values():
            self.session.send_shared(moved.progress)

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.pending = {}


class RaceFollower:
    """One connection following one race, as a racer or a watcher."""

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
        service = wire_of(session).service
        kind = msg.get("k")
        if kind == "watchers":
            session.send({"t": "watchers", "race": rid, "n": msg.get("n", 0)})
            service.presence.saw_watchers(rid, int(msg.get("n", 0)))
            return
        if kind == "move":  # made once per event for every local follower (``RaceWire.moved``)
            moved = wire_of(session).moved(envelope, rid)
            ended = msg["progress"].get("status") != "playing"
            if moved.first and ended:
                service.seat_ended(rid, int(msg["seat"]))
            if self.lines is not None:
                self.lines.offer(int(msg["seat"]), moved, urgent=ended)
                return
            if "board" not in msg:  # made before the race was watched: this watcher's race_watch has it
                return
            session.send_shared(moved.progress)
            session.send_shared(moved.board)
            _shown_again(session, rid, envelope)  # fair play: draws that every racer has reached now
            return
        if self.lines is not None:  # older lines go before the race's news, never after
            self.lines.flush()
        wire = wire_of(session)
        viewsets = msg.get("views")
        if isinstance(viewsets, dict) and viewsets.get("", {}).get("phase") not in (None, "lobby"):
            wire.started.add(rid)
        if msg.get("ended_at") is not None:
            wire.over.add(rid)
        # a race started or changed on another instance: this one settles it on time too
        service.forget(rid, msg.get("rev"))
        service.timers.arm(rid, msg.get("check_at"), msg.get("ended_at"))
        if msg.get("ended_at") is not None:
            service.complete_later(rid)
        if isinstance(viewsets, dict):
            view = viewsets.get(session.player or "") if self.role == "racer" else viewsets.get("")
            if view is not None:
                session.send({"t": "race", **view})
        if self.role == "watcher" and msg.get("ended_at") is None:  # e.g. the slowest racer stopped
            _shown_again(session, rid, envelope)

    def resume(self, name: str) -> None:
        """Race events may have been missed (a pub/sub reconnect): send the race as it is now."""
        if not self.session.closing:
            wire_of(self.session).service.tasks.spawn(_resend(self.session, self.race_id, self.role))


def _shown_again(session: Session, race_id: str, event: Envelope) -> None:
    """The event's ``boards`` to a watcher again, whole: every racer playing has drawn as far (11.4)."""
    for board in event.message.get("boards") or ():
        session.send({"t": "race_board", "race": race_id, "board": board, "diff": None})


async def _resend(session: Session, race_id: str, role: str) -> None:
    async def send() -> None:
        if not session.closing:
            await send_race(session, race_id, watcher=role == "watcher")

    # a ProtocolError: the race is gone; Redis away right after the reconnect: tried again
    await retrying(send, RESEND_RETRY_S, (ProtocolError,), f"resending race {race_id}")


async def send_race(session: Session, race_id: str, watcher: bool = False, ref: str = "race") -> Race:
    """The race as it is now: ``race`` (a racer's view), or ``race_watch`` with every board (a watcher)."""
    service = wire_of(session).service
    found = await service.load_with_seats(race_id)
    if found is None:
        raise ProtocolError("race_not_found", f"no race {race_id!r}", ref=ref, race=race_id)
    race, seats = found
    watchers = await service.presence.watchers(race_id)
    send_view(session, race, seats, watchers, watcher)
    return race


def send_view(session: Session, race: Race, seats: Seats, watchers: int, watcher: bool) -> None:
    now = session_now(session)
    follower = wire_of(session).followers.get((id(session), race.id))
    if isinstance(follower, RaceFollower) and follower.lines is not None:
        follower.lines.flush()  # lines of earlier events go first, as they came
    if watcher:
        view = race_views.race_view(race, None, now, watchers, seats)
        session.send({"t": "race_watch", **view, "boards": race_views.boards(race, seats, now)})
    else:
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


class Moved:
    """A seat's move event as its followers on this instance get it: ``race_progress`` for all, ``race_board``
    for watchers, each made when the first follower sends it (a racer's coalesced lines may never send it),
    encoded and framed once."""

    __slots__ = ("_board", "_progress", "event", "first", "now", "race_id")

    def __init__(self, event: Envelope, race_id: str, now: int) -> None:
        self.event = event
        self.race_id = race_id
        self.first = True
        """Only while the event's first follower here handles it (what the instance does once)."""
        self.now = now
        self._progress: Envelope | None = None
        self._board: Envelope | None = None

    @property
    def progress(self) -> Envelope:
        if self._progress is None:
            self._progress = Envelope.of(
                self.event.channel,
                {
                    "t": "race_progress",
                    "race": self.race_id,
                    "racer": self.event.message["progress"],
                    "now": self.now,
                },
            )
        return self._progress

    @property
    def board(self) -> Envelope:
        if self._board is None:
            msg = self.event.message
            self._board = Envelope.of(
                self.event.channel,
                {"t": "race_board", "race": self.race_id, "board": msg["board"], "diff": msg["diff"]},
            )
        return self._board


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
        self.started: set[str] = set()
        """Races followed here whose events showed them out of the lobby: their racers' presence, which only
        a lobby needs (``lobby.py``), is no longer re-stamped, nor their lobby checked."""
        self.over: set[str] = set()
        """Races followed here whose events showed them ended: their watcher counts are refreshed no more."""
        self._moved: Moved | None = None
        """The last move event delivered here, as its followers get it (the hub hands one event to all of
        a channel's followers in turn)."""

    def moved(self, event: Envelope, race_id: str) -> Moved:
        moved = self._moved
        if moved is None or moved.event is not event or moved.race_id != race_id:
            moved = self._moved = Moved(event, race_id, self.service.clock())
        else:
            moved.first = False
        return moved

    async def follow(self, session: Session, race_id: str, role: str, ref: str) -> RaceFollower:
        key = (id(session), race_id)
        old = self.followers.get(key)
        if isinstance(old, RaceFollower) and old.role == role:
            return old
        if old is not None:
            await self.drop(key)
        follower = RaceFollower(session, race_id, role)
        await self._add(key, follower, race_channel(race_id), ref=ref)
        if role == "watcher":
            await self.service.presence.add_watcher(race_id, 1)
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
            await self.service.presence.here(race_id, player, True)

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
        await self.service.presence.here(race_id, player, False)
        if gone:
            self.service.lobbies.leave_later(race_id, player)

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
            if follower.lines is not None:
                follower.lines.close()
            await self.ctx.hub.unsubscribe(race_channel(follower.race_id), follower)
            if follower.role == "watcher":
                await self.service.presence.add_watcher(follower.race_id, -1)
        elif isinstance(follower, BoardFollower):
            await self.ctx.hub.unsubscribe(lb.channel(follower.board), follower)

    async def sweep(self) -> None:
        """Connections that went away stop following (and stop counting as watchers); every
        ``watcher_refresh_s`` the watcher counts and presence stamps of the races followed here are
        refreshed, and lobby racers gone from every instance leave."""
        clock = self.ctx.clock  # the app's: a test moves it on (``races.timers.pause``)
        now = monotonic(clock)
        refresh_at = now()
        while True:
            await pause(clock, self.service.settings.sweep_interval_s)
            live = {id(s) for s in self.ctx.sessions}
            for key in [k for k, f in self.followers.items() if k[0] not in live or f.session.closing]:
                with contextlib.suppress(Exception):
                    await self.drop(key)
            closing = {id(s) for s in self.ctx.sessions if s.closing}
            for session_id in [s for s in self.joined if s not in live or s in closing]:
                for race_id in list(self.joined.get(session_id, ("", set()))[1]):
                    with contextlib.suppress(Exception):
                        await self.depart(session_id, race_id, gone=True)
            if now() >= refresh_at:
                refresh_at = now() + self.service.settings.watcher_refresh_s
                races = {f.race_id for f in self.followers.values() if isinstance(f, RaceFollower)}
                known = races | {race_id for race_id, _ in self.racers_here}
                self.started &= known
                self.over &= known
                try:
                    # a connection keeps every race it joined: only the lobbies and live races cost a round
                    await self.service.presence.refresh_watchers(races - self.over)
                    await self.service.presence.restamp_here(
                        {here for here in self.racers_here if here[0] not in self.started}
                    )
                    await self.service.lobbies.check(races - self.started)
                except Exception:  # Redis away: the next round tries again
                    log.warning("refreshing watcher counts and lobbies failed", exc_info=True)


def wire_of(session: Session) -> RaceWire:
    wire: RaceWire = session.ctx.extras["races"]
    return wire
