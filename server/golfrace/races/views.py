"""What each audience may see of a race, as plain wire data (pure functions).

- a racer: the race (others' progress, no card of theirs) and their own board;
- a watcher: every racer's board (tableau, discard, stock count, score) but never a face-down stock card;
- nobody: a random or daily code before their own game (or, for watchers, the race) has ended.
"""

from __future__ import annotations

from typing import Any

from ..engine import Action, Game, Status
from ..views import card_code, move_fields
from .race import Race, Racer


def progress(race: Race, racer: Racer, now: int) -> dict[str, Any]:
    """A racer's progress: numbers only, no card identity."""
    game = racer.game
    return {
        "seat": racer.seat,
        "player": racer.player,
        "name": racer.name,
        "removed": game.removed if game else 0,
        "score": racer.final_score,
        "moves": game.moves if game else 0,
        "undos": game.undos if game else 0,
        "stock": game.stock_count if game else None,
        "status": racer.status,
        "elapsed": race.elapsed(racer, now),
        "out_at": race.out_at(racer),
    }


def board(race: Race, racer: Racer, now: int) -> dict[str, Any]:
    """A racer's board for watchers: progress plus the visible cards (tableau and discard)."""
    out = progress(race, racer, now)
    game = racer.game
    out["columns"] = [[c.code for c in col] for col in game.columns] if game else None
    out["discard"] = card_code(game.discard) if game else None
    return out


def game_state(race: Race, racer: Racer, viewer: str | None) -> dict[str, Any] | None:
    """The racer's own board in the server issue's ``state`` shape (code null while secret)."""
    game = racer.game
    if game is None:
        return None
    return {
        "code": str(race.code) if race.code_visible_to(viewer) else None,
        "rules": race.code.rules.value,
        "variants": _variants(race),
        "columns": [[c.code for c in col] for col in game.columns],
        "discard": card_code(game.discard),
        "stock_count": game.stock_count,
        "score": racer.final_score,
        "moves": game.moves,
        "undos": game.undos,
        "status": racer.status,
        "can_undo": race.options.undo and not racer.done and game.can_undo,
    }


def diff(before: Game, after: Game, action: Action, status: str, score: int) -> dict[str, Any]:
    """What one move changed in a game: the fields of the server issue's ``diff`` (without envelope)."""
    out = move_fields(before, after, action)
    out.update(
        discard=card_code(after.discard),
        stock_count=after.stock_count,
        score=score,
        moves=after.moves,
        undos=after.undos,
        status=status,
    )
    return out


def race_view(race: Race, viewer: str | None, now: int, watchers: int = 0) -> dict[str, Any]:
    """The ``race`` message body for ``viewer`` (a player id, or None for an anonymous watcher)."""
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
        "racers": [progress(race, r, now) for r in race.racers],
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "ended_at": race.ended_at,
        "now": now,
        "you": {"seat": me.seat, "game": race.game_id(me)} if me else None,
        "watchers": watchers,
        "results": results(race) if finished else None,
        "par": race.par if finished else None,
        "rematch": race.rematch,
        "previous": race.previous,
    }


def results(race: Race) -> list[dict[str, Any]]:
    out = []
    for rank, r in enumerate(race.ranking(), start=1):
        end = r.finished_at if r.finished_at is not None else race.ended_at or 0
        out.append(
            {
                "rank": rank,
                "seat": r.seat,
                "player": r.player,
                "name": r.name,
                "status": r.status,
                "score": r.final_score,
                "removed": r.game.removed if r.game else 0,
                "moves": r.game.moves if r.game else 0,
                "undos": r.game.undos if r.game else 0,
                "elapsed": race.elapsed(r, end),
                "game": race.game_id(r),
            }
        )
    return out


def _variants(race: Race) -> dict[str, Any]:
    v = race.code.variants
    return {"strict": v.strict, "jokers": v.jokers, "empty_discard": v.empty_discard}


def is_over(game: Game) -> bool:
    return game.status is not Status.PLAYING
