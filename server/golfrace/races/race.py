"""A race: several racers play their own copy of one deal. A pure, immutable state machine.

Phases: ``lobby`` (racers join, the host starts) → ``countdown`` (until ``starts_at``, server time) →
``running`` → ``finished`` (every racer won, got stuck, resigned or abandoned, or the time limit passed).
Every transition takes the current time ``now`` (ms since the epoch) from the caller: the clock is injected.

A racer who closed the tab must not hold the others forever: once a racer has finished, a racer still
playing who makes no move for ``idle_s`` (counted from the later of their last move and that first finish) is
out with ``abandoned`` (races of two or more; a solo race or a daily attempt waits as long as its player
likes). ``idle_s`` is the server's ``idle_forfeit_s`` when the race was created.

Ranking: final score (higher first), then elapsed time (shorter first), then moves (fewer first), then the
earlier finish, then the seat. Scores are the game's own (a stuck game loses 10 a card left); a racer who
resigned or abandoned scores like a stuck game; a racer stopped by the time limit keeps the score shown (10 a
card removed).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ..engine import Action, Game, GameCode, Status, Undo, token
from ..engine.game import points
from .daily import day_of
from .errors import RaceError
from .settings import DEFAULT_SETTINGS, RaceSettings


class Phase(StrEnum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"


class Outcome(StrEnum):
    WON = "won"
    STUCK = "stuck"
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    ABANDONED = "abandoned"


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
class Racer:
    player: str  # the public player id (never the secret token)
    name: str
    seat: int
    game: Game | None = None  # None in the lobby
    log: tuple[tuple[str, int], ...] = ()  # (move token, ms after starts_at), undos included
    outcome: Outcome | None = None
    finished_at: int | None = None  # ms since the epoch
    rematch: bool = False
    seq: int = 0  # the last client sequence number applied (a resent one is answered, not applied)

    @property
    def status(self) -> str:
        return self.outcome.value if self.outcome else "playing"

    @property
    def done(self) -> bool:
        return self.outcome is not None

    @property
    def final_score(self) -> int:
        game = self.game
        if game is None:
            return 0
        if self.outcome in (None, Outcome.WON, Outcome.STUCK, Outcome.TIMEOUT):
            return game.score
        return points(game.removed, stuck=True)


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
    starts_at: int | None = None
    ended_at: int | None = None
    par: int | None = None  # best reachable score of the deal (solver), when known
    rematch: str | None = None  # the next race's id once someone accepted a rematch
    previous: str | None = None
    next_seat: int = 1
    idle_s: int = DEFAULT_SETTINGS.idle_forfeit_s

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
            previous=previous,
            idle_s=settings.idle_forfeit_s,
        )
        return race.join(host, name, now, settings)

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

    def last_active(self, racer: Racer) -> int:
        """When the racer last moved (ms since the epoch), or the start; only once the race has started."""
        assert self.starts_at is not None
        return self.starts_at + (racer.log[-1][1] if racer.log else 0)

    def out_at(self, racer: Racer) -> int | None:
        """When ``racer``, still playing, is out for idling (see the module): ``idle_s`` after the later of
        their last move and the first finish of another racer; None while that does not apply."""
        if self.starts_at is None or self.ended_at is not None or racer.done or not self.idle_s:
            return None
        if len(self.racers) < 2:
            return None
        finishes = [r.finished_at for r in self.racers if r.finished_at is not None]
        if not finishes:
            return None
        return max(self.last_active(racer), min(finishes)) + self.idle_s * 1000

    def next_check(self) -> int | None:
        """When ``settle`` may next change the race on its own: the time limit or an idle racer's forfeit."""
        times = [t for t in (self.deadline, *(self.out_at(r) for r in self.racers)) if t is not None]
        return min(times) if times else None

    def game_id(self, racer: Racer) -> str:
        return f"{self.id}-{racer.seat}"

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
        """A random code is secret until the viewer's own game ends (or, for others, the race). A daily code
        stays secret from everyone but its racer until its UTC day is over (``now`` given and past it)."""
        if self.typed:
            return True
        racer = self.racer(player) if player is not None else None
        if racer is not None and racer.done:
            return True
        if self.daily is not None:  # fair play: never while the attempt runs (its day may be over by then)
            return self.ended_at is not None and now is not None and day_of(now).isoformat() > self.daily
        return self.ended_at is not None

    def ranking(self) -> list[Racer]:
        def key(r: Racer) -> tuple[int, int, int, int, int]:
            moves = r.game.moves if r.game else 0
            finished = r.finished_at if r.finished_at is not None else 2**62
            return (-r.final_score, self.elapsed(r, finished), moves, finished, r.seat)

        return sorted(self.racers, key=key)

    # --- transitions ---------------------------------------------------------------------------------
    def join(self, player: str, name: str, now: int, settings: RaceSettings = DEFAULT_SETTINGS) -> Race:
        """Take a seat in the lobby. A racer already seated keeps their seat (a rejoin renames). Whoever
        joins a lobby its host has left hosts it."""
        name = _clean_name(name, settings)
        seated = self.racer(player)
        if seated is not None:
            return self._put(replace(seated, name=name)) if self.starts_at is None else self
        if self.starts_at is not None or self.ended_at is not None:
            raise RaceError("race_started", "this race has already started", race=self.id)
        if len(self.racers) >= self.options.seats:
            raise RaceError("race_full", f"all {self.options.seats} seats are taken", race=self.id)
        racer = Racer(player, name, self.next_seat)
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
        if player != self.host:
            raise RaceError("not_host", "only the host can start the race", race=self.id)
        if self.starts_at is not None:
            raise RaceError("race_started", "this race has already started", race=self.id)
        game = Game.new(self.code, draws_final=self.ranked)  # fair play: a draw is final in ranked play
        racers = tuple(replace(r, game=game) for r in self.racers)
        return replace(self, racers=racers, starts_at=now + settings.countdown_ms)

    def act(self, player: str, action: Action, now: int, seq: int = 0) -> Race:
        """Apply one move of ``player``'s own game; raises RaceError or the engine's Refusal."""
        racer = self._playing(player, now)
        if isinstance(action, Undo) and not self.options.undo:
            raise RaceError("undo_disabled", "undo is off in this race", race=self.id)
        assert racer.game is not None and self.starts_at is not None  # guaranteed by _playing
        game = racer.game.apply(action)
        log = (*racer.log, (token(action), now - self.starts_at))
        racer = replace(racer, game=game, log=log, seq=max(seq, racer.seq))
        if game.status is not Status.PLAYING:
            racer = replace(racer, outcome=Outcome(game.status.value), finished_at=now)
        return self._put(racer)._maybe_end(now)

    def resign(self, player: str, now: int) -> Race:
        racer = self._playing(player, now, allow_countdown=True)
        return self._put(replace(racer, outcome=Outcome.RESIGNED, finished_at=now))._maybe_end(now)

    def settle(self, now: int) -> Race:
        """What time alone decides: at the time limit, racers still playing stop with ``timeout``; before it,
        racers past their ``out_at`` (idle while another has finished) are out with ``abandoned``."""
        deadline = self.deadline
        if self.ended_at is not None:
            return self
        if deadline is not None and now >= deadline:
            return self._stop_all(Outcome.TIMEOUT, deadline)
        out = {r.seat: t for r in self.racers if (t := self.out_at(r)) is not None and now >= t}
        if not out:
            return self
        racers = tuple(
            replace(r, outcome=Outcome.ABANDONED, finished_at=out[r.seat]) if r.seat in out else r
            for r in self.racers
        )
        return replace(self, racers=racers)._maybe_end(now)

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
            previous=self.id,
            settings=settings,
        )

    def with_par(self, par: int | None) -> Race:
        return replace(self, par=par)

    # --- helpers -------------------------------------------------------------------------------------
    def _seated(self, player: str) -> Racer:
        racer = self.racer(player)
        if racer is None:
            raise RaceError("not_racer", "you have no seat in this race", race=self.id)
        return racer

    def _playing(self, player: str, now: int, allow_countdown: bool = False) -> Racer:
        racer = self._seated(player)
        phase = self.phase(now)
        deadline = self.deadline
        if phase is Phase.FINISHED or (deadline is not None and now >= deadline):
            raise RaceError("race_over", "this race is over", race=self.id)
        if phase is Phase.LOBBY or (phase is Phase.COUNTDOWN and not allow_countdown):
            raise RaceError(
                "race_not_started", "wait for the countdown", race=self.id, starts_at=self.starts_at
            )
        if racer.done:
            raise RaceError("game_ended", "your game in this race is over", race=self.id, status=racer.status)
        return racer

    def _stop_all(self, outcome: Outcome, at: int) -> Race:
        """End the race at ``at``: racers still playing stop there with ``outcome``."""
        racers = tuple(r if r.done else replace(r, outcome=outcome, finished_at=at) for r in self.racers)
        return replace(self, racers=racers, ended_at=at)

    def _put(self, racer: Racer) -> Race:
        return replace(self, racers=tuple(racer if r.seat == racer.seat else r for r in self.racers))

    def _maybe_end(self, now: int) -> Race:
        if self.racers and all(r.done for r in self.racers):
            return replace(self, ended_at=now)
        return self

    # --- storage (plain data) ------------------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "code": str(self.code),
            "options": [self.options.undo, self.options.time_limit_s, self.options.seats],
            "host": self.host,
            "created_at": self.created_at,
            "typed": self.typed,
            "ranked": self.ranked,
            "daily": self.daily,
            "starts_at": self.starts_at,
            "ended_at": self.ended_at,
            "par": self.par,
            "rematch": self.rematch,
            "previous": self.previous,
            "next_seat": self.next_seat,
            "idle_s": self.idle_s,
            "racers": [
                {
                    "player": r.player,
                    "name": r.name,
                    "seat": r.seat,
                    "game": r.game.to_state() if r.game else None,
                    "log": [list(m) for m in r.log],
                    "outcome": r.outcome.value if r.outcome else None,
                    "finished_at": r.finished_at,
                    "rematch": r.rematch,
                    "seq": r.seq,
                }
                for r in self.racers
            ],
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Race:
        undo, limit, seats = data["options"]
        racers = tuple(
            Racer(
                r["player"],
                r["name"],
                int(r["seat"]),
                Game.from_state(r["game"]) if r["game"] else None,
                tuple((str(t), int(ms)) for t, ms in r["log"]),
                Outcome(r["outcome"]) if r["outcome"] else None,
                r["finished_at"],
                bool(r["rematch"]),
                int(r.get("seq", 0)),
            )
            for r in data["racers"]
        )
        return cls(
            data["id"],
            GameCode.parse(data["code"]),
            RaceOptions(bool(undo), int(limit), int(seats)),
            data["host"],
            int(data["created_at"]),
            racers,
            typed=bool(data["typed"]),
            ranked=bool(data["ranked"]),
            daily=data["daily"],
            starts_at=data["starts_at"],
            ended_at=data["ended_at"],
            par=data["par"],
            rematch=data["rematch"],
            previous=data["previous"],
            next_seat=int(data["next_seat"]),
            idle_s=int(data.get("idle_s", DEFAULT_SETTINGS.idle_forfeit_s)),
        )


def _clean_name(name: str, settings: RaceSettings) -> str:
    """Spaces folded; empty when none was given (clients show "Player <seat>" in their own language)."""
    if not isinstance(name, str):
        raise RaceError("bad_option", "a name must be text", option="name")
    name = " ".join(name.split())
    if len(name) > settings.name_max:
        raise RaceError("bad_option", f"a name has at most {settings.name_max} characters", option="name")
    return name
