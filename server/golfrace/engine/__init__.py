"""The pure rules engine of Golf: no I/O, no clock, no global randomness."""

from .actions import Action, Draw, Tap, Undo, parse_moves, parse_token, token
from .cards import Card
from .codes import GameCode, random_code, random_ranked_code
from .deal import Deal, deal
from .errors import CardError, CodeError, GolfError, ParseError, Refusal, StateError, TokenError
from .game import UNDO_LIMIT, Game, Status, can_undo, final_score, points, replay
from .rules import Rules, Variants

__all__ = [
    "UNDO_LIMIT",
    "Action",
    "Card",
    "CardError",
    "CodeError",
    "Deal",
    "Draw",
    "Game",
    "GameCode",
    "GolfError",
    "ParseError",
    "Refusal",
    "Rules",
    "StateError",
    "Status",
    "Tap",
    "TokenError",
    "Undo",
    "Variants",
    "can_undo",
    "deal",
    "final_score",
    "parse_moves",
    "parse_token",
    "points",
    "random_code",
    "random_ranked_code",
    "replay",
    "token",
]
