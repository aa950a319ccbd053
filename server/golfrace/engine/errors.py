"""The engine's typed errors: one root, a stable machine code on each."""

from __future__ import annotations

from typing import Any


class GolfError(Exception):
    """Root of every error Golf Race raises on purpose. ``code`` is stable and machine-readable."""

    code = "golf_error"

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message)
        self.message = message
        self.params = params

    def __str__(self) -> str:
        return self.message


class ParseError(GolfError):
    """Text from outside (a card, a code, a move token) could not be read."""

    code = "parse_error"


class CardError(ParseError):
    code = "bad_card"


class CodeError(ParseError):
    """A game code is malformed; ``part`` says which part: prefix, rules, variant, length, character."""

    code = "bad_code"

    def __init__(self, message: str, part: str, **params: Any) -> None:
        super().__init__(message, part=part, **params)
        self.part = part


class TokenError(ParseError):
    code = "bad_move"


class StateError(ParseError):
    """A stored game (``Game.from_state``) is malformed or inconsistent."""

    code = "bad_state"


class Refusal(GolfError):
    """A well-formed action that the rules refuse. The game is unchanged.

    ``code`` is one of REFUSAL_CODES; the localized text comes from the catalogs (``refusal.<code>``).
    """

    def __init__(self, code: str, **params: Any) -> None:
        detail = ", ".join(f"{k}={v}" for k, v in params.items())
        super().__init__(f"refused: {code}" + (f" ({detail})" if detail else ""), **params)
        self.code = code


REFUSAL_CODES = (
    "not_adjacent",
    "blocked",
    "stock_empty",
    "nothing_to_undo",
    "game_over",
    "empty_column",
    "card_gone",
    "must_remove",
    "draw_final",
)
