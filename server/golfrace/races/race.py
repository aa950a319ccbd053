"""A race: several racers play their own copy of one deal. A pure, immutable state machine.

Each racer's game is an ordinary stored game, the race's seat ``<race id>-<seat>`` (``keys.py``), changed
only by the game pipeline (``act``); the race holds no game. It reads its seats (``Seat``: the game, its
version, the time of its last move) and reacts to them: a seat won or stuck is that racer's end, a deadline
stops the racers still playing. What the seats may do is written into the race gate (``gate``) that every
seat commit checks atomically.

Phases: ``lobby`` (racers join, the host starts) → ``countdown`` (until ``starts_at``, server time) →
``running`` → ``finished`` (every racer won, got stuck, resigned or abandoned, or the time limit passed).
Every transition takes the current time ``now`` (ms since the epoch) from the caller: the clock is injected.

A racer who closed the tab must not hold the others forever: a racer still playing who makes no move for
``idle_s`` (counted from the later of their last move, the start and the first finish of another racer) is out
with ``abandoned`` (a race its host started alone too; a daily attempt waits as long as its player likes). It
does not wait for someone to finish first: a race whose racers all closed their tabs ends by their forfeits,
and leaves the live list (issue 20.3). ``idle_s`` is the server's ``idle_forfeit_s`` when the race
was created.

Ranking: ``ranking.standings`` (the one rule of every result, then the earlier finish, then the seat).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from golfrace.settings.races import DEFAULT_SETTINGS, RaceSettings
from golfrace.store import lookalike
from golfrace.store.keys import gate_out
from golfrace.wire.ids import seat_id

from ..engine import GameCode, Status
from . import fair_play
from .errors import RaceError
from .racer import NO_SEATS, STOPPED, Outcome, Racer, Seat, Seats
from .ranking import standings

__all__ = ["Outcome", "Phase", "Race", "RaceOptions", "Racer", "Seat", "Seats"]
PLAYING = Status.PLAYING


class Phase(StrEnum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class RaceOptions:
    undo: bool = True
    time_limit_s: int = 0  # 0: no limit
    seats: int = 8

    def checked(self, settings: RaceSettings = DEFAULT_SETTINGS) -> RaceOptions:
        if not 1 <= self.seats <= settings.max_racers:
            raise RaceError("bad_option", f"seats must be 1–{settings.max_racers}", option="seats")
        if not 0 <= self.time_limit_s <= settings.max_time_limit_s:
            raise RaceError(
                "bad_option", f"the time limit must be 0–{settings.max_time_limit_s} s", option="limit"
            )
        return self


@dataclass(frozen=True, slots=True)
class Race:
    id: str
    code: GameCode
    options: RaceOptions
    host: str
    created_at: int
    racers: tuple[Racer, ...] = ()
    typed: bool = False  # the host typed the code: casual, unranked, the code is no secret
    ranked: bool = True
    daily: str | None = None  # yyyy-mm-dd for a daily-challenge attempt
    guest_deal: bool = False
    """A guest's daily attempt: the day's guest deal, never the day's own (fair play 19.1)."""
    starts_at: int | None = None
    ended_at: int | None = None
    par: int | None = None  # best reachable score of the deal (solver), when known
    rematch: str | None = None  # the next race's id once someone accepted a rematch
    previous: str | None = None
    next_seat: int = 1
    idle_s: int = DEFAULT_SETTINGS.idle_forfeit_s
    draw_lead: int = DEFAULT_SETTINGS.review_draw_lead
    """``review_draw_lead`` when created: a ranked racer ending this far ahead in draws is flagged."""
    grace_s: int = DEFAULT_SETTINGS.daily_grace_s
    """A daily attempt: the server's ``daily_grace_s`` when it was created (its code's secrecy outlasts the
    day by as much: ``code_visible_to``)."""
    finalized: bool = False
    """The end's aftermath (records, boards, bests, daily) is done; until then whoever touches the ended race
    does it (every step is idempotent), so a process dying at the end loses nothing."""
    watched: bool = False  # someone watched it: its seats' move events carry the watchers' boards
    pool: bool = False
    """A quick race the pool made (``golfrace.pool``): started by the pool, its racers rated; leaving it after
    the start is a resignation."""
    rev: int = 0
    """The record's revision, one more with every write and copied into the gate: a seat's commit checks
    that the race it describes (``RaceService.peek``) is the stored one."""

    # --- creation ------------------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        race_id: str,
        code: GameCode,
        *,
        host: str,
        name: str,
        now: int,
        options: RaceOptions = RaceOptions(),
        typed: bool = False,
        ranked: bool | None = None,
        daily: str | None = None,
        previous: str | None = None,
        settings: RaceSettings = DEFAULT_SETTINGS,
        guest_deal: bool = False,
        net: str = "",
    ) -> Race:
        race = cls(
            race_id,
            code,
            options.checked(settings),
            host,
            now,
            typed=typed,
            ranked=(not typed) if ranked is None else ranked and not typed,
            daily=daily,
            guest_deal=guest_deal and daily is not None,
            previous=previous,
            idle_s=settings.idle_forfeit_s,
            draw_lead=settings.review_draw_lead,
            grace_s=settings.daily_grace_s,
        )
        return race.join(host, name, now, settings, net=net)

    # --- derived views -------------------------------------------------------------------------------
    def phase(self, now: int) -> Phase:
        if self.ended_at is not None:
            return Phase.FINISHED
        if self.starts_at is None:
            return Phase.LOBBY
        if now < self.starts_at:
            return Phase.COUNTDOWN
        return Phase.RUNNING

    @property
    def deadline(self) -> int | None:
        if self.starts_at is None or not self.options.time_limit_s:
            return None
        return self.starts_at + self.options.time_limit_s * 1000

    def gate(self) -> dict[str, int | str]:
        """The race gate (``keys.gate_key``) every commit of a seat checks: none in the lobby."""
        if self.starts_at is None:
            return {}
        gate: dict[str, int | str] = {
            "starts_at": self.starts_at,
            "deadline": self.deadline or 0,
            "ended": int(self.ended_at is not None),
            "undo": int(self.options.undo),
            "rev": self.rev,
        }
        for r in self.racers:
            if r.outcome in STOPPED:
                gate[gate_out(r.seat)] = r.status
        return gate

    def last_active(self, racer: Racer, seats: Seats) -> int:
        """When the racer last moved (ms since the epoch), or the start; only once the race has started."""
        assert self.starts_at is not None
        seat = seats.get(racer.seat)
        last = seat.last_move if seat is not None else None
        return self.starts_at if last is None else max(self.starts_at, last)

    def out_at(self, racer: Racer, seats: Seats) -> int | None:
        """When ``racer``, still playing, is out for idling (see the module): ``idle_s`` after the later of
        their last move (or the start) and the first finish of another racer; None while that does not
        apply."""
        if self.starts_at is None or self.ended_at is not None or racer.done or not self.idle_s:
            return None
        if self.daily is not None:  # a daily attempt waits as long as its player likes (and is never listed)
            return None
        # a finish gives the others the whole wait again; another's forfeit does not (closed tabs end at once)
        finishes = [
            r.finished_at
            for r in self.racers
            if r.finished_at is not None and r.outcome is not Outcome.ABANDONED
        ]
        first = min(finishes) if finishes else 0
        return max(self.last_active(racer, seats), first) + self.idle_s * 1000

    def next_check(self, seats: Seats) -> int | None:
        """When ``settle`` may next change the race on its own: the time limit or an idle racer's forfeit. A
        move only pushes a forfeit later, so a check armed for this time is never late."""
        times = [t for t in (self.deadline, *(self.out_at(r, seats) for r in self.racers)) if t is not None]
        return min(times) if times else None

    def game_id(self, racer: Racer) -> str:
        return seat_id(self.id, racer.seat)

    def racer(self, player: str) -> Racer | None:
        for r in self.racers:
            if r.player == player:
                return r
        return None

    def racer_at(self, seat: int) -> Racer | None:
        for r in self.racers:
            if r.seat == seat:
                return r
        return None

    def elapsed(self, racer: Racer, now: int) -> int:
        """Milliseconds the racer has played (or took, once done); 0 before the start."""
        if self.starts_at is None:
            return 0
        end = racer.finished_at if racer.finished_at is not None else now
        if self.ended_at is not None and racer.finished_at is None:
            end = self.ended_at
        return max(0, end - self.starts_at)

    def code_visible_to(self, player: str | None, now: int | None = None) -> bool:
        return fair_play.code_visible_to(self, player, now)

    def shown_draws(self, seats: Seats, now: int) -> int | None:
        return fair_play.shown_draws(self, seats, now)

    def ranking(self, seats: Seats) -> list[Racer]:
        return standings(self, seats)

    # --- transitions ---------------------------------------------------------------------------------
    def join(
        self,
        player: str,
        name: str,
        now: int,
        settings: RaceSettings = DEFAULT_SETTINGS,
        *,
        account: bool = True,
        net: str = "",
    ) -> Race:
        """Take a seat in the lobby. A racer already seated keeps their seat (a rejoin renames). Whoever
        joins a lobby its host has left hosts it. A ranked race seats accounts only (``account``, fair play
        19.2); ``net``: the client network the racer joins from (kept as ``fair_play.net_tag``)."""
        name = _clean_name(name, settings)
        seated = self.racer(player)
        if seated is not None:
            return self._put(replace(seated, name=name)) if self.starts_at is None else self
        if self.starts_at is not None or self.ended_at is not None:
            raise RaceError("race_started", "this race has already started", race=self.id)
        if len(self.racers) >= self.options.seats:
            raise RaceError("race_full", f"all {self.options.seats} seats are taken", race=self.id)
        if self.ranked and not account:
            raise RaceError("account_required", "a ranked race seats accounts only: sign in", race=self.id)
        racer = Racer(player, name, self.next_seat, net=fair_play.net_tag(self.id, net))
        host = self.host if self.racer(self.host) is not None else player
        return replace(self, racers=(*self.racers, racer), next_seat=self.next_seat + 1, host=host)

    def leave(self, player: str) -> Race:
        """Leave the lobby; the seat frees up and, if the host left, the next racer hosts."""
        self._seated(player)
        if self.starts_at is not None:
            raise RaceError("race_started", "a started race cannot be left; resign instead", race=self.id)
        racers = tuple(r for r in self.racers if r.player != player)
        host = self.host if self.host != player or not racers else racers[0].player
        return replace(self, racers=racers, host=host)

    def start(self, player: str, now: int, settings: RaceSettings = DEFAULT_SETTINGS) -> Race:
        """The countdown begins; the caller stores every racer's seat game with this write."""
        if player != self.host:
            raise RaceError("not_host", "only the host can start the race", race=self.id)
        if self.starts_at is not None:
            raise RaceError("race_started", "this race has already started", race=self.id)
        return replace(self, starts_at=now + settings.countdown_ms)

    def resign(self, player: str, now: int) -> Race:
        racer = self._seated(player)
        phase = self.phase(now)
        deadline = self.deadline
        if phase is Phase.FINISHED or (deadline is not None and now >= deadline):
            raise RaceError("race_over", "this race is over", race=self.id)
        if phase is Phase.LOBBY:
            raise RaceError(
                "race_not_started", "wait for the countdown", race=self.id, starts_at=self.starts_at
            )
        if racer.done:
            raise RaceError("game_ended", "your game in this race is over", race=self.id, status=racer.status)
        return self._put(replace(racer, outcome=Outcome.RESIGNED, finished_at=now))._maybe_end()

    def observe(self, seats: Seats) -> Race:
        """The seats' own ends: a racer still playing whose game is won or stuck finished with it, at the
        time of its last move."""
        if self.starts_at is None or self.ended_at is not None:
            return self
        ended = {
            r.seat: seat
            for r in self.racers
            if not r.done and (seat := seats.get(r.seat)) is not None and seat.game.status is not PLAYING
        }
        if not ended:
            return self
        racers = tuple(
            replace(
                r,
                outcome=Outcome(ended[r.seat].game.status.value),
                finished_at=self.last_active(r, seats),
            )
            if r.seat in ended
            else r
            for r in self.racers
        )
        return replace(self, racers=racers)._maybe_end()

    def settle(self, now: int, seats: Seats = NO_SEATS) -> Race:
        """What the seats and time decide: ends the seats reached (``observe``); at the time limit, racers
        still playing stop with ``timeout``; before it, racers past their ``out_at`` (idle while another has
        finished) are out with ``abandoned``."""
        race = self.observe(seats)
        deadline = race.deadline
        if race.ended_at is not None:
            return race
        if deadline is not None and now >= deadline:
            return race._stop_all(Outcome.TIMEOUT, deadline)
        out = {r.seat: t for r in race.racers if (t := race.out_at(r, seats)) is not None and now >= t}
        if not out:
            return race
        racers = tuple(
            replace(r, outcome=Outcome.ABANDONED, finished_at=out[r.seat]) if r.seat in out else r
            for r in race.racers
        )
        return replace(race, racers=racers)._maybe_end()

    def accept_rematch(self, player: str, next_id: str) -> Race:
        """Record ``player``'s wish for a rematch in race ``next_id`` (the first acceptance names it)."""
        racer = self._seated(player)
        if self.ended_at is None:
            raise RaceError("race_not_finished", "a rematch starts after the race ends", race=self.id)
        return replace(self._put(replace(racer, rematch=True)), rematch=self.rematch or next_id)

    def next_race(
        self, code: GameCode, player: str, now: int, settings: RaceSettings = DEFAULT_SETTINGS
    ) -> Race:
        """The rematch lobby, hosted by the first racer who accepted, with the same options."""
        if self.rematch is None:
            raise RaceError("race_not_finished", "no rematch was accepted", race=self.id)
        racer = self._seated(player)
        return Race.create(
            self.rematch,
            code,
            host=player,
            name=racer.name,
            now=now,
            options=self.options,
            typed=self.typed,
            ranked=self.ranked,  # a casual random race's rematch is casual too
            previous=self.id,
            settings=settings,
        )

    def with_par(self, par: int | None) -> Race:
        return replace(self, par=par)

    def finalize(self) -> Race:
        """The end's aftermath is done (see ``finalized``)."""
        return self if self.ended_at is None or self.finalized else replace(self, finalized=True)

    # --- helpers -------------------------------------------------------------------------------------
    def _seated(self, player: str) -> Racer:
        racer = self.racer(player)
        if racer is None:
            raise RaceError("not_racer", "you have no seat in this race", race=self.id)
        return racer

    def _stop_all(self, outcome: Outcome, at: int) -> Race:
        """End the race at ``at``: racers still playing stop there with ``outcome``."""
        racers = tuple(r if r.done else replace(r, outcome=outcome, finished_at=at) for r in self.racers)
        return replace(self, racers=racers, ended_at=at)

    def _put(self, racer: Racer) -> Race:
        return replace(self, racers=tuple(racer if r.seat == racer.seat else r for r in self.racers))

    def _maybe_end(self) -> Race:
        """Every racer done: the race ended with the last finish."""
        if self.racers and all(r.done for r in self.racers):
            return replace(self, ended_at=max(r.finished_at or 0 for r in self.racers))
        return self


def _clean_name(name: str, settings: RaceSettings) -> str:
    """Spaces folded; empty when none was given (clients show "Player <seat>" in their own language)."""
    if not isinstance(name, str):
        raise RaceError("bad_option", "a name must be text", option="name")
    name = " ".join(name.split())
    if len(name) > settings.name_max:
        raise RaceError("bad_option", f"a name has at most {settings.name_max} characters", option="name")
    if name and lookalike.reserved(name):  # fair play 19.6: no racer named "admin" or "Deleted player"
        raise RaceError("bad_option", "this name is reserved", option="name", reason="reserved")
    return name
