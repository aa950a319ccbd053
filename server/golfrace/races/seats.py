"""What a race adds to a move of one of its seats (``moves.SeatRules``): the race gate its commit
checks, the race's move event its commit publishes (every racer's and watcher's progress and board), and
the race following the seat once the commit is stored.

The watchers' part of the event (the board, its diff, the other seats read for fair play's draw bound) is
made only for a race someone has watched (``Race.watched``, set by the first ``watch`` before it reads the
boards it answers with). That write bumps the race's revision, so a move described from the race as it was
before gets ``regate`` from its commit and is described again, with the boards: no move a watcher could
miss goes without them."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from golfrace.store.commit import Also, Gate
from golfrace.store.keys import gate_key, seat_of
from golfrace.store.pubsub import Hub
from golfrace.store.stored_game import Stored
from golfrace.wire.protocol import pack

from ..engine import Game, Status
from . import fair_play
from .race import Race
from .race_views import board, progress, watcher_diff
from .racer import Seat
from .service import RaceService
from .storage import race_channel

HIDDEN_FROM_OTHERS = ("t", "game", "code")
"""A seat's diff as the race's move event carries it: no envelope, and never the code."""


class SeatRules:
    def __init__(self, service: RaceService, hub: Hub) -> None:
        self.service = service
        self.hub = hub

    async def prepare(
        self, stored: Stored, after: Game | None, change: dict[str, Any] | None, now: int
    ) -> tuple[Gate, Also | None]:
        race_id, seat = _race_seat(stored)
        gate = Gate(gate_key(race_id), seat)
        if after is None or change is None:
            return gate, None
        race = await self.service.peek(race_id)
        racer = race.racer_at(seat) if race is not None else None
        if race is None or racer is None:
            return gate, None
        gate = Gate(gate.key, seat, race.rev)  # the commit checks that the race is still this one
        seats: dict[int, Seat] = {seat: Seat(after, stored.v + 1, now)}
        watched = race.watched  # nobody watches: the racers' progress is all the event carries (the module)
        shown: int | None = None
        was: int | None = None
        if watched and not fair_play.cards_public(race, now):
            shown = was = 0  # all there is to see of a daily attempt (counts) and of a board not drawn from
        if watched and not fair_play.cards_public(race, now) and _drawn_from(race, stored.game, after):
            # fair play 11.4: the others' draws bound what watchers see of this board
            others, _ = await self.service.storage.seats(race)
            before = {**others, seat: Seat(stored.game, stored.v)}
            seats = {**others, **seats}
            shown = race.observe(seats).shown_draws(seats, now)
            was = race.shown_draws(before, now)
        if after.status is not Status.PLAYING or len(seats) > 1:  # seats' ends (this one's, if it is one)
            race = race.observe(seats)
        racer = race.racer_at(seat) or racer
        made = progress(race, racer, seats, now)
        event: dict[str, Any] = {"k": "move", "seat": seat, "player": racer.player, "v": stored.v + 1}
        event["progress"] = made
        if watched:
            shared = {k: v for k, v in change.items() if k not in HIDDEN_FROM_OTHERS}
            event["diff"] = watcher_diff(race, shared, after, shown)
            event["board"] = board(race, racer, seats, now, shown, made)
            if shown is not None and was is not None and shown > was:  # other boards' draws may show now
                event["boards"] = [board(race, r, seats, now, shown) for r in race.racers if r.seat != seat]
        return gate, Also(race_channel(race_id), pack(event), event)

    def resent(self, stored: Stored) -> Awaitable[None] | None:
        race_id = _race_seat(stored)[0]
        self.hub.resume(race_channel(race_id))  # each local follower gets the race as it is now
        return self.service.touch_soon(race_id)

    def stale(self, stored: Stored) -> None:
        self.service.stale(_race_seat(stored)[0])

    def committed(self, stored: Stored, status_changed: bool) -> Awaitable[None] | None:
        if not status_changed:
            return None
        return self.service.touch_soon(_race_seat(stored)[0])


def _drawn_from(race: Race, before: Game, after: Game) -> bool:
    """Whether the other seats' draws decide what watchers see of this move (fair play 11.4, ``shown``): not
    for a daily attempt (counts only, whatever they drew), nor while this seat has drawn nothing and plays
    on (a board without a drawn card shows all, and the least any racer still playing has drawn stays 0).
    Every other move needs them: a tap after a draw others have not made is held back as the draw is."""
    if race.daily is not None:
        return False
    return after.drawn > 0 or before.drawn > 0 or after.status is not Status.PLAYING


def _race_seat(stored: Stored) -> tuple[str, int]:
    found = seat_of(stored.id)
    if found is None:  # meta names a race, so the id is a seat's
        raise ValueError(f"{stored.id!r} is not a race seat")
    return found
