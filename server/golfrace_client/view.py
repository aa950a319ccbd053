"""A game as the Python client sees it (``client.Client.views``): the snapshot's public state kept current by
the diffs that follow it, and the moves its rules allow from that public information alone (``legal``: the
bot chooses among them). A diff that does not follow the held version, or removes a card that is not a
column's free card, raises ``ViewError``: the server sent something the client cannot apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from golfrace.engine.cards import Card
from golfrace.engine.rules import Rules, Variants, fits


class ViewError(Exception):
    """The server sent a diff that does not apply to the view the client holds."""


@dataclass
class GameView:
    """A game as a client sees it: the snapshot state kept current by diffs."""

    game: str
    v: int
    role: str
    state: dict[str, Any]
    applied: list[dict[str, Any]] = field(default_factory=list)

    def apply(self, diff: dict[str, Any]) -> None:
        if diff["from"] != self.v or diff["v"] != self.v + 1:
            raise ViewError(f"{self.game}: diff {diff['from']}→{diff['v']} on version {self.v}")
        s = self.state
        if "removed" in diff:
            col = s["columns"][diff["removed"]["col"] - 1]
            if not col or col[-1] != diff["removed"]["card"]:
                raise ViewError(f"{self.game}: removed {diff['removed']} is not the free card of {col}")
            col.pop()
        if "restored" in diff:
            s["columns"][diff["restored"]["col"] - 1].append(diff["restored"]["card"])
        for key in ("discard", "stock_count", "score", "moves", "undos", "status", "can_undo"):
            if key in diff:
                s[key] = diff[key]
        if "code" in diff:
            s["code"] = diff["code"]
        self.v = diff["v"]
        self.applied.append(diff)

    @property
    def status(self) -> str:
        return str(self.state["status"])

    def legal(self) -> list[dict[str, Any]]:
        """The actions the rules allow now, from public information only."""
        s = self.state
        if s["status"] != "playing":
            return []
        rules = Rules(s["rules"])
        variants = Variants(**s["variants"])
        discard = Card.parse(s["discard"]) if s["discard"] else None
        taps = [
            {"a": "tap", "col": n}
            for n, col in enumerate(s["columns"], start=1)
            if col and fits(Card.parse(col[-1]), discard, rules, variants)
        ]
        if s["stock_count"] and not (variants.strict and taps):
            return [*taps, {"a": "draw"}]
        return taps
