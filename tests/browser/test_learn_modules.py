"""The learning modules agree with the engine, run by Node: the playable-cards aid's `fits`
(client_web/src/ui/playable.js) against engine/rules.py for every pair of cards, and the example deal
(client_web/src/game/example.js) against the engine's deal of GO1-E-AAAAAAB and the seeds' three moves."""

from __future__ import annotations

from typing import Any

from golfrace.engine import Card, Draw, Game, Rules, Tap
from golfrace.engine.rules import Variants, fits

from .node import node_json

CARDS = [r + s for r in "A23456789TJQK" for s in "CDHS"] + ["X1", "X2"]


def run(script: str, data: Any) -> Any:
    out = node_json(script, data, timeout=30)
    return out


def test_the_aid_fits_like_the_engine() -> None:
    cases = [
        (card, discard, rules.value, strict)
        for card in CARDS
        for discard in [*CARDS, None]
        for rules in Rules
        for strict in (False, True)
    ]
    got = run(
        "import('./src/ui/playable.js').then(m => {"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(([c, d, r, s]) => m.fits(c, d, r, {strict: s}))));})",
        cases,
    )
    for (card, discard, rules, strict), answer in zip(cases, got, strict=True):
        expected = fits(
            Card.parse(card), Card.parse(discard) if discard else None, Rules(rules), Variants(strict=strict)
        )
        assert answer == expected, (card, discard, rules, strict)


def test_the_example_deal_is_the_engines() -> None:
    states = run(
        "import('./src/game/example.js').then(m => {"
        "process.stdout.write(JSON.stringify([0, 1, 2, 3].map(n => m.exampleState(n))));})",
        None,
    )
    game = Game.new("GO1-E-AAAAAAB")
    for n, action in enumerate([None, Draw(), Tap(5), Tap(2)]):
        if action is not None:
            game = game.apply(action)
        shown = states[n]
        assert shown["columns"] == [[c.code for c in col] for col in game.columns], n
        assert shown["discard"] == game.discard.code, n
        assert (shown["stock_count"], shown["score"], shown["moves"]) == (
            game.stock_count,
            game.score,
            game.moves,
        )
