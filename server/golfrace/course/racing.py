"""The course as a race format (issue 22.3): two or more racers play the same nine deals, hole after hole,
each at their own pace; the fewest strokes win. A pure, immutable state machine (the clock is the caller's).

Phases: ``lobby`` (racers join by the race's link, the host starts) → ``running`` → ``finished`` (every racer
played the nine holes or resigned).

- The course is a **long** course code the server draws (``random_course(long=True)``), so its holes are long
  codes, as ranked play deals them. Fair play (hidden codes, 11.2): the course's code and its holes' codes are
  shown to nobody, its racers included, until the race is over for everyone; each hole is a **sealed** game
  (``wire.views.sealed``: no frame carries its code, the stock never leaves the server, no hint), and no
  other identity learns a racer's hole game before the end.
- Each racer's hole ``n`` is an ordinary stored game of theirs (``games[n - 1]``), dealt by the server when
  the racer asks for it after hole ``n - 1`` is over (won or stuck); its strokes are the cards it left
  (``holes.hole_result``). A racer's time runs from the deal of their first hole to the last move of their
  ninth (so a page that learnt of the start a moment late loses nothing).
- A racer who **resigns** counts the cards left on the hole they stopped (``engine.course.strokes``,
  ``stopped``) and 35, a full tableau, for every hole not played: stopping never beats playing on.
- The **standing**: racers done first, by strokes (fewer first), a finished course before a resigned one of
  the same strokes, then the shorter time, then the seat; racers still playing after them, by holes played
  (more first), then strokes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ..engine.course import HOLE_PAR, HOLES, PAR, CourseCode
from ..engine.deal import TABLEAU
from .errors import CourseRefusal
from .holes import Hole


class Phase(StrEnum):
    LOBBY = "lobby"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class CourseRacer:
    player: str
    name: str
    seat: int
    games: tuple[str, ...] = ()
    """Hole ``n``'s game is ``games[n - 1]``: dealt in order, one ahead of ``holes`` at most."""
    holes: tuple[Hole, ...] = ()
    began_at: int | None = None
    """When the racer's first hole was dealt: their time runs from there."""
    finished_at: int | None = None
    resigned: bool = False

    @property
    def done(self) -> bool:
        return self.finished_at is not None

    @property
    def played(self) -> int:
        return len(self.holes)

    @property
    def hole(self) -> int | None:
        """The hole being played (1 to 9), None once done."""
        return None if self.done else self.played + 1

    @property
    def card(self) -> list[int]:
        """Each hole's strokes; a resigned racer's holes not played count a full tableau."""
        strokes = [h.strokes for h in self.holes]
        return strokes + [TABLEAU] * (HOLES - len(strokes)) if self.resigned else strokes

    @property
    def strokes(self) -> int:
        return sum(self.card)

    def elapsed(self, now: int) -> int:
        if self.began_at is None:
            return 0
        end = self.finished_at if self.finished_at is not None else now
        return max(0, end - self.began_at)

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "seat": self.seat,
            "games": list(self.games),
            "holes": [h.to_json() for h in self.holes],
            "began_at": self.began_at,
            "finished_at": self.finished_at,
            "resigned": self.resigned,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CourseRacer:
        return cls(
            str(data["player"]),
            str(data["name"]),
            int(data["seat"]),
            tuple(str(g) for g in data["games"]),
            tuple(Hole.from_json(h) for h in data["holes"]),
            data["began_at"],
            data["finished_at"],
            bool(data["resigned"]),
        )


@dataclass(frozen=True, slots=True)
class CourseRace:
    id: str
    course: CourseCode
    host: str
    created_at: int
    seats: int
    racers: tuple[CourseRacer, ...] = ()
    started_at: int | None = None
    ended_at: int | None = None
    next_seat: int = 1
    rev: int = 0
    """The record's revision, one more with every write (``race_book.py``'s compare-and-set)."""

    # --- creation and the lobby -------------------------------------------------------------------------
    @classmethod
    def create(
        cls, race_id: str, course: CourseCode, host: str, name: str, now: int, seats: int
    ) -> CourseRace:
        return cls(race_id, course, host, now, seats).join(host, name)

    def phase(self) -> Phase:
        if self.ended_at is not None:
            return Phase.FINISHED
        return Phase.LOBBY if self.started_at is None else Phase.RUNNING

    def racer(self, player: str) -> CourseRacer | None:
        return next((r for r in self.racers if r.player == player), None)

    def seated(self, player: str) -> CourseRacer:
        racer = self.racer(player)
        if racer is None:
            raise CourseRefusal("not_racer", "you have no seat in this race", race=self.id)
        return racer

    def join(self, player: str, name: str) -> CourseRace:
        """A seat in the lobby; a racer already seated keeps theirs (a rejoin renames, in the lobby)."""
        seated = self.racer(player)
        if seated is not None:
            return self._put(replace(seated, name=name)) if self.started_at is None else self
        if self.started_at is not None:
            raise CourseRefusal("race_started", "this race has already started", race=self.id)
        if len(self.racers) >= self.seats:
            raise CourseRefusal("race_full", f"all {self.seats} seats are taken", race=self.id)
        racer = CourseRacer(player, name, self.next_seat)
        return replace(self, racers=(*self.racers, racer), next_seat=self.next_seat + 1)

    def start(self, player: str, now: int) -> CourseRace:
        if player != self.host:
            raise CourseRefusal("not_host", "only the host can start the race", race=self.id)
        if self.started_at is not None:
            raise CourseRefusal("race_started", "this race has already started", race=self.id)
        return replace(self, started_at=now)

    # --- the holes --------------------------------------------------------------------------------------
    def _playing(self, player: str) -> CourseRacer:
        racer = self.seated(player)
        if self.started_at is None:
            raise CourseRefusal("race_not_started", "wait for the host to start", race=self.id)
        if racer.done:
            raise CourseRefusal("race_over", "your course in this race is over", race=self.id)
        return racer

    def dealt(self, player: str, n: int, game_id: str, now: int) -> CourseRace:
        """Hole ``n`` of ``player`` dealt as ``game_id`` (``hole_out_of_order`` unless it is the next)."""
        racer = self._playing(player)
        if n != racer.played + 1 or len(racer.games) != n - 1:
            raise CourseRefusal("hole_out_of_order", f"hole {n} is not the next to deal", hole=n)
        began = now if racer.began_at is None else racer.began_at
        return self._put(replace(racer, games=(*racer.games, game_id), began_at=began))

    def recorded(self, player: str, n: int, hole: Hole, at: int) -> CourseRace:
        """Hole ``n`` of ``player`` over with ``hole``'s strokes, its last move at ``at``; the ninth ends
        the racer's course there."""
        racer = self._playing(player)
        if n != racer.played + 1 or len(racer.games) < n or racer.games[n - 1] != hole.game:
            raise CourseRefusal("hole_out_of_order", f"hole {n} is not the one being played", hole=n)
        done = at if n == HOLES else None
        return self._put(replace(racer, holes=(*racer.holes, hole), finished_at=done))._maybe_end()

    def resign(self, player: str, now: int, stopped: Hole | None) -> CourseRace:
        """``player`` stops: ``stopped`` (the hole being played, with the cards it left) counts, and every
        hole not played counts a full tableau."""
        racer = self._playing(player)
        holes = racer.holes if stopped is None else (*racer.holes, stopped)
        racer = replace(racer, holes=holes, finished_at=now, resigned=True)
        return self._put(racer)._maybe_end()

    # --- the standing and what is shown ----------------------------------------------------------------
    def standing(self, now: int) -> list[CourseRacer]:
        def key(r: CourseRacer) -> tuple[int, ...]:
            if r.done:
                return (0, r.strokes, int(r.resigned), r.elapsed(now), r.seat)
            return (1, -r.played, r.strokes, r.seat)

        return sorted(self.racers, key=key)

    def view(self, player: str | None, now: int) -> dict[str, Any]:
        """What ``player`` (None: a watcher) is shown. Fair play: the course's and its holes' codes and the
        racers' hole games only once the race is over; before that, the caller's own current game alone."""
        over = self.ended_at is not None
        you = self.racer(player) if player is not None else None
        racers = []
        for place, r in enumerate(self.standing(now), start=1):
            card = r.card
            line: dict[str, Any] = {
                "seat": r.seat,
                "name": r.name,
                "host": r.player == self.host,
                "hole": r.hole if self.started_at is not None else None,
                "played": r.played,
                "holes": card,
                "total": sum(card),
                "to_par": sum(card) - HOLE_PAR * len(card),
                "done": r.done,
                "resigned": r.resigned,
                "elapsed": r.elapsed(now),
                "place": place if over else None,
            }
            if over:
                line["games"] = list(r.games)
            racers.append(line)
        game = None
        if you is not None and not you.done and len(you.games) > you.played:
            game = you.games[you.played]
        return {
            "id": self.id,
            "phase": self.phase().value,
            "seats": self.seats,
            "you": you.seat if you is not None else None,
            "host": you is not None and you.player == self.host,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "par": PAR,
            "hole_par": HOLE_PAR,
            "racers": racers,
            "game": game,
            "code": str(self.course) if over else None,
            "hole_codes": [str(c) for c in self.course.holes] if over else None,
        }

    # --- storage ----------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "course": str(self.course),
            "host": self.host,
            "created_at": self.created_at,
            "seats": self.seats,
            "racers": [r.to_json() for r in self.racers],
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "next_seat": self.next_seat,
            "rev": self.rev,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CourseRace:
        return cls(
            str(data["id"]),
            CourseCode.parse(data["course"]),
            str(data["host"]),
            int(data["created_at"]),
            int(data["seats"]),
            tuple(CourseRacer.from_json(r) for r in data["racers"]),
            data["started_at"],
            data["ended_at"],
            int(data["next_seat"]),
            int(data["rev"]),
        )

    # --- helpers ----------------------------------------------------------------------------------------
    def _put(self, racer: CourseRacer) -> CourseRace:
        return replace(self, racers=tuple(racer if r.seat == racer.seat else r for r in self.racers))

    def _maybe_end(self) -> CourseRace:
        if self.racers and all(r.done for r in self.racers):
            return replace(self, ended_at=max(r.finished_at or 0 for r in self.racers))
        return self
