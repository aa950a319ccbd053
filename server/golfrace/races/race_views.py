"""What each audience may see of a race, as plain wire data (pure functions of the race and its seats).

- a racer: the race (others' progress, no card of theirs); their own board is their seat game (``open``);
- a watcher: every racer's board (tableau, discard, stock count, score) but never a face-down stock card,
  and a board with a drawn card only once every racer still playing has drawn as many: until then the
  board as it was at that draw (a card played onto it would tell its rank), and the counts (a daily
  attempt: counts only until its day's code may be shown), fair play 11.4;
- nobody, its racers included: a random code before the race has ended, a daily code before its attempt
  has ended and its day is over (11.2).
"""

from __future__ import annotations

from typing import Any, Literal

from golfrace.wire.ids import seat_id
from golfrace.wire.views import card_code

from ..engine import Game
from ..engine.deal import Deal
from . import fair_play
from .race import Race
from .race_data import code_text
from .racer import STOPPED, Racer, Seat, Seats, bot_strength


def progress(race: Race, racer: Racer, seats: Seats, now: int) -> dict[str, Any]:
    """A racer's progress: numbers only, no card identity."""
    seat = seats.get(racer.seat)
    game = seat.game if seat is not None else None
    line = {
        "seat": racer.seat,
        "player": racer.player,
        "name": racer.name,
        "removed": game.removed if game else 0,
        "score": racer.final_score(seat),
        "moves": game.moves if game else 0,
        "undos": game.undos if game else 0,
        "stock_count": game.stock_count if game else None,
        "status": racer.status,
        "elapsed": race.elapsed(racer, now),
        "out_at": race.out_at(racer, seats),
    }
    strength = bot_strength(racer.player)
    if strength is not None:  # a bot seat (quick races): shown as a bot, with its strength
        line["bot"] = strength
    return line


def board(
    race: Race,
    racer: Racer,
    seats: Seats,
    now: int,
    shown: int | Literal["?"] | None = "?",
    made: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A racer's board for watchers: progress (``made``: that racer's ``progress`` already made) plus the
    visible cards (tableau and discard). Fair play: a board whose player has drawn more cards than every
    racer still playing (``shown``, default ``race.shown_draws``) is ``hidden``: its discard null and its
    tableau as it was before the first of those draws (the cards played since, onto a card others have not
    drawn, would tell that card's rank); a daily attempt's cards not at all before its code may be shown
    (counts only). The counts (``progress``) are the board's own."""
    if shown == "?":
        shown = race.shown_draws(seats, now)
    out = dict(made) if made is not None else progress(race, racer, seats, now)
    seat: Seat | None = seats.get(racer.seat)
    game = seat.game if seat is not None else None
    out["columns"] = columns(game) if game else None
    out["discard"] = card_code(game.discard) if game else None
    out["hidden"] = False
    if game is not None and hides(race, game, shown):
        out["discard"], out["hidden"] = None, True
        out["columns"] = None if race.daily is not None else columns(game, shown)
    return out


def hides(race: Race, game: Game, shown: int | None) -> bool:
    """Whether watchers see ``game`` (a seat of ``race``) held back (``board``)."""
    return shown is not None and (race.daily is not None or game.drawn > shown)


def columns(game: Game, drawn: int | None = None) -> list[list[str]] | None:
    """The tableau as card codes, each column top → bottom: slices of the deal's codes, made once per deal
    (a board goes out with every move of a race). ``drawn``: as it was before the game's draw number
    ``drawn`` + 1 (its history taken back to there; None if the history does not reach back so far)."""
    heights = game.heights
    if drawn is not None and game.drawn > drawn:
        back, taken = list(heights), game.drawn
        for step in reversed(game.history):
            if taken <= drawn:
                break
            if step.column is None:
                taken -= 1
            else:
                back[step.column] += 1
        if taken > drawn:
            return None
        heights = tuple(back)
    deal = game.deal
    known = _DEAL_CODES.get(id(deal))
    if known is None or known[0] is not deal:
        if len(_DEAL_CODES) >= DEAL_CODES_MAX:
            _DEAL_CODES.clear()
        known = _DEAL_CODES[id(deal)] = (deal, [[c.code for c in col] for col in deal.columns])
    codes = known[1]
    return [codes[i][:h] for i, h in enumerate(heights)]


DEAL_CODES_MAX = 4096
"""Deals whose card codes ``columns`` keeps (by identity: a seat's games share their deal)."""
_DEAL_CODES: dict[int, tuple[Deal, list[list[str]]]] = {}


def watcher_diff(race: Race, diff: dict[str, Any], game: Game, shown: int | None) -> dict[str, Any]:
    """A seat's diff as watchers get it (``board``'s rules): a move of a hidden board names no card and no
    column (``drawn`` and ``discard`` null, no ``removed`` or ``restored``); its counts stay."""
    if not hides(race, game, shown):
        return diff
    out = {k: v for k, v in diff.items() if k not in ("removed", "restored")}
    for key in ("drawn", "discard"):
        if key in out:
            out[key] = None
    return out


def boards(race: Race, seats: Seats, now: int) -> list[dict[str, Any]]:
    shown = race.shown_draws(seats, now)
    return [board(race, r, seats, now, shown) for r in race.racers]


def revealed(before: Race, after: Race, seats: Seats, now: int) -> list[dict[str, Any]]:
    """The boards that show more to watchers after a change of the race than before it (the racer behind
    stopped, so the draws every racer still playing has reached are more): a watched race's only."""
    was, shown = before.shown_draws(seats, now), after.shown_draws(seats, now)
    if not after.watched or was is None or (shown is not None and shown <= was):
        return []
    more = [r for r in after.racers if (s := seats.get(r.seat)) is not None and s.game.drawn > was]
    return [board(after, r, seats, now, shown) for r in more]


def race_view(
    race: Race, viewer: str | None, now: int, watchers: int = 0, seats: Seats | None = None
) -> dict[str, Any]:
    """The ``race`` message body for ``viewer`` (a player id, or None for an anonymous watcher)."""
    shared = _anonymous_view(race, now, watchers, seats or {})
    return shared if viewer is None else _viewer_view(race, shared, viewer, now)


def _viewer_view(race: Race, shared: dict[str, Any], viewer: str, now: int) -> dict[str, Any]:
    """``shared`` (the anonymous view) as ``viewer`` sees it: only the code and ``you`` differ."""
    me = race.racer(viewer)
    return {
        **shared,
        "code": code_text(race.code) if race.code_visible_to(viewer, now) else None,
        "you": {"seat": me.seat, "game": race.game_id(me)} if me else None,
    }


def _anonymous_view(race: Race, now: int, watchers: int, seats: Seats) -> dict[str, Any]:
    finished = race.ended_at is not None
    return {
        "race": race.id,
        "phase": race.phase(now).value,
        "code": code_text(race.code) if race.code_visible_to(None, now) else None,
        "rules": race.code.rules.value,
        "variants": _variants(race),
        "typed": race.typed,
        "ranked": race.ranked,
        "daily": race.daily,
        "guest_deal": race.guest_deal,
        "pool": race.pool,
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
        "you": None,
        "watchers": watchers,
        "results": results(race, seats) if finished else None,
        "par": race.par if finished else None,
        "rematch": race.rematch,
        "previous": race.previous,
    }


def as_racer(shared: dict[str, Any], player: str) -> dict[str, Any] | None:
    """The watchers' ``race`` body (``race_view`` for None) as ``player`` sees it, made from the body alone:
    ``race_view(race, player, …)`` for a racer (only ``you`` differs: fair play shows the code to all or to
    none), None for someone not racing in it. What a race event carries (one view, not one per racer)."""
    for line in shared.get("racers") or ():
        if line.get("player") == player:
            seat = line["seat"]
            return {**shared, "you": {"seat": seat, "game": seat_id(shared["race"], seat)}}
    return None


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
                "flags": fair_play.flags(race, r, seats),  # fair play 19.2: for review
            }
        )
        if (strength := bot_strength(r.player)) is not None:
            out[-1]["bot"] = strength
    return out


def _variants(race: Race) -> dict[str, Any]:
    return race.code.variants.wire()
