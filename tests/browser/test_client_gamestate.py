"""The client's copy of a game (client_web/src/game/gamestate.js) against the engine, run by Node on the
server's own snapshots and diffs: after every move, undo included, its board, counts and ``can_undo`` are the
engine's (``wire.views.undo_open``: the one rule, no guess of the client's). Needs only `node`."""

from __future__ import annotations

import random
from typing import Any

from golfrace.engine import Game, GameCode, Undo
from golfrace.engine.actions import Action
from golfrace.wire import views

from .node import node_json

CODES = ["GO1-E-AAAAAAB", "GO1-C-QWERTYU", "GO1-E-ABCDEFG-SJ2D", "GO1-C-ZZZZZZZ-J1", "GO1-E-MNOPQRS-D"]
METAS: list[dict[str, Any]] = [
    {},
    {"race": "rabcdefghijk", "seat": 1, "undo": True},
    {"race": "rabcdefghijk", "seat": 2, "undo": False},
    {"sealed": 1},
]


def walk(game: Game, meta: dict[str, Any], rng: random.Random) -> list[tuple[Game, Game, Action]]:
    """A game played by chance, taking a move back now and then whenever the server would let it."""
    steps: list[tuple[Game, Game, Action]] = []
    for _ in range(80):
        choices: list[Action] = list(game.legal_actions())
        if views.undo_open(game, meta) and (not choices or rng.random() < 0.3):
            choices.append(Undo())
        if not choices:
            break
        action = rng.choice(choices)
        after = game.apply(action)
        steps.append((game, after, action))
        game = after
    return steps


def games() -> list[dict[str, Any]]:
    """Each case: the snapshot, the diffs, and what the engine says after each diff."""
    rng = random.Random(18)
    cases = []
    for code in CODES:
        for meta in METAS:
            for draws_final in (False, True):
                start = Game.new(GameCode.parse(code), draws_final=draws_final)
                snapshot = {"t": "snapshot", "game": "g", "v": 0, "role": "player"}
                snapshot["state"] = views.public_state(start, False, meta)
                steps = walk(start, meta, rng)
                diffs = [
                    views.diff("g", v, before, after, a, False, meta)
                    for v, (before, after, a) in enumerate(steps)
                ]
                expected = [views.public_state(after, False, meta) for _, after, _ in steps]
                cases.append({"snapshot": snapshot, "diffs": diffs, "expected": expected})
    return cases


def test_the_client_game_follows_the_engine_move_by_move() -> None:
    cases = games()
    assert sum(any(d["a"] == "undo" for d in c["diffs"]) for c in cases) > 10  # undos were played
    assert any(not e["can_undo"] for c in cases for e in c["expected"])
    script = (
        "import('./src/game/gamestate.js').then(m => {"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(c => {"
        "  let state = m.fromSnapshot(c.snapshot); const out = [];"
        "  for (const d of c.diffs) {"
        "    const r = m.applyDiff(state, d); state = r.state; out.push([r.change, state]);"
        "  }"
        "  return out;"
        "})));})"
    )
    out = node_json(script, cases)
    fields = ("columns", "discard", "stock_count", "score", "moves", "undos", "status", "can_undo")
    for case, shown in zip(cases, out, strict=True):
        for diff, expected, (change, state) in zip(case["diffs"], case["expected"], shown, strict=True):
            assert change == diff["a"]
            assert {f: state[f] for f in fields} == {f: expected[f] for f in fields}, (case["snapshot"], diff)
