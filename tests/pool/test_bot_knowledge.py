"""The command line's bot (``golfrace bot --strength N``) knows what a server bot seat knows: counting the
cards it saw go by in the public states it was sent, it has the same ``Visible`` as ``Visible.from_game``, so
it chooses as the server's bots do (docs/bots.md)."""

from __future__ import annotations

import random

from golfrace.engine import Game, GameCode, Rules, Status
from golfrace.pool.policy import choose_bot_move
from golfrace.strategy import Visible
from golfrace.wire.views import public_state
from golfrace_client import pool_bot
from golfrace_client.view import GameView


def test_the_command_line_bot_counts_cards_as_a_server_bot_seat_does() -> None:
    for rules in Rules:
        game = Game.new(GameCode(rules, 2_101, long=True))
        seen: set[str] = set()
        steps = 0
        while game.status is Status.PLAYING:
            state = public_state(game, hidden=True)
            seen |= pool_bot.in_view(state)
            assert Visible.from_state(state, seen=seen) == Visible.from_game(game)
            if steps % 8 == 0:  # the same choice, from the same rng, as the server's bot seat
                view = GameView("g", game.moves, "player", state)
                move = pool_bot.choose(view, 4, random.Random(steps), seen)
                action = choose_bot_move(game, 4, random.Random(steps))
                assert move == (
                    {"a": "tap", "col": action.column} if hasattr(action, "column") else {"a": "draw"}
                )
            game = game.apply(game.legal_actions()[-1])  # draws while it can: many cards go by
            steps += 1
        assert steps > 10
