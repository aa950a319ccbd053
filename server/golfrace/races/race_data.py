"""A race as stored: plain JSON-ready data (``race_to_data``/``race_from_data``), read back exactly."""

from __future__ import annotations

import functools
from typing import Any

from golfrace.settings.races import DEFAULT_SETTINGS

from ..engine import GameCode
from .race import Race, RaceOptions
from .racer import Outcome, Racer


@functools.lru_cache(maxsize=4096)
def code_text(code: GameCode) -> str:
    """``str(code)``, kept for the codes of the races seen lately (every write and view spells it)."""
    return str(code)


def race_to_data(self: Race) -> dict[str, Any]:
    return {
        "id": self.id,
        "code": code_text(self.code),
        "options": [self.options.undo, self.options.time_limit_s, self.options.seats],
        "host": self.host,
        "created_at": self.created_at,
        "typed": self.typed,
        "ranked": self.ranked,
        "daily": self.daily,
        "guest_deal": self.guest_deal,
        "starts_at": self.starts_at,
        "ended_at": self.ended_at,
        "par": self.par,
        "rematch": self.rematch,
        "previous": self.previous,
        "next_seat": self.next_seat,
        "idle_s": self.idle_s,
        "draw_lead": self.draw_lead,
        "grace_s": self.grace_s,
        "finalized": self.finalized,
        "watched": self.watched,
        "pool": self.pool,
        "rev": self.rev,
        "racers": [
            {
                "player": r.player,
                "name": r.name,
                "seat": r.seat,
                "outcome": r.outcome.value if r.outcome else None,
                "finished_at": r.finished_at,
                "rematch": r.rematch,
                "net": r.net,
            }
            for r in self.racers
        ],
    }


def race_from_data(data: dict[str, Any]) -> Race:
    undo, limit, seats = data["options"]
    racers = tuple(
        Racer(
            r["player"],
            r["name"],
            int(r["seat"]),
            Outcome(r["outcome"]) if r["outcome"] else None,
            r["finished_at"],
            bool(r["rematch"]),
            str(r.get("net", "")),
        )
        for r in data["racers"]
    )
    return Race(
        data["id"],
        GameCode.parse(data["code"]),
        RaceOptions(bool(undo), int(limit), int(seats)),
        data["host"],
        int(data["created_at"]),
        racers,
        typed=bool(data["typed"]),
        ranked=bool(data["ranked"]),
        daily=data["daily"],
        guest_deal=bool(data.get("guest_deal", False)),
        starts_at=data["starts_at"],
        ended_at=data["ended_at"],
        par=data["par"],
        rematch=data["rematch"],
        previous=data["previous"],
        next_seat=int(data["next_seat"]),
        idle_s=int(data.get("idle_s", DEFAULT_SETTINGS.idle_forfeit_s)),
        draw_lead=int(data.get("draw_lead", DEFAULT_SETTINGS.review_draw_lead)),
        grace_s=int(data.get("grace_s", DEFAULT_SETTINGS.daily_grace_s)),
        finalized=bool(data.get("finalized", False)),
        watched=bool(data.get("watched", False)),
        pool=bool(data.get("pool", False)),
        rev=int(data.get("rev", 0)),
    )
