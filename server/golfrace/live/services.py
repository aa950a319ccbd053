"""What every handler can reach: settings, clock, store, hub, tokens, limits and the ports that extensions
fill. One per app (built in ``http/app.py``).

The ports are typed fields, not a bag of services: ``identity`` (accounts), ``seats`` (the races' gate on a
race seat's move), ``streaks`` (the daily's streaks, for the profile). An extension keeps its own state with
``provide`` and finds it again with ``get`` by its class, so every lookup is typed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from golfrace.live.identity import Guests, Identity
from golfrace.live.tasks import Tasks
from golfrace.live.tokens import Tokens
from golfrace.settings import Settings
from golfrace.store.games import RedisClient, Store
from golfrace.store.pubsub import Hub

if TYPE_CHECKING:
    from golfrace.live.caps import ConnectionCaps
    from golfrace.live.dispatch import Dispatch
    from golfrace.live.limits import Limiter
    from golfrace.live.moves import SeatRules
    from golfrace.live.session import Session


Clock = Callable[[], int]
"""Server time in milliseconds since the epoch (``create_app(..., clock=...)``: tests move it at will)."""
T = TypeVar("T")


def wall_clock() -> int:
    return int(time.time() * 1000)


class Streaks(Protocol):
    """A player's daily streak, (current, best) in days: the daily extension's, for the account profile."""

    async def streak_of(self, player: str) -> tuple[int, int]: ...


@dataclass
class Context:
    settings: Settings
    redis: RedisClient
    store: Store
    hub: Hub
    tokens: Tokens
    dispatch: Dispatch
    """This app's message table (``dispatch.Dispatch``)."""
    limiter: Limiter
    """The per-network buckets that new identities, games and races take from (``limits.py``)."""
    caps: ConnectionCaps
    """This instance's connections per network and per player (``caps.py``)."""
    clock: Clock = wall_clock
    sessions: set[Session] = field(default_factory=set)
    tasks: Tasks = field(default_factory=Tasks)
    """The core's background tasks (what follows a Play game's end: ``moves._SoloFollow``), ended by the app's
    shutdown (``http/app.py``)."""
    identity: Identity = field(default_factory=Guests)
    """Who a connection or a request is: the accounts extension's, else every player is a guest."""
    seats: SeatRules | None = None
    """What a race adds to its seats' moves (the races extension's); None: no races."""
    streaks: Streaks | None = None
    """The daily's streaks (the races extension's); None: no daily."""
    _services: dict[type[Any], Any] = field(default_factory=dict)

    def provide(self, service: object) -> None:
        """Keep an extension's own state (one object of its class) for its handlers and routes."""
        self._services[type(service)] = service

    def get(self, kind: type[T]) -> T:
        """The object of ``kind`` an extension provided; LookupError when that extension is not installed."""
        found = self._services.get(kind)
        if not isinstance(found, kind):
            raise LookupError(f"{kind.__name__} is not installed in this app")
        return found

    def find(self, kind: type[T]) -> T | None:
        """As ``get``, None where the extension is not installed."""
        found = self._services.get(kind)
        return found if isinstance(found, kind) else None
