"""What fair play lets anyone see of a race, and what it flags for review, as pure reads of the race:

- the code (11.2): ``code_visible_to``, ``cards_public``;
- the drawn cards of the boards (11.4): ``shown_draws`` (what ``race_views`` hides from watchers);
- a ranked result's review flags (19.2): ``flags``, and the racer's network tag they compare (``net_tag``).

``Race.code_visible_to`` and ``Race.shown_draws`` read these.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from .daily import code_public_at
from .racer import Outcome, Racer, Seats

if TYPE_CHECKING:
    from .race import Race


def code_visible_to(race: Race, player: str | None, now: int | None = None) -> bool:
    """Fair play (11.2): a typed code is no secret; any other code is shown to nobody, its own racers
    included (a finished or resigned racer could pass it on), until every racer is done; a daily code
    until its attempt has ended and no attempt of its day can count any more: the day is over and its
    grace too (``now`` given and past it; every attempt of a day deals the same code)."""
    if race.typed:
        return True
    if race.daily is not None:
        return (
            race.ended_at is not None and now is not None and now >= code_public_at(race.daily, race.grace_s)
        )
    return race.ended_at is not None


def cards_public(race: Race, now: int) -> bool:
    """Every card of every board may be shown to anyone: the code is public (``code_visible_to``)."""
    return code_visible_to(race, None, now)


def shown_draws(race: Race, seats: Seats, now: int) -> int | None:
    """Fair play (11.4): how many drawn cards of any board someone other than its player may see (the
    racers share one stock): as many as every racer still playing has drawn (one whose seat is not in
    ``seats`` has drawn none); None: all of them. A daily attempt shows none until its code may be
    shown."""
    if cards_public(race, now):
        return None
    if race.daily is not None:
        return 0
    drawn = [seats[r.seat].game.drawn if r.seat in seats else 0 for r in race.racers if not r.done]
    return min(drawn) if drawn else 0


def net_tag(race_id: str, net: str) -> str:
    """The racer field ``net`` for a client network: a hash salted with this race's id, so that a stored
    race names no address and two races' tags cannot be matched."""
    return hashlib.sha256(f"{race_id}|{net}".encode()).hexdigest()[:12] if net else ""


def flags(race: Race, racer: Racer, seats: Seats) -> list[str]:
    """What ``racer``'s result in a ranked race carries for review (fair play 19.2): ``draw_scout``, it
    ended without winning ``draw_lead`` or more cards drawn ahead of its removals (the shared stock read
    by drawing it, and then quit); ``same_network``, another seat joined from the same network."""
    if not race.ranked:
        return []
    out = []
    seat = seats.get(racer.seat)
    game = seat.game if seat is not None else None
    lost = racer.done and racer.outcome is not Outcome.WON
    if lost and game is not None and 0 < race.draw_lead <= game.drawn - game.removed:
        out.append("draw_scout")
    if racer.net and any(r.net == racer.net for r in race.racers if r.seat != racer.seat):
        out.append("same_network")
    return out
