"""What a player can know at one point of a game: the face-up tableau, the discard, how many cards the stock
holds, the cards seen so far, and the rules. Never the order of the stock.

Golf shows every tableau card face up, so the only thing hidden is the order of the stock (and, for a player
who does not count cards, which cards are in it). ``unseen`` is the set the stock is drawn from: every card
of the deck not seen yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import Card, Draw, Game, Rules, Tap, Variants
from ..engine.cards import jokers, standard_deck
from ..engine.errors import GolfError, StateError
from ..engine.rules import fits

ActionChoice = Tap | Draw


@dataclass(frozen=True, slots=True)
class Visible:
    """``columns``: the cards still on the tableau, each column top → bottom (the last is free).
    ``seen``: every card the player has seen (on the table, removed, drawn), so not in the stock."""

    rules: Rules
    variants: Variants
    columns: tuple[tuple[Card, ...], ...]
    discard: Card | None
    stock_count: int
    seen: frozenset[Card]

    @classmethod
    def from_game(cls, game: Game) -> Visible:
        """What the player of ``game`` has seen: the dealt tableau, the first discard and the cards drawn so
        far. Reads ``deal.stock`` only up to ``game.drawn``, never the undealt order."""
        d = game.deal
        seen = {card for col in d.columns for card in col} | set(d.stock[: game.drawn])
        if d.discard is not None:
            seen.add(d.discard)
        return cls(game.rules, game.variants, game.columns, game.discard, game.stock_count, frozenset(seen))

    @classmethod
    def from_state(cls, state: Mapping[str, Any], seen: Iterable[str] = ()) -> Visible:
        """From the public state a client receives (``columns``, ``discard``, ``stock_count``, ``rules``,
        ``variants``). It does not list the cards removed or drawn before: pass them as ``seen`` (card codes
        a client collected from the diffs); without them the stock is sampled from every card not in view."""
        try:
            columns = tuple(tuple(Card.parse(c) for c in col) for col in state["columns"])
            discard = None if state["discard"] is None else Card.parse(state["discard"])
            v = state.get("variants") or {}
            variants = Variants.from_wire(v)
            stock = state["stock_count"]
            if isinstance(stock, bool) or not isinstance(stock, int) or stock < 0:
                raise ValueError(f"stock_count must be a count, got {stock!r}")
            known = {card for col in columns for card in col} | {Card.parse(c) for c in seen}
            if discard is not None:
                known.add(discard)
            visible = cls(Rules(state["rules"]), variants, columns, discard, stock, frozenset(known))
        except (KeyError, TypeError, ValueError, GolfError) as exc:
            raise StateError(f"not a public game state: {exc}") from None
        if len(visible.unseen) < stock:
            raise StateError("not a public game state: more stock cards than cards not in view")
        return visible

    def forgetful(self) -> Visible:
        """The same table seen by a player who does not count cards: only what is in view now is known."""
        now = {card for col in self.columns for card in col}
        if self.discard is not None:
            now.add(self.discard)
        return Visible(
            self.rules, self.variants, self.columns, self.discard, self.stock_count, frozenset(now)
        )

    @property
    def deck(self) -> tuple[Card, ...]:
        return standard_deck() + jokers(self.variants.jokers)

    @property
    def unseen(self) -> tuple[Card, ...]:
        """The cards the stock may hold, in a fixed order (so sampling depends only on what is visible)."""
        return tuple(sorted(c for c in self.deck if c not in self.seen))

    @property
    def heights(self) -> tuple[int, ...]:
        return tuple(len(col) for col in self.columns)

    def legal(self) -> list[ActionChoice]:
        """The moves the rules allow, ordered as ``Game.legal_actions`` does: taps by column, then draw."""
        if self.stock_count == 0 and not self._playable():
            return []
        if not any(self.columns):
            return []
        out: list[ActionChoice] = [Tap(c + 1) for c in self._playable()]
        if self.stock_count and not (self.variants.strict and out):
            out.append(Draw())
        return out

    def _playable(self) -> list[int]:
        return [
            c
            for c, col in enumerate(self.columns)
            if col and fits(col[-1], self.discard, self.rules, self.variants)
        ]
