"""The follow machine's data (``follow.py``): what it keeps for each game a connection follows (``Follow``:
the role, the version the client holds, a fill's progress, the diffs waiting) and the actions it asks its
adapter to carry out (``Fill``, ``RetryAfter``, ``CancelRetry``, ``Close``). Plain values, no behaviour.
A followed stream that is not a game (a watcher's race, ``streams.py``) is a ``Follow`` too, with the
``StreamSource`` its catch-up snapshot is read from.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol


class StreamSource(Protocol):
    """Where a followed stream that is not a game is read from when its client must catch up (``streams.py``):
    the stream's version now and the messages that bring a client to it (a snapshot)."""

    async def snapshot(self, role: str) -> tuple[int, list[dict[str, Any]]]: ...


class Follow:
    """A game this connection follows: its role and the version the client holds."""

    __slots__ = (
        "again",
        "again_from",
        "failures",
        "fill_from",
        "filling",
        "lagging",
        "pending",
        "role",
        "source",
        "v",
        "waiting",
    )

    def __init__(self, role: str, v: int, filling: bool = False, source: StreamSource | None = None) -> None:
        self.role = role
        self.source = source
        """A stream's source (``streams.py``): its fills read a snapshot there; None for a game."""
        self.v = v
        """The last version queued to the client; -1 while ``open`` reads the game (diffs wait)."""
        self.filling = filling
        self.lagging = False
        """A broadcast of this game was dropped (full queue, or a failed fill): filled when it drains."""
        self.again = False
        """Fill once more when the running fill ends (the store may hold diffs it did not read)."""
        self.again_from: int | None = None
        """The version that fill starts from when a client's ``resync`` asked for an older one meanwhile."""
        self.fill_from = 0
        """The version the running (or last) fill started from."""
        self.failures = 0
        """Fills that failed in a row: the next one waits ``fill_retry_s * 2**failures``."""
        self.waiting = False
        """A retry of a failed fill is pending (one at a time)."""
        self.pending: list[tuple[int, int, Any]] = []
        """Diffs (v, from, frame) that arrived while the game was read or filled."""

    def __repr__(self) -> str:
        flags = [n for n in ("filling", "lagging", "again", "waiting") if getattr(self, n)]
        return f"Follow({self.role!r}, v={self.v}{''.join(', ' + f for f in flags)})"


class Fill(NamedTuple):
    """Read the store and call ``fill_started``, then ``fill_done`` or ``fill_failed``; ``from_v`` None: from
    the version the client holds."""

    game: str
    follow: Follow
    from_v: int | None = None


class RetryAfter(NamedTuple):
    """Call ``retry_due(game, follow)`` after ``seconds``."""

    game: str
    follow: Follow
    seconds: float


class CancelRetry(NamedTuple):
    """The retry armed for ``game`` is no longer wanted."""

    game: str


class Close(NamedTuple):
    """Close the connection with ``code``; the frames still queued were discarded."""

    code: int


Action = Fill | RetryAfter | CancelRetry | Close
NONE: tuple[Action, ...] = ()
