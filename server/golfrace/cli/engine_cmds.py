"""``golfrace deal``, ``play`` and ``describe``: the engine from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..engine import Game, GameCode, GolfError, Refusal, deal, parse_moves, token
from ..engine.describe import describe
from ..engine.i18n import LOCALES, refusal_message, stuck_message


def register(sub: Any) -> list[str]:
    p = sub.add_parser("deal", help="print the cards a game code deals")
    p.add_argument("code")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=cmd_deal)

    p = sub.add_parser(
        "play", help="play in the terminal (without --moves), or apply moves to a deal and print the result"
    )
    p.add_argument("code", nargs="?", help="the deal (a random one when left out, in the terminal game)")
    p.add_argument("--moves", default=None, help="tokens: d draw, N column, N:R row R of column N, u undo")
    p.add_argument("--lang", default="en", choices=LOCALES)
    p.add_argument("--json", action="store_true")
    p.add_argument("--race", metavar="URL", help="join the race at this link (http://host:port/r/<race id>)")
    p.add_argument("--name", help="your name in the race")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("describe", help="the board description a screen reader reads")
    p.add_argument("code")
    p.add_argument("--moves", default="")
    p.add_argument("--lang", default="en", choices=LOCALES)
    p.set_defaults(func=cmd_describe)
    return ["deal", "play", "describe"]


def deal_json(code: GameCode) -> dict[str, Any]:
    """The ``deal --json`` object; keys in this order."""
    d = deal(code)
    return {
        "code": str(code),
        "rules": code.rules.value,
        "columns": [[c.code for c in col] for col in d.columns],
        "discard": d.discard.code if d.discard else None,
        "stock": [c.code for c in d.stock],
    }


def cmd_deal(args: argparse.Namespace) -> int:
    code = GameCode.parse(args.code)
    if args.json:
        print(json.dumps(deal_json(code), ensure_ascii=False))
        return 0
    d = deal(code)
    print(f"{code} ({code.rules.value})")
    for n, col in enumerate(d.columns, start=1):
        print(f"  {n}: {' '.join(c.code for c in col)}")
    discard = d.discard.code if d.discard else "--"
    print(f"  discard: {discard}   stock: {' '.join(c.code for c in d.stock)}")
    return 0


def play_moves(code_text: str, moves: str, lang: str) -> tuple[Game, list[dict[str, Any]]]:
    """Apply tokens in order; refused ones change nothing and are collected."""
    game = Game.new(GameCode.parse(code_text))
    refusals = []
    for index, action in enumerate(parse_moves(moves)):
        try:
            game = game.apply(action)
        except Refusal as refusal:
            refusals.append(
                {
                    "index": index,
                    "move": token(action),
                    "reason": refusal.code,
                    "message": refusal_message(refusal.code, lang),
                }
            )
    return game, refusals


def interactive(args: argparse.Namespace) -> bool:
    """The terminal game: no moves to apply, no JSON asked for, and a terminal to draw on (else, with a
    code, the board is printed as before)."""
    if args.race:
        return True
    if args.moves is not None or args.json:
        return False
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_play(args: argparse.Namespace) -> int:
    if interactive(args):
        return play_in_terminal(args)
    if args.code is None:
        from . import UsageError

        raise UsageError("golfrace play: give a code and --moves, or run it in a terminal")
    game, refusals = play_moves(args.code, args.moves or "", args.lang)
    if args.json:
        print(json.dumps(game_json(game, refusals), ensure_ascii=False))
        return 0
    print(render(game, args.lang))
    for r in refusals:
        print(f"refused move {r['index'] + 1} ({r['move']}): {r['message']}")
    return 0


def play_in_terminal(args: argparse.Namespace) -> int:
    from ..terminal.apps import RaceApp, SoloApp
    from ..terminal.links import race_link

    if args.race:
        ws_url, race_id = race_link(args.race)
        RaceApp(ws_url, race_id, args.lang, args.name).run()
    else:
        SoloApp(GameCode.parse(args.code) if args.code else None, args.lang).run()
    return 0


def game_json(game: Game, refusals: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "code": str(game.code),
        "rules": game.rules.value,
        "columns": [[c.code for c in col] for col in game.columns],
        "discard": game.discard.code if game.discard else None,
        "stock_count": game.stock_count,
        "score": game.score,
        "moves": game.moves,
        "status": game.status.value,
        "refusals": refusals,
    }


def render(game: Game, lang: str) -> str:
    """A readable board: columns side by side, top row first, the free cards marked."""
    lines = [f"{game.code} ({game.rules.value})  score {game.score}  moves {game.moves}"]
    lines.append("   " + "  ".join(f" {n} " for n in range(1, 8)))
    for row in range(5):
        cells = []
        for col in game.columns:
            if row < len(col):
                mark = "*" if row == len(col) - 1 else " "
                cells.append(f"{col[row].code}{mark}")
            else:
                cells.append("   ")
        lines.append("   " + "  ".join(f"{c:<3}" for c in cells))
    discard = game.discard.code if game.discard else "--"
    lines.append(f"discard {discard}   stock {game.stock_count}   {game.status.value}")
    if game.status.value == "stuck":
        lines.append(stuck_message(lang))
    return "\n".join(lines)


def cmd_describe(args: argparse.Namespace) -> int:
    game, _ = play_moves(args.code, args.moves, args.lang)
    print(describe(game, args.lang))
    return 0


__all__ = ["GolfError", "deal_json", "game_json", "play_moves", "register", "render"]
