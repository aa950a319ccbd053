"""A stream that is not a game (a watcher's race, ``live/streams.py``) in the follow machine, fed with events:
its events (tuples of frames at one version) are queued whole or the stream lags, a full queue drops them and
the drain asks for one fill (the snapshot), events during a fill wait for it, a gap is filled. No socket, no
asyncio, no Redis: frames are plain strings ("p5", "b5" = event 5's progress and board)."""

from __future__ import annotations

from typing import Any

from golfrace.live.follow_state import NONE, Fill, Follow

from ..server.test_follow import Clock, machine, written

R = "rabcdefghijk"


class Source:
    """A stream's source as the machine sees it: only carried in its follow (the adapter reads it)."""

    async def snapshot(self, role: str) -> tuple[int, list[dict[str, Any]]]:
        return 0, []


def event(v: int) -> tuple[str, ...]:
    return (f"p{v}", f"b{v}")


def streaming(v: int, send_queue: int = 8) -> tuple[Any, Follow]:
    """A machine whose client holds the stream R at ``v`` (its snapshot written)."""
    conn = machine(send_queue=send_queue)
    placeholder = conn.opening(R, "watcher", Source())
    assert placeholder is not None and placeholder.source is not None and placeholder.filling
    conn.fill_started(placeholder, -1)
    assert conn.fill_done(R, placeholder, v, [f"w{v}"]) == NONE
    assert written(conn) == [f"w{v}"]
    return conn, conn.follows[R]


def test_events_in_step_are_queued_whole_and_move_the_version_on() -> None:
    conn, follow = streaming(3)
    assert conn.diff_arrived(R, 4, 3, event(4)) == NONE
    assert conn.diff_arrived(R, 5, 4, event(5)) == NONE
    assert conn.diff_arrived(R, 5, 4, event(5)) == NONE  # seen already: skipped
    assert written(conn) == ["p4", "b4", "p5", "b5"]
    assert follow.v == 5 and not follow.lagging


def test_an_event_with_no_frame_for_this_client_still_moves_its_version_on() -> None:
    conn, follow = streaming(3)
    conn.diff_arrived(R, 4, 3, ())
    conn.diff_arrived(R, 5, 4, event(5))
    assert written(conn) == ["p5", "b5"] and follow.v == 5


def test_a_full_queue_drops_events_keeps_its_bound_and_the_drain_asks_for_one_snapshot() -> None:
    conn, follow = streaming(0, send_queue=4)
    for v in range(1, 40):  # the client stopped reading: nothing is written
        conn.diff_arrived(R, v, v - 1, event(v))
        assert conn.queued <= 4  # the queue's bound, whatever the number of events
    assert follow.lagging and follow.v == 2 and conn.drops  # events 1 and 2 fit (two frames each)
    assert conn.outbox == ["p1", "b1", "p2", "b2"]
    conn.outbox.clear()
    (fill,) = conn.drained()  # the client read again: one fill, the stream's snapshot
    assert fill == Fill(R, follow) and follow.filling
    conn.diff_arrived(R, 40, 39, event(40))  # during the read: waits for it
    assert conn.fill_started(follow) == 2
    assert conn.fill_done(R, follow, 39, ["w39"]) == NONE
    assert written(conn) == ["w39", "p40", "b40"]
    assert follow.v == 40 and not follow.lagging


def test_an_event_half_queued_lags_the_stream_until_its_snapshot() -> None:
    conn, follow = streaming(0, send_queue=3)
    conn.diff_arrived(R, 1, 0, event(1))
    conn.diff_arrived(R, 2, 1, event(2))  # its board does not fit
    assert conn.outbox == ["p1", "b1", "p2"] and follow.lagging and follow.v == 1
    conn.diff_arrived(R, 3, 2, event(3))  # lagging: left to the snapshot
    assert conn.outbox == ["p1", "b1", "p2"]


def test_a_gap_in_the_numbers_is_filled_and_the_events_after_it_wait() -> None:
    conn, follow = streaming(3)
    (fill,) = conn.diff_arrived(R, 6, 5, event(6))  # events 4 and 5 never came (a pub/sub reconnect)
    assert fill == Fill(R, follow)
    conn.fill_started(follow)
    conn.fill_done(R, follow, 5, ["w5"])
    assert written(conn) == ["w5", "p6", "b6"] and follow.v == 6


def test_events_before_the_first_snapshot_wait_and_those_it_covers_are_skipped() -> None:
    conn = machine()
    placeholder = conn.opening(R, "watcher", Source())
    assert placeholder is not None
    for v in (7, 8, 9):  # subscribed: events come while the race is read
        conn.diff_arrived(R, v, v - 1, event(v))
    assert conn.outbox is None
    conn.fill_started(placeholder, -1)
    conn.fill_done(R, placeholder, 8, ["w8"])  # read after event 8 was numbered
    assert written(conn) == ["w8", "p9", "b9"]


def test_a_stream_is_dropped_with_its_follow() -> None:
    conn, _ = streaming(3)
    conn.unfollowed(R)
    assert conn.diff_arrived(R, 4, 3, event(4)) == NONE and conn.outbox is None
    assert R not in conn.follows


def test_a_stalled_stream_past_the_grace_closes_the_connection() -> None:
    clock = Clock()
    conn = machine(send_queue=2, clock=clock)
    placeholder = conn.opening(R, "watcher", Source())
    assert placeholder is not None
    conn.fill_started(placeholder, -1)
    conn.fill_done(R, placeholder, 0, ["w0"])
    conn.diff_arrived(R, 1, 0, event(1))  # full now, nothing written
    conn.diff_arrived(R, 2, 1, event(2))
    clock.now += 11
    conn.diff_arrived(R, 3, 2, event(3))
    assert conn.close_code == 4008 and conn.outbox is None
