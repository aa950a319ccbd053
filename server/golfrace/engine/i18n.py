"""Localized texts from the catalogs (``catalogs/<locale>.json``, shared with the web client)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from .cards import Card
from .errors import GolfError

LOCALES = ("en", "ro", "ms", "he")
DEFAULT_LOCALE = "en"


class UnknownLocale(GolfError):
    code = "bad_locale"


@cache
def catalog(locale: str) -> dict[str, Any]:
    if locale not in LOCALES:
        raise UnknownLocale(f"unknown language {locale!r}; choose one of {', '.join(LOCALES)}", locale=locale)
    text = resources.files(__package__).joinpath("catalogs", f"{locale}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def card_name(card: Card, locale: str) -> str:
    names = catalog(locale)["card"]
    if card.is_joker:
        return str(names["joker"])
    rank, suit = card.code[0], card.code[1]
    return str(names["pattern"].format(rank=names["ranks"][rank], suit=names["suits"][suit]))


def plural_category(n: int, locale: str) -> str:
    """``zero``/``one``/``few``/``other``.

    Only Romanian separates ``few`` (2–19) from ``other`` (20 and up take "de": "20 de cărți").
    """
    if n == 0:
        return "zero"
    if n == 1:
        return "one"
    if locale == "ro" and not 1 <= n % 100 <= 19:
        return "other"
    return "few"


def refusal_message(code: str, locale: str) -> str:
    return str(catalog(locale)["refusal"][code])


def stuck_message(locale: str) -> str:
    return str(catalog(locale)["stuck"])
