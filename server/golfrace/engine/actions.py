"""Player actions and their text tokens.

``d`` draw, ``N`` tap column N, ``N:R`` tap row R of column N, ``u`` undo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .deal import COLUMNS, ROWS
from .errors import TokenError


@dataclass(frozen=True, slots=True)
class Tap:
    """Tap a card: ``column`` 1–7; ``row`` 1–5 from the top, or None for the column's free card."""

    column: int
    row: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.column <= COLUMNS:
            raise TokenError(f"column must be 1–{COLUMNS}, got {self.column}", column=self.column)
        if self.row is not None and not 1 <= self.row <= ROWS:
            raise TokenError(f"row must be 1–{ROWS}, got {self.row}", row=self.row)


@dataclass(frozen=True, slots=True)
class Draw:
    pass


@dataclass(frozen=True, slots=True)
class Undo:
    pass


Action = Tap | Draw | Undo

# ASCII digits only (str.isdigit accepts "²" and other digits int() rejects); two digits are enough to
# report "column must be 1–7" for a 9 or a 12 instead of "unknown move".
_TAP_RE = re.compile(r"([0-9]{1,2})(?::([0-9]{1,2}))?", re.ASCII)


def parse_token(token: str) -> Action:
    t = token.strip().lower()
    if t == "d":
        return Draw()
    if t == "u":
        return Undo()
    m = _TAP_RE.fullmatch(t)
    if m is None:
        raise TokenError(
            f"unknown move {token!r}: use d (draw), u (undo), N (column 1–7) or N:R (row R of column N)",
            token=token,
        )
    column, row = m.groups()
    return Tap(int(column), None if row is None else int(row))


def parse_moves(text: str) -> list[Action]:
    """Split on spaces and commas and parse each token."""
    return [parse_token(tok) for tok in text.replace(",", " ").split()]


def token(action: Action) -> str:
    if isinstance(action, Draw):
        return "d"
    if isinstance(action, Undo):
        return "u"
    return str(action.column) if action.row is None else f"{action.column}:{action.row}"
