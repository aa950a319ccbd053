"""What each audience may see of a race, as plain wire data (pure functions of the race and its seats).

- a racer: the race (others' progress, no card of theirs); their own board is their seat game (``open``);
- a watcher: every racer's board (tableau, discard, stock count, score) but never a face-down stock card;
- nobody: a random or daily code before their own game (or, for watchers, the race) has ended.
"""

from __future__ import annotations

from typing import Any

from ..views import card_code
from .race import Race
from .racer import STOPPED, Racer, Seat, Seats


def progress(race: Race, racer: Racer, seats: Seats, now: int) -> dict[str, Any]:
    """A racer's progress: numbers only, no card identity."""
    seat = seats.get(racer.seat)
    game = seat.game if seat is not None else None
    return {
        "seat": racer.seat,
        "player": racer.player,
        "name": racer.name,
        "removed": game.removed if game else 0,
        "score": racer.final_score(seat),
        "moves": game.moves if game else 0,
        "undos": game.undos if game else 0,
        "stock": game.stock_count if game else None,
        "status": racer.status,
        "elapsed": race.elapsed(racer, now),
        "out_at": race.out_at(racer, seats),
    }


def board(race: Race, racer: Racer, seats: Seats, now: int) -> dict[str, Any]:
    """A racer's board for watchers: progress plus the visible cards (tableau and discard)."""
    out = progress(race, racer, seats, now)
    seat: Seat | None = seats.get(racer.seat)
    game = seat.game if seat is not None else None
    out["columns"] = [[c.code for c in col] for col in game.columns] if game else None
    out["discard"] = card_code(game.discard) if game else None
    return out


def boards(race: Race, seats: Seats, now: int) -> list[dict[str, Any]]:
    return [board(race, r, seats, now) for r in race.racers]


def race_view(
    race: Race, viewer: str | None, now: int, watchers: int = 0, seats: Seats | None = None
) -> dict[str, Any]:
    """The ``race`` message body for ``viewer`` (a player id, or None for an anonymous watcher)."""
    seats = seats or {}
    me = race.racer(viewer) if viewer is not None else None
    finished = race.ended_at is not None
    return {
        "race": race.id,
        "phase": race.phase(now).value,
        "code": str(race.code) if race.code_visible_to(viewer, now) else None,
        "rules": race.code.rules.value,
        "variants": _variants(race),
        "typed": race.typed,
        "ranked": race.ranked,
        "daily": race.daily,
        "options": {
            "undo": race.options.undo,
            "limit": race.options.time_limit_s,
            "seats": race.options.seats,
        },
        "host": race.host,
        "racers": [progress(race, r, seats, now) for r in race.racers],
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "ended_at": race.ended_at,
        "now": now,
        "you": {"seat": me.seat, "game": race.game_id(me)} if me else None,
        "watchers": watchers,
        "results": results(race, seats) if finished else None,
        "par": race.par if finished else None,
        "rematch": race.rematch,
        "previous": race.previous,
    }


def all_views(race: Race, now: int, watchers: int, seats: Seats) -> dict[str, Any]:
    """Every audience's ``race`` body: each racer's by player id, the watchers' under ``""``."""
    out = {r.player: race_view(race, r.player, now, watchers, seats) for r in race.racers}
    out[""] = race_view(race, None, now, watchers, seats)
    return out


def results(race: Race, seats: Seats) -> list[dict[str, Any]]:
    out = []
    for rank, r in enumerate(race.ranking(seats), start=1):
        end = r.finished_at if r.finished_at is not None else race.ended_at or 0
        seat = seats.get(r.seat)
        game = seat.game if seat is not None else None
        out.append(
            {
                "rank": rank,
                "seat": r.seat,
                "player": r.player,
                "name": r.name,
                "status": r.status,
                "score": r.final_score(seat),
                "removed": game.removed if game else 0,
                "moves": game.moves if game else 0,
                "undos": game.undos if game else 0,
                "elapsed": race.elapsed(r, end),
                "game": race.game_id(r),
                "scored_as_stuck": r.status == "stuck" or r.outcome in STOPPED,
            }
        )
    return out


def _variants(race: Race) -> dict[str, Any]:
    v = race.code.variants
    return {"strict": v.strict, "jokers": v.jokers, "empty_discard": v.empty_discard}
