"""A game in progress: an immutable value; ``apply`` validates an action and returns the next game."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .actions import Action, Draw, Tap, Undo
from .cards import Card
from .codes import GameCode
from .deal import COLUMNS, ROWS, TABLEAU, Deal, deal
from .errors import ParseError, Refusal, StateError
from .rules import Rules, Variants, fits

UNDO_LIMIT = 100
POINTS_PER_CARD = 10


class Status(StrEnum):
    PLAYING = "playing"
    WON = "won"
    STUCK = "stuck"


def points(removed: int, stuck: bool) -> int:
    """+10 a removed card, 0 a draw; a stuck game loses 10 a card left on the tableau; never below 0.

    A win is therefore 350; stuck after r removals is max(0, 10r - 10(35 - r)): 31 -> 270, 17 -> 0.
    """
    penalty = (TABLEAU - removed) * POINTS_PER_CARD if stuck else 0
    return max(0, removed * POINTS_PER_CARD - penalty)


@dataclass(frozen=True, slots=True)
class Step:
    """What undo needs to take one action back: the column a card left (None for a draw) and the discard
    that was showing before the action."""

    column: int | None
    discard: Card | None


@dataclass(frozen=True, slots=True)
class Game:
    deal: Deal
    heights: tuple[int, ...]
    drawn: int
    discard: Card | None
    moves: int = 0
    undos: int = 0
    history: tuple[Step, ...] = ()
    draws_final: bool = False
    """Ranked play: undo never takes back a draw (it would show the stock and hide it again); a removal may
    still be undone. Kept in the stored state, so it holds for the whole game."""
    _status: Status | None = field(default=None, init=False, repr=False, compare=False)
    """``status`` computed once per value (a game is immutable; ``replace`` starts with None again)."""

    @classmethod
    def new(cls, code: GameCode | str, draws_final: bool = False) -> Game:
        """The game at the deal; ``draws_final`` for ranked play (see the field)."""
        if isinstance(code, str):
            code = GameCode.parse(code)
        d = deal(code)
        return cls(d, (ROWS,) * COLUMNS, 0, d.discard, draws_final=draws_final)

    # --- derived views -------------------------------------------------------------------------------
    @property
    def code(self) -> GameCode:
        return self.deal.code

    @property
    def rules(self) -> Rules:
        return self.deal.code.rules

    @property
    def variants(self) -> Variants:
        return self.deal.code.variants

    @property
    def columns(self) -> tuple[tuple[Card, ...], ...]:
        """The cards still on the tableau, each column top → bottom."""
        return tuple(col[:h] for col, h in zip(self.deal.columns, self.heights, strict=True))

    @property
    def stock_count(self) -> int:
        return len(self.deal.stock) - self.drawn

    @property
    def removed(self) -> int:
        return TABLEAU - sum(self.heights)

    def free_card(self, column: int) -> Card | None:
        """The free card of a 0-based column, or None when it is empty."""
        h = self.heights[column]
        return self.deal.columns[column][h - 1] if h else None

    def fits(self, card: Card) -> bool:
        return fits(card, self.discard, self.rules, self.variants)

    def playable_columns(self) -> list[int]:
        """0-based columns whose free card may be removed now."""
        out = []
        for c in range(COLUMNS):
            card = self.free_card(c)
            if card is not None and self.fits(card):
                out.append(c)
        return out

    @property
    def status(self) -> Status:
        status = self._status
        if status is None:
            if self.removed == TABLEAU:
                status = Status.WON
            elif self.stock_count == 0 and not self.playable_columns():
                status = Status.STUCK
            else:
                status = Status.PLAYING
            object.__setattr__(self, "_status", status)
        return status

    @property
    def score(self) -> int:
        """Derived from the position (so undo restores it exactly): see ``points``."""
        return points(self.removed, stuck=self.status is Status.STUCK)

    @property
    def can_undo(self) -> bool:
        """Whether ``Undo`` would be accepted now (the client greys its button otherwise)."""
        if not self.history or self.status is Status.WON:
            return False
        return not (self.draws_final and self.history[-1].column is None)

    def legal_actions(self) -> list[Action]:
        if self.status is not Status.PLAYING:
            return []
        actions: list[Action] = [Tap(c + 1) for c in self.playable_columns()]
        if self.stock_count and not (self.variants.strict and actions):
            actions.append(Draw())
        return actions

    # --- the one entry point -------------------------------------------------------------------------
    def apply(self, action: Action) -> Game:
        """The game after ``action``, or a Refusal (and this game unchanged)."""
        if isinstance(action, Tap):
            return self._tap(action)
        if isinstance(action, Draw):
            return self._draw()
        if isinstance(action, Undo):
            return self._undo()
        raise ParseError(f"not an action: {action!r}")

    def _tap(self, tap: Tap) -> Game:
        if self.status is not Status.PLAYING:
            raise Refusal("game_over", status=self.status.value)
        c = tap.column - 1
        height = self.heights[c]
        if height == 0:
            raise Refusal("empty_column", column=tap.column)
        if tap.row is not None and tap.row > height:
            raise Refusal("card_gone", column=tap.column, row=tap.row)
        if tap.row is not None and tap.row < height:
            raise Refusal("blocked", column=tap.column, row=tap.row)
        card = self.deal.columns[c][height - 1]
        if not self.fits(card):
            raise Refusal("not_adjacent", column=tap.column, card=card.code, discard=_code(self.discard))
        heights = (*self.heights[:c], height - 1, *self.heights[c + 1 :])
        return self._push(Step(c, self.discard), heights, self.drawn, card)

    def _draw(self) -> Game:
        if self.status is not Status.PLAYING:
            raise Refusal("game_over", status=self.status.value)
        if self.stock_count == 0:
            raise Refusal("stock_empty")
        if self.variants.strict and self.playable_columns():
            raise Refusal("must_remove")
        card = self.deal.stock[self.drawn]
        return self._push(Step(None, self.discard), self.heights, self.drawn + 1, card)

    def _push(self, step: Step, heights: tuple[int, ...], drawn: int, discard: Card) -> Game:
        history = ((*self.history, step))[-UNDO_LIMIT:]
        # the constructor, not dataclasses.replace: this is the hot path of every move (replace is ~3x slower)
        return Game(self.deal, heights, drawn, discard, self.moves + 1, self.undos, history, self.draws_final)

    def _undo(self) -> Game:
        if self.status is Status.WON:
            raise Refusal("game_over", status=self.status.value)
        if not self.history:
            raise Refusal("nothing_to_undo")
        step = self.history[-1]
        if step.column is None and self.draws_final:
            raise Refusal("draw_final")
        changes: dict[str, Any] = {"discard": step.discard, "history": self.history[:-1]}
        if step.column is None:
            changes["drawn"] = self.drawn - 1
        else:
            c = step.column
            changes["heights"] = (*self.heights[:c], self.heights[c] + 1, *self.heights[c + 1 :])
        return replace(self, undos=self.undos + 1, **changes)

    # --- persistence (plain data, for JSON/msgpack) --------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        """Plain data; ``draws_final`` appears only when true (a casual state is what it always was)."""
        state: dict[str, Any] = {
            "code": str(self.code),
            "heights": list(self.heights),
            "drawn": self.drawn,
            "discard": _code(self.discard),
            "moves": self.moves,
            "undos": self.undos,
            "history": [[-1 if s.column is None else s.column, _code(s.discard)] for s in self.history],
        }
        if self.draws_final:
            state["draws_final"] = True
        return state

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> Game:
        """The inverse of ``to_state``.

        Malformed or inconsistent data raises StateError here rather than a crash later.
        """
        try:
            draws_final = data.get("draws_final", False)
            if not isinstance(draws_final, bool):
                raise ValueError(f"draws_final is true or false, got {draws_final!r}")
            base = cls.new(GameCode.parse(data["code"]), draws_final)
            heights = tuple(_int(h, 0, ROWS) for h in data["heights"])
            drawn = _int(data["drawn"], 0, len(base.deal.stock))
            history = tuple(
                Step(None if int(col) < 0 else _int(col, 0, COLUMNS - 1), _card(disc))
                for col, disc in data["history"]
            )
            game = replace(
                base,
                heights=heights,
                drawn=drawn,
                discard=_card(data["discard"]),
                moves=_int(data["moves"], 0, None),
                undos=_int(data.get("undos", 0), 0, None),
                history=history,
            )
        except (KeyError, TypeError, ValueError, ParseError) as exc:
            raise StateError(f"not a stored game: {exc}") from None
        if len(heights) != COLUMNS or len(history) > UNDO_LIMIT:
            raise StateError("not a stored game: wrong number of columns or too long a history")
        # every step in the history must be undoable: its card has left its column, its draw happened
        draws = sum(1 for s in history if s.column is None)
        taken = [sum(1 for s in history if s.column == c) for c in range(COLUMNS)]
        if draws > drawn or any(t > ROWS - h for t, h in zip(taken, heights, strict=True)):
            raise StateError("not a stored game: the history does not match the position")
        return game


def _int(value: Any, low: int, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{value} is out of range")
    return value


def _code(card: Card | None) -> str | None:
    return None if card is None else card.code


def _card(text: str | None) -> Card | None:
    return None if text is None else Card.parse(text)


def replay(code: GameCode | str, actions: list[Action]) -> Game:
    """Apply ``actions`` in order from the deal; raises the first Refusal."""
    game = Game.new(code)
    for action in actions:
        game = game.apply(action)
    return game


def final_score(game: Game, stopped: bool = False) -> int:
    """A game's score as a result. A game that ended (won, stuck) or goes on scores as shown; one
    ``stopped`` before its end (resigned, abandoned, or out of time in a race) scores like a stuck game, 10
    less per card left: stopping early never beats playing on to a stuck end."""
    return points(game.removed, stuck=True) if stopped and game.status is Status.PLAYING else game.score


def can_undo(game: Game, allowed: bool = True, stuck_is_final: bool = False) -> bool:
    """Whether an undo would be applied: ``Game.can_undo`` (a step to take back, a game not won, not a draw
    in ranked play); never when undo is not ``allowed`` (a race without undo); a stuck game stays stuck
    when ``stuck_is_final`` (a racer's stuck game is their result)."""
    if not allowed or not game.can_undo:
        return False
    return not (stuck_is_final and game.status is Status.STUCK)
