"""A stored game's state as bytes: msgpack ``[1, code, heights, drawn, discard, moves, undos, history]``,
where ``history`` is 3 characters per undo step: the 0-based column a card left (``-`` for a draw) and the
discard showing before it (``--`` for none). It is decoded through ``Game.from_state`` (which validates); a
move extends the history text instead of re-serialising the whole game (``to_state`` + JSON cost ~30 us a
move). JSON states written before this format are still read. Pure: no Redis here (``store.py`` keeps them).
"""

from __future__ import annotations

import json
from typing import Any

import msgpack

from golfrace.engine import Game
from golfrace.engine.game import Step
from golfrace.wire.protocol import unpack


def pack_list(values: list[Any]) -> bytes:
    return msgpack.packb(values, use_bin_type=True)  # type: ignore[no-any-return]


STATE_FORMAT = 1
NO_CARD = "--"


def _step_text(step: Step) -> str:
    return ("-" if step.column is None else str(step.column)) + (
        NO_CARD if step.discard is None else step.discard.code
    )


def history_text(game: Game) -> str:
    return "".join([_step_text(step) for step in game.history])


def next_history(before: Game, before_hist: str, after: Game) -> str:
    """The history text of ``after``, one action after ``before``, from ``before``'s text ``before_hist``."""
    hist = before_hist if len(before_hist) == 3 * len(before.history) else history_text(before)
    keep = 3 * len(after.history)
    if after.moves > before.moves:  # tap or draw: one step pushed (the oldest may fall off)
        hist = (hist + _step_text(after.history[-1]))[-keep:] if keep else ""
    else:  # undo: the last step popped
        hist = hist[:keep]
    return hist if len(hist) == keep else history_text(after)


def encode_state(game: Game, hist: str, code: str = "") -> bytes:
    discard = game.discard
    return pack_list(
        [
            STATE_FORMAT,
            code or str(game.code),
            game.heights,
            game.drawn,
            None if discard is None else discard.code,
            game.moves,
            game.undos,
            hist if len(hist) == 3 * len(game.history) else history_text(game),
            *([True] if game.draws_final else []),  # ranked play: draws are final (engine Game.draws_final)
        ]
    )


def decode_state(raw: bytes) -> Game:
    if raw[:1] == b"{":  # the JSON of Game.to_state (older servers)
        return Game.from_state(json.loads(raw))
    _fmt, code, heights, drawn, discard, moves, undos, hist, *final = unpack(raw)
    history = [
        [
            -1 if hist[i] == "-" else int(hist[i]),
            None if hist[i + 1 : i + 3] == NO_CARD else hist[i + 1 : i + 3],
        ]
        for i in range(0, len(hist), 3)
    ]
    return Game.from_state(
        {
            "code": code,
            "heights": heights,
            "drawn": drawn,
            "discard": discard,
            "moves": moves,
            "undos": undos,
            "history": history,
            "draws_final": bool(final and final[0] is True),
        }
    )
