"""A watcher's view of a race as a versioned stream on the game pipeline (``live/streams.py``).

A connection that watches a race (a watcher, or a racer whose game is over: ``done``) follows it in its
follow machine under the race id, with a ``RaceStream`` as the source of its snapshots. Every event of the
race's channel gets a number on this instance (``EventNumbers``: one after the other, the same for all the
instance's followers, so that a message made once for all of them carries it); the watcher's messages of an
event (``race_progress``, ``race_board``, ``race``, ``watchers``) carry it as ``v`` and go as one event of the
stream: dropped when the connection's send queue is full, and then, once it drains, replaced by one snapshot
(``race_watch``, after the racer's own ``race`` for ``done``) at the number it was read at, as a game's
missed diffs are. A ``resync`` {``game``: the race id, ``v``} asks for that snapshot unless ``v`` is current.
The numbers are this connection's instance's: a new connection starts with its ``watch``'s snapshot.
"""

from __future__ import annotations

from typing import Any

from golfrace.store.pubsub import Envelope
from golfrace.wire.protocol import ProtocolError

from . import race_views
from .service import RaceService


class EventNumbers:
    """The number of the last event of each race's channel delivered on this instance. The hub hands one
    event to a channel's followers in turn: the first numbers it, the others find the same number."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[str, tuple[Envelope | None, int]] = {}

    def number(self, event: Envelope, race_id: str) -> int:
        last = self._last.get(race_id)
        if last is not None and last[0] is event:
            return last[1]
        n = last[1] + 1 if last is not None else 1
        self._last[race_id] = (event, n)
        return n

    def missed(self, race_id: str) -> None:
        """Events of the race may have been lost on the way here (a pub/sub reconnect): they take a number,
        so that a snapshot read from now on is newer than what any follower was given."""
        self._last[race_id] = (None, self.current(race_id) + 1)

    def current(self, race_id: str) -> int:
        last = self._last.get(race_id)
        return last[1] if last is not None else 0

    def keep(self, races: set[str]) -> None:
        """Forget the races no longer followed here (a later follower starts from its own snapshot)."""
        for race_id in [r for r in self._last if r not in races]:
            del self._last[race_id]


class RaceStream:
    """Where a watcher's race stream is read from (``StreamSource``): the race as it is now."""

    __slots__ = ("numbers", "player", "race_id", "service")

    def __init__(self, service: RaceService, numbers: EventNumbers, race_id: str, player: str | None) -> None:
        self.service = service
        self.numbers = numbers
        self.race_id = race_id
        self.player = player

    async def snapshot(self, role: str) -> tuple[int, list[dict[str, Any]]]:
        """The number of the last event seen here, then the race read after it: ``race_watch`` (every board,
        as watchers see them), after the racer's own ``race`` view for ``done``. Events numbered later pass
        the version checks afterwards (each of their messages says what is, so one the read already saw
        does no harm)."""
        v = self.numbers.current(self.race_id)
        service = self.service
        found = await service.load_with_seats(self.race_id)
        if found is None:
            raise ProtocolError("race_not_found", f"no race {self.race_id!r}", ref="watch", race=self.race_id)
        race, seats = found
        watchers = await service.presence.watchers(self.race_id)
        now = service.clock()
        out = []
        if role == "done":
            out.append({"t": "race", **race_views.race_view(race, self.player, now, watchers, seats), "v": v})
        view = race_views.race_view(race, None, now, watchers, seats)
        out.append({"t": "race_watch", **view, "boards": race_views.boards(race, seats, now), "v": v})
        return v, out


def shown_again(race_id: str, event: Envelope, v: int) -> list[dict[str, Any]]:
    """The event's ``boards`` to a watcher again, whole: every racer playing has drawn as far (11.4)."""
    return [
        {"t": "race_board", "race": race_id, "board": board, "diff": None, "v": v}
        for board in event.message.get("boards") or ()
    ]
