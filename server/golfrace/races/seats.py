"""What a race adds to a move of one of its seats (``handlers.SeatRules``): the race gate its commit
checks, the race's move event its commit publishes (every racer's and watcher's progress and board), and
the race following the seat once the commit is stored."""

from __future__ import annotations

from typing import Any

from ..engine import Game
from ..protocol import pack
from ..store import Gate, Stored, gate_key, seat_of
from .race_views import board, progress
from .racer import Seat
from .service import RaceService
from .storage import race_channel

HIDDEN_FROM_OTHERS = ("t", "game", "code")
"""A seat's diff as the race's move event carries it: no envelope, and never the code."""


class SeatRules:
    def __init__(self, service: RaceService) -> None:
        self.service = service

    async def prepare(
        self, stored: Stored, after: Game | None, change: dict[str, Any] | None, now: int
    ) -> tuple[Gate, tuple[str, bytes] | None]:
        race_id, seat = _race_seat(stored)
        gate = Gate(gate_key(race_id), seat)
        if after is None or change is None:
            return gate, None
        race = await self.service.peek(race_id)
        racer = race.racer_at(seat) if race is not None else None
        if race is None or racer is None:
            return gate, None
        seats = {seat: Seat(after, stored.v + 1, now)}
        race = race.observe(seats)  # this seat's own end, if the move is one
        racer = race.racer_at(seat) or racer
        event = {
            "k": "move",
            "seat": seat,
            "player": racer.player,
            "v": stored.v + 1,
            "diff": {k: v for k, v in change.items() if k not in HIDDEN_FROM_OTHERS},
            "progress": progress(race, racer, seats, now),
            "board": board(race, racer, seats, now),
        }
        return gate, (race_channel(race_id), pack(event))

    async def committed(self, stored: Stored, status_changed: bool) -> None:
        if status_changed:
            await self.service.touch(_race_seat(stored)[0])


def _race_seat(stored: Stored) -> tuple[str, int]:
    found = seat_of(stored.id)
    if found is None:  # meta names a race, so the id is a seat's
        raise ValueError(f"{stored.id!r} is not a race seat")
    return found
