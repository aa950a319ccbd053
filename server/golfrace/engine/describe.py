"""The board description a screen reader reads, in the rules page's format."""

from __future__ import annotations

from .cards import Card
from .game import Game
from .i18n import card_name, catalog, plural_category


def describe_board(
    columns: tuple[tuple[Card, ...], ...], discard: Card | None, stock_count: int, locale: str
) -> str:
    texts = catalog(locale)["describe"]
    stock = texts["stock"][plural_category(stock_count, locale)].format(n=stock_count)
    top = (
        texts["discard"].format(card=card_name(discard, locale))
        if discard is not None
        else texts["discard_empty"]
    )
    parts = []
    for n, column in enumerate(columns, start=1):
        if column:
            names = [card_name(c, locale) for c in column]
            parts.append(texts["column"].format(n=n, cards=", ".join(names), free=names[-1]))
        else:
            parts.append(texts["column_empty"].format(n=n))
    body = "; ".join(parts)
    return f"{stock}; {top}. {body[:1].upper()}{body[1:]}."


def describe(game: Game, locale: str) -> str:
    return describe_board(game.columns, game.discard, game.stock_count, locale)
