"""A racer of a race, and their seat game as the race reads it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from ..engine import Game
from ..engine.game import final_score


class Outcome(StrEnum):
    WON = "won"
    STUCK = "stuck"
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    ABANDONED = "abandoned"


STOPPED = frozenset({Outcome.RESIGNED, Outcome.TIMEOUT, Outcome.ABANDONED})
"""Outcomes the race decides (the game itself goes on): scored like a stuck game."""


@dataclass(frozen=True, slots=True)
class Seat:
    """A racer's stored game as the race reads it."""

    game: Game
    v: int = 0
    last_move: int | None = None
    """When its last action was applied (ms since the epoch), None before the first."""


BOT_PREFIX = "bot:"
"""A bot seat's player id is ``bot:<strength>:<random hex>`` (made by the pool, never by a token: the
server issues every human player id itself)."""


def bot_strength(player: str) -> int | None:
    """The strength of a bot seat's player, None for a human."""
    if not player.startswith(BOT_PREFIX):
        return None
    strength, _, _ = player[len(BOT_PREFIX) :].partition(":")
    return int(strength) if strength.isdigit() else None


Seats = Mapping[int, Seat]
NO_SEATS: Seats = {}


@dataclass(frozen=True, slots=True)
class Racer:
    player: str  # the public player id (never the secret token)
    name: str
    seat: int
    outcome: Outcome | None = None
    finished_at: int | None = None  # ms since the epoch
    rematch: bool = False
    net: str = ""
    """A tag of the network the racer joined from (``fair_play.net_tag``: the race's own hash, never the
    address), so that two seats of one network are told apart for review (fair play 19.2); empty: unknown."""

    @property
    def status(self) -> str:
        return self.outcome.value if self.outcome else "playing"

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def final_score(self, seat: Seat | None) -> int:
        if seat is None:
            return 0
        return final_score(seat.game, stopped=self.outcome in STOPPED)
