"""Typed errors of races, leaderboards, the daily challenge and replays; each carries a stable code."""

from __future__ import annotations

from ..engine.errors import GolfError


class RaceError(GolfError):
    """A race request the race's state refuses. ``code`` is one of RACE_ERROR_CODES."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message, **params)
        self.code = code


RACE_ERROR_CODES = (
    "race_not_found",  # no race with that id (or it expired)
    "race_full",  # every seat is taken
    "race_started",  # the race left the lobby; only its racers may come back
    "not_host",  # only the host may start the race
    "not_racer",  # the caller has no seat in this race
    "race_not_started",  # a move before the countdown has run out
    "race_over",  # the race has ended (time limit, or everyone finished)
    "game_ended",  # the caller's own game in this race is over (won, stuck, resigned)
    "undo_disabled",  # the race was created without undo
    "race_not_finished",  # a rematch asked for before the end
    "own_race",  # a racer may not watch their own race while it is on
    "bad_option",  # an option out of range (seats, time limit, name)
    "game_not_found",  # no record of that game (never existed, or its TTL ran out)
    "game_not_ended",  # the game is still being played; its record is public only after the end
    "code_hidden",  # the game is over, but its code is hidden while its race or its day is on
    "replay_mismatch",  # a stored move log does not replay to the stored result
    "bad_date",  # a daily date is not yyyy-mm-dd, or lies in the future
    "no_daily",  # no winnable daily code found within the retry budget
    "account_required",  # a ranked race seats accounts only (fair play 19.2)
)
