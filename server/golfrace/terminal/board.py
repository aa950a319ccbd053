"""A board as terminal text: seven numbered columns (top card first, the free card bold), the stock's count
and the discard. Pure; the texts come from the catalogs (``ui.tui``, ``ui.faces``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from ..engine.i18n import catalog

SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED = {"D", "H"}
CELL = 5


def tui_text(key: str, lang: str, **params: Any) -> str:
    texts = catalog(lang)["ui"]["tui"]
    return str(texts[key]).format(**params)


def face(code: str, lang: str) -> str:
    """``7♠``, ``10♥``, ``K♣`` (the rank letters of ``ui.faces``), ``★`` for a joker."""
    if code.startswith("X"):
        return "★"
    rank = "10" if code[0] == "T" else catalog(lang)["ui"]["faces"].get(code[0], code[0])
    return f"{rank}{SUITS.get(code[1], code[1])}"


def board_text(
    columns: Sequence[Sequence[str]],
    discard: str | None,
    stock_count: int,
    lang: str,
    *,
    hidden: bool = False,
) -> Text:
    out = Text()
    out.append("".join(f"{n:^{CELL}}" for n in range(1, 8)) + "\n", style="dim")
    rows = max((len(c) for c in columns), default=0)
    for row in range(max(rows, 1)):
        for col in columns:
            if row < len(col):
                code = col[row]
                style = ("red" if code[1:2] in RED else "") + (" bold reverse" if row == len(col) - 1 else "")
                out.append(f"{face(code, lang):^{CELL}}", style=style.strip() or None)
            else:
                out.append(" " * CELL)
        out.append("\n")
    out.append("\n")
    # the stock and the discard a line each: no line of two directions in Hebrew
    out.append(tui_text("stock", lang, n=stock_count) + "\n")
    if discard is None:
        out.append(tui_text("discard_empty", lang) if not hidden else "")
    else:
        out.append(
            tui_text("discard", lang, card=face(discard, lang)), style="red" if discard[1:2] in RED else None
        )
    return out
