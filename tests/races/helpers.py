"""Test helpers: lines of play found by a small search (the tests do not depend on the solver)."""

from __future__ import annotations

import functools

from golfrace.engine import Draw, Game, GameCode, Status, Tap, parse_token, token
from golfrace.engine.rules import Rules
from golfrace.races.race import Race, Seat


def winning_line(code: str, budget: int = 100_000) -> list[str] | None:
    """Move tokens that win ``code`` (depth-first, memoised on the position), or None within ``budget``."""
    seen: set[tuple[tuple[int, ...], int, str | None]] = set()
    line: list[str] = []

    def dfs(game: Game) -> bool:
        if game.status is Status.WON:
            return True
        key = (game.heights, game.drawn, game.discard.code if game.discard else None)
        if key in seen or len(seen) > budget:
            return False
        seen.add(key)
        for action in game.legal_actions():
            line.append(token(action))
            if dfs(game.apply(action)):
                return True
            line.pop()
        return False

    return line if dfs(Game.new(code)) else None


def stuck_line(code: str) -> list[str]:
    """Draw whenever possible, then tap: ends stuck unless the deal is very generous."""
    game = Game.new(code)
    out = []
    while game.status is Status.PLAYING:
        actions = game.legal_actions()
        action = (
            Draw()
            if any(isinstance(a, Draw) for a in actions)
            else next(a for a in actions if isinstance(a, Tap))
        )
        out.append(token(action))
        game = game.apply(action)
    return out


def play(code: str, tokens: list[str]) -> Game:
    game = Game.new(code)
    for t in tokens:
        game = game.apply(parse_token(t))
    return game


@functools.cache
def won_deal() -> tuple[str, tuple[str, ...]]:
    """An easy code and a line that wins it."""
    for seed in range(3, 400):
        code = str(GameCode(Rules.EASY, seed))
        line = winning_line(code, budget=20_000)
        if line is not None:
            return code, tuple(line)
    raise AssertionError("no winnable code found")


@functools.cache
def stuck_deal() -> tuple[str, tuple[str, ...]]:
    for seed in range(1, 400):
        code = str(GameCode(Rules.EASY, seed))
        line = stuck_line(code)
        if play(code, line).status is Status.STUCK:
            return code, tuple(line)
    raise AssertionError("no stuck code found")


class Play:
    """The racers' seat games beside a pure race: what the game pipeline stores for each move (the game,
    its version, the time of its last move and its log), and the race settled from them after each move.
    The race gate's checks run in Redis (tests/races/test_wire.py); here every move is one the gate let in."""

    def __init__(self, race: Race) -> None:
        self.race = race
        self.seats: dict[int, Seat] = {}
        self.logs: dict[int, list[tuple[str, int]]] = {}

    def run(self, player: str, tokens: tuple[str, ...] | list[str], now: int) -> Race:
        racer = self.race.racer(player)
        assert racer is not None
        seat = self.seats.get(racer.seat) or Seat(Game.new(self.race.code, draws_final=self.race.ranked))
        for tok in tokens:
            seat = Seat(seat.game.apply(parse_token(tok)), seat.v + 1, now)
            self.logs.setdefault(racer.seat, []).append((tok, now))
        self.seats[racer.seat] = seat
        self.race = self.race.settle(now, self.seats)
        return self.race

    def settle(self, now: int) -> Race:
        self.race = self.race.settle(now, self.seats)
        return self.race

    def resign(self, player: str, now: int) -> Race:
        self.race = self.race.resign(player, now)
        return self.race

    def game(self, player: str) -> Game:
        racer = self.race.racer(player)
        assert racer is not None
        return self.seats[racer.seat].game

    def log(self, player: str) -> list[tuple[str, int]]:
        racer = self.race.racer(player)
        assert racer is not None
        return self.logs.get(racer.seat, [])
