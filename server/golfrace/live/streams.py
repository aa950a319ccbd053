"""Streams that are not games, on the game pipeline: a watcher's view of a race (``races/race_stream.py``).

Such a stream is a ``Follow`` in the connection's follow machine, keyed by its id, with a ``StreamSource``.
Its events come through ``Session.stream_event`` as a tuple of frames at one version (``v``, each above the
last): queued as broadcasts, so the connection's bounded send queue drops them when it is full and the
stream lags; once the queue drains, it is caught up by one snapshot read from its source (``fill``), as a
game whose diffs were dropped is. A client's ``resync`` on the stream's id gets that snapshot too, unless
the version it holds is current. Every rule (the queue's bound, the slow client's close, a failed read tried
again later, the events that came during a read) is the follow machine's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from golfrace.live.follow_state import Follow
from golfrace.wire.protocol import encode

if TYPE_CHECKING:
    from golfrace.live.session import Session

log = logging.getLogger("golfrace.live.session")


async def fill(
    session: Session, key: str, follow: Follow, from_v: int | None = None, answer: bool = False
) -> None:
    """Bring the client of the stream ``key`` to its current version: nothing when it holds it (``from_v``,
    default: what the machine last queued, and the machine agrees), else the source's snapshot. A failure is
    tried again with a growing wait; with ``answer`` (the client asked: ``watch``, ``resync``) it is also
    raised for the client's error answer, and the snapshot answers the request (its ``rid``)."""
    machine, source = session.machine, follow.source
    assert source is not None
    start = machine.fill_started(follow, from_v)
    try:
        v, messages = await source.snapshot(follow.role)
        if not machine.is_current(key, follow):
            machine.fill_abandoned(follow)
            return
    except Exception as exc:
        log.info("stream fill failed for %s: %r", key, exc)
        session.run(machine.fill_failed(key, follow))
        if answer:
            raise
        return
    except BaseException:
        machine.fill_abandoned(follow)
        raise
    frames: list[Any] = []
    if not (start == v == follow.v and not follow.lagging):
        frames = [encode(session.answering(m) if answer else m, session.codec) for m in messages]
    session.run(machine.fill_done(key, follow, v, frames))


async def opened(session: Session, key: str, answer: bool = True) -> None:
    """The stream ``key`` was opened (``Session.opening`` with its source, then subscribed) or asked for
    again: its snapshot now, or once more after the fill running now."""
    follow = session.follows.get(key)
    if follow is None or follow.source is None:
        return
    if follow.v >= 0 and session.defer_fill(follow, -1):
        return
    await fill(session, key, follow, -1, answer=answer)
