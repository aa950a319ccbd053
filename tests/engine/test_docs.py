"""The documents quote the engine: the rules pages' board descriptions and UI texts, dealing.md's vectors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from golfrace.engine import Game, GameCode, deal, parse_moves
from golfrace.engine.deal import BASE_ORDER
from golfrace.engine.describe import describe
from golfrace.engine.i18n import LOCALES, refusal_message, stuck_message

DOCS = Path(__file__).resolve().parents[2] / "docs"
TO_MOVE_35 = "d 5 2 d 7 4 d 5 5 6 6 1 6 d d 3 1 7 d 1 4 4 2 5 2 3 d 4 d 7 3 d d 2"  # as in test_seeds.py


def position(moves: str) -> Game:
    game = Game.new("GO1-E-AAAAAAB")
    for action in parse_moves(moves):
        game = game.apply(action)
    return game


@pytest.mark.parametrize("locale", LOCALES)
def test_rules_page_quotes_the_engine(locale: str) -> None:
    text = (DOCS / f"rules-{locale}.md").read_text("utf-8")
    lines = text.splitlines()
    for moves in ("", "d 5 2", TO_MOVE_35):
        assert describe(position(moves), locale) in lines  # each description is a paragraph of its own
    flowing = re.sub(r"\s+", " ", text)  # a quoted text may wrap across lines
    for code in ("not_adjacent", "blocked"):
        assert refusal_message(code, locale) in flowing
    assert stuck_message(locale) in flowing
    for score in ("270", "250", "150", "350"):
        assert score in text


def test_dealing_doc_vectors_match_the_engine() -> None:
    text = (DOCS / "dealing.md").read_text("utf-8")
    base = re.search(r"## 5\. The deck before the shuffle.*?```\n(.*?)```", text, re.S)
    assert base is not None and base.group(1).split() == [c.code for c in BASE_ORDER]
    blocks = re.findall(r"\*\*`(GO1-[^`]+)`\*\*[^\n]*\n\n```\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    for code, body in blocks:
        d = deal(GameCode.parse(code))
        rows = dict(line.split(":", 1) for line in body.strip().splitlines())
        for n, column in enumerate(d.columns, start=1):
            assert rows[f"column {n}"].split() == [c.code for c in column], code
        assert rows["discard"].strip() == (d.discard.code if d.discard else "(empty)"), code
        assert rows["stock"].split() == [c.code for c in d.stock], code
    # the empty-discard vector is quoted inline: its stock is the plain deal's discard, then the plain stock
    inline = re.search(r"\*\*`GO1-E-AAAAAAB-D`\*\*.*?the stock\s+`([^`]+)`", text, re.S)
    assert inline is not None
    assert inline.group(1).split() == [c.code for c in deal(GameCode.parse("GO1-E-AAAAAAB-D")).stock]
