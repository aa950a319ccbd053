"""Playing and judging Golf without seeing the stock. Pure: no I/O, no clock, randomness only from the
caller's ``random.Random``; imports only ``golfrace.engine``.

The stable API for bots (docs/bots.md):

- ``Visible.from_game(game)`` / ``Visible.from_state(state, seen=...)``: what a player can know;
- ``choose(visible, strength(level), rng) -> Tap | Draw``: a move, never depending on the hidden stock;
- ``move_delay_ms(rng, first=..., choices=...)``: a human pace.

``review`` judges a finished game's choices against what the visible cards and the true stock allowed.
"""

from .choose import STRENGTHS, Strength, choose, strength
from .evaluate import Value, evaluate, sample_stocks
from .pace import move_delay_ms
from .visible import ActionChoice, Visible

__all__ = [
    "STRENGTHS",
    "ActionChoice",
    "Strength",
    "Value",
    "Visible",
    "choose",
    "evaluate",
    "move_delay_ms",
    "sample_stocks",
    "strength",
]
