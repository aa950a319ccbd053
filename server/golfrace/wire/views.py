"""What clients may see of a game: the public state and the diff between two versions. Pure.

Face-down stock cards never appear here; a hidden code (random games) is shown only once the game is over,
when it no longer tells anything the player has not seen (won: final; stuck: the stock is all drawn). A
**sealed** game (``meta["sealed"]``: a hole of the weekend's daily course, dealt by the server) never shows
its code here: the code is one of its day's, public only once the day and its grace are over (the value is
that moment, in ms), and whoever knew it could deal the hole to a friend before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from golfrace.engine import Action, Draw, Game, Status, Tap, Undo
from golfrace.engine.game import can_undo

NO_META: Mapping[str, Any] = {}


def action_name(action: Action) -> str:
    return "tap" if isinstance(action, Tap) else "draw" if isinstance(action, Draw) else "undo"


def undo_open(game: Game, meta: Mapping[str, Any] = NO_META) -> bool:
    """``can_undo`` for a stored game: a race seat (``meta`` names its race) follows its race's undo option,
    and a racer's stuck game is final, as a sealed hole's (the daily course's)."""
    if "race" in meta:
        return can_undo(game, allowed=bool(meta.get("undo", True)), stuck_is_final=True)
    return can_undo(game, stuck_is_final="sealed" in meta)  # a sealed hole's stuck end is its result


def sealed(meta: Mapping[str, Any]) -> bool:
    """Whether the game's hidden code is never shown by its views (a race seat's, a sealed hole's)."""
    return "race" in meta or "sealed" in meta


def shown_code(game: Game, hidden: bool, meta: Mapping[str, Any] = NO_META) -> str | None:
    """A hidden code once the game is over; a race seat's never (fair play 11.2: the race shows it once every
    racer is done, see ``Race.code_visible_to``), nor a sealed hole's (its day shows it)."""
    if hidden and sealed(meta):
        return None
    return None if hidden and game.status is Status.PLAYING else str(game.code)


def public_state(game: Game, hidden: bool, meta: Mapping[str, Any] = NO_META) -> dict[str, Any]:
    return {
        "code": shown_code(game, hidden, meta),
        "rules": game.rules.value,
        "variants": game.variants.wire(),
        "columns": [[c.code for c in col] for col in game.columns],
        **pile_fields(game),
        "can_undo": undo_open(game, meta),
    }


def pile_fields(game: Game) -> dict[str, Any]:
    """What every view of a game carries besides its columns: the discard, the stock's count, the numbers
    and the status (a snapshot, a diff, a replay's step)."""
    return {
        "discard": card_code(game.discard),
        "stock_count": game.stock_count,
        "score": game.score,
        "moves": game.moves,
        "undos": game.undos,
        "status": game.status.value,
    }


def diff(
    game_id: str,
    version: int,
    before: Game,
    after: Game,
    action: Action,
    hidden: bool,
    meta: Mapping[str, Any] = NO_META,
) -> dict[str, Any]:
    """The diff from ``version`` to ``version + 1`` for ``action`` taking ``before`` to ``after``."""
    out: dict[str, Any] = {"t": "diff", "game": game_id, "v": version + 1, "from": version}
    out.update(move_fields(before, after, action))
    out.update(pile_fields(after), can_undo=undo_open(after, meta))
    ended = before.status is Status.PLAYING and after.status is not Status.PLAYING
    if hidden and not sealed(meta) and ended:  # a race seat's code: the race shows it (fair play 11.2)
        out["code"] = str(after.code)
    return out


def move_fields(before: Game, after: Game, action: Action) -> dict[str, Any]:
    """What one move did, for solo and race diffs alike: ``a`` and one of ``removed`` (the tapped column and
    the card now on the discard), ``drawn``, ``restored`` (the column an undo gave a card back to) or
    ``undrawn`` (an undone draw)."""
    out: dict[str, Any] = {"a": action_name(action)}
    if isinstance(action, Tap):
        out["removed"] = {"col": action.column, "card": card_code(after.discard)}
    elif isinstance(action, Draw):
        out["drawn"] = card_code(after.discard)
    elif isinstance(action, Undo):
        changed = [c for c in range(len(before.heights)) if before.heights[c] != after.heights[c]]
        if changed:
            out["restored"] = {"col": changed[0] + 1, "card": card_code(before.discard)}
        else:
            out["undrawn"] = True
    return out


def card_code(card: Any) -> str | None:
    """A card's wire form, or None for no card (an empty discard)."""
    return None if card is None else str(card.code)
