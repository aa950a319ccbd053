"""A hole's result, from the server's own stored game (a client's numbers never count).

A hole is an ordinary solo game: the page deals it by its code (an open course), or the server deals it
sealed (the daily course). ``hole_result`` checks that the stored game is the caller's, is the deal of that
hole and is over, and reads the strokes (``engine.course.strokes``), the moves and the time from it: the
time runs from the game's creation to its last move (its log's last stamp). Fair play: the hole's move times
go through the ranked boards' timing check (``races.replay.review_reason``, the same ``Checks``): a hole no
human plays this fast carries ``review: "too_fast"``, and a course with such a hole goes on no board (it is
held in the board's review list, ``service.py``). Pure over what the store read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from golfrace.races.replay import DEFAULT_CHECKS, Checks, review_reason, solo_record
from golfrace.store.stored_game import Stored

from ..engine import GameCode, Status
from ..engine.course import strokes
from .errors import CourseRefusal


@dataclass(frozen=True, slots=True)
class Hole:
    game: str
    strokes: int
    elapsed: int
    moves: int
    hinted: bool = False
    review: str | None = None
    """``too_fast`` when the hole's move times break a human floor (``races.replay.timing_faults``)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: Any) -> Hole:
        data = json.loads(raw)
        return cls(
            str(data["game"]),
            int(data["strokes"]),
            int(data["elapsed"]),
            int(data["moves"]),
            bool(data["hinted"]),
            data.get("review"),
        )


def hole_result(
    stored: Stored | None,
    game_id: str,
    player: str,
    code: GameCode,
    log: list[str],
    hinted: bool,
    checks: Checks = DEFAULT_CHECKS,
) -> Hole:
    """The result of hole ``code`` played as ``game_id`` by ``player``, or a ``CourseRefusal``:
    ``game_not_found`` (no such solo game: forged, a race seat, expired), ``not_player``, ``wrong_hole``
    (the game is another deal), ``hole_not_over`` (still playing)."""
    if stored is None or "race" in stored.meta:
        raise CourseRefusal(
            "game_not_found", "no such solo game (never existed, or it expired)", game=game_id
        )
    if stored.owner != player:
        raise CourseRefusal("not_player", "this game belongs to another player", game=game_id)
    if stored.game.code != code:
        raise CourseRefusal("wrong_hole", "this game is not that hole's deal", game=game_id)
    if stored.game.status is Status.PLAYING:
        raise CourseRefusal("hole_not_over", "this hole is still being played", game=game_id)
    record = solo_record(stored, log)
    review = review_reason(record, checks)
    elapsed = max(0, record.finished_at - stored.created)
    return Hole(game_id, strokes(stored.game), elapsed, stored.game.moves, hinted, review)
