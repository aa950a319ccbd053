"""The connection's follow/fill state machine (``follow.py``) fed with events, its frames and actions checked:
no socket, no asyncio, no Redis. Frames are plain strings here ("d5" = the diff to version 5)."""

from __future__ import annotations

import pytest

from golfrace.live.follow_machine import Connection
from golfrace.live.follow_state import NONE, CancelRetry, Close, Fill, Follow, RetryAfter
from golfrace.wire.protocol import CLOSE_TOO_SLOW

G = "abcdefghijkm"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Probe(Connection):
    """The machine with a record of its dropped broadcasts (its ``on_drop`` hook)."""

    drops: list[int]


def machine(send_queue: int = 8, pending_limit: int = 256, clock: Clock | None = None) -> Probe:
    drops: list[int] = []
    conn = Probe(
        send_queue=send_queue,
        slow_grace=10.0,
        pending_limit=pending_limit,
        fill_retry_s=0.25,
        fill_retry_max_s=5.0,
        clock=clock or Clock(),
        on_drop=lambda: drops.append(1),
    )
    conn.drops = drops
    return conn


def following(v: int, **kwargs: int) -> tuple[Probe, Follow]:
    """A machine that follows game G as a watcher at version ``v``, its snapshot already written."""
    conn = machine(**kwargs)
    assert conn.followed(G, "watcher", v, f"s{v}") == NONE
    written(conn)
    return conn, conn.follows[G]


def written(conn: Connection) -> list[str]:
    """What the writer takes out of the outbox, then the drained event (whose actions must be none)."""
    out = list(conn.outbox or ())
    if conn.outbox is not None:
        conn.outbox.clear()
    assert conn.drained() == NONE
    return out


def diff(conn: Connection, v: int, frm: int | None = None) -> tuple:
    return conn.diff_arrived(G, v, v - 1 if frm is None else frm, f"d{v}")


# (held version, diff v, diff from) -> (frames written, version held after, actions)
DIFFS = [
    pytest.param(3, 4, 3, ["d4"], 4, NONE, id="next-version-is-sent"),
    pytest.param(3, 3, 2, [], 3, NONE, id="own-echo-is-skipped"),
    pytest.param(3, 2, 1, [], 3, NONE, id="older-is-skipped"),
    pytest.param(3, 6, 5, [], 3, "fill", id="gap-asks-for-a-fill"),
    pytest.param(3, 4, 2, [], 3, "fill", id="broken-chain-asks-for-a-fill"),
]


@pytest.mark.parametrize(("held", "v", "frm", "frames", "after", "actions"), DIFFS)
def test_a_diff_against_the_version_held(held, v, frm, frames, after, actions) -> None:
    conn, follow = following(held)
    got = diff(conn, v, frm)
    assert got == ((Fill(G, follow, None),) if actions == "fill" else actions)
    assert written(conn) == frames
    assert follow.v == after
    assert follow.filling == (actions == "fill")


@pytest.mark.parametrize(
    ("game", "v", "frm"), [("other", 4, 3), (G, "4", 3), (G, 4, None), (G, 4.0, 3.0)], ids=repr
)
def test_diffs_of_games_not_followed_or_malformed_are_ignored(game, v, frm) -> None:
    conn, follow = following(3)
    assert conn.diff_arrived(game, v, frm, "x") == NONE
    assert written(conn) == [] and follow.v == 3


def test_a_gap_is_filled_then_the_diffs_that_waited_pass_the_checks() -> None:
    conn, follow = following(3)
    assert diff(conn, 6) == (Fill(G, follow),)  # 4 and 5 were lost on the way
    assert diff(conn, 7) == NONE  # waits while the fill runs
    assert conn.fill_started(follow) == 3
    assert conn.fill_done(G, follow, 6, ["f4", "f5", "f6"]) == NONE
    assert written(conn) == ["f4", "f5", "f6", "d7"]  # d6 was covered by the fill
    assert follow.v == 7 and not follow.filling and follow.pending == []


def test_pending_diffs_are_bounded() -> None:
    conn, follow = following(0, pending_limit=3)
    diff(conn, 5)
    for v in range(6, 12):
        diff(conn, v)
    assert [v for v, _frm, _frame in follow.pending] == [5, 6, 7]


@pytest.mark.parametrize(
    ("missed", "send_queue", "snapshot"),
    [(None, 8, True), (0, 8, False), (4, 8, False), (5, 8, True), (1, 1, False), (2, 1, True)],
)
def test_a_fill_sends_a_snapshot_when_the_buffer_is_gone_or_the_diffs_take_half_the_queue(
    missed, send_queue, snapshot
) -> None:
    assert machine(send_queue=send_queue).wants_snapshot(missed) is snapshot


def test_a_full_queue_drops_broadcasts_and_the_game_is_filled_when_it_drains() -> None:
    conn, follow = following(0, send_queue=2)
    assert diff(conn, 1) == diff(conn, 2) == NONE
    assert diff(conn, 3) == NONE  # dropped: the queue holds 2
    assert follow.lagging and follow.v == 2 and conn.drops == [1]
    assert diff(conn, 4) == NONE  # lagging: left to the catch-up
    assert conn.answer("pong") == NONE  # answers are never dropped
    assert list(conn.outbox or ()) == ["d1", "d2", "pong"]
    conn.outbox.clear()  # type: ignore[union-attr]
    assert conn.drained() == (Fill(G, follow),)
    assert conn.drained() == NONE  # one catch-up per drop
    conn.fill_started(follow)
    assert conn.fill_done(G, follow, 4, ["f3", "f4"]) == NONE
    assert written(conn) == ["f3", "f4"] and not follow.lagging


def test_a_queue_twice_full_of_answers_closes_4008() -> None:
    conn = machine(send_queue=2)
    actions = [conn.answer(f"a{i}") for i in range(5)]
    assert actions == [NONE, NONE, NONE, NONE, (Close(CLOSE_TOO_SLOW),)]
    assert conn.close_code == CLOSE_TOO_SLOW and conn.outbox is None
    assert conn.answer("late") == NONE and conn.outbox is None  # nothing is queued once closing
    assert conn.drained() == NONE


def test_a_queue_full_for_longer_than_slow_grace_closes_4008() -> None:
    clock = Clock()
    conn, follow = following(0, send_queue=2)
    conn.clock = clock
    diff(conn, 1), diff(conn, 2), diff(conn, 3)  # full since now; 3 is dropped
    clock.now += 9.9
    assert diff(conn, 4) == NONE and conn.close_code is None  # lagging, still within the grace
    clock.now += 0.2
    assert diff(conn, 5) == (Close(CLOSE_TOO_SLOW),)
    assert conn.close_code == CLOSE_TOO_SLOW and follow.v == 2


def test_a_queue_that_drains_starts_its_grace_again() -> None:
    clock = Clock()
    conn = machine(send_queue=1, clock=clock)
    conn.answer("a"), conn.broadcast("b")  # full from now on
    assert conn.full_since == clock.now
    conn.outbox.clear()  # type: ignore[union-attr]
    conn.drained()
    clock.now += 60
    assert conn.broadcast("c") == NONE and conn.full_since is None and conn.close_code is None


@pytest.mark.parametrize(
    ("failures", "waits"), [(1, [0.25]), (3, [0.25, 0.5, 1.0]), (7, [0.25, 0.5, 1, 2, 4, 5, 5])]
)
def test_failed_fills_are_retried_after_a_doubling_wait_up_to_the_maximum(failures, waits) -> None:
    conn, follow = following(0)
    assert diff(conn, 2) == (Fill(G, follow),)
    got = []
    for _ in range(failures):
        conn.fill_started(follow)
        (retry,) = conn.fill_failed(G, follow)
        assert isinstance(retry, RetryAfter) and retry.follow is follow
        got.append(retry.seconds)
        assert conn.retry_due(G, follow) == (Fill(G, follow),)
    assert got == waits
    conn.fill_started(follow)
    assert conn.fill_done(G, follow, 2, ["f1", "f2"]) == NONE
    assert follow.failures == 0 and not follow.lagging


def test_one_retry_at_a_time_and_none_after_the_game_is_closed() -> None:
    conn, follow = following(0)
    diff(conn, 2)
    conn.fill_started(follow)
    assert len(conn.fill_failed(G, follow)) == 1
    assert conn.drained() == NONE  # lagging, but its retry waits its turn
    assert conn.missed(G) == (Fill(G, follow),)  # a resumed channel fills at once
    conn.fill_started(follow)
    assert conn.fill_failed(G, follow) == NONE  # a retry is armed already
    assert conn.unfollowed(G) == (CancelRetry(G),)
    assert conn.retry_due(G, follow) == NONE  # a timer that fired anyway does nothing


def test_a_resync_during_a_fill_makes_it_run_once_more_from_the_older_version() -> None:
    conn, follow = following(5)
    assert not conn.defer_fill(follow, 1)  # no fill runs: the caller fills now
    assert conn.fill_started(follow, 4) == 4
    assert conn.defer_fill(follow, 6)  # newer than where the running fill started: from what it holds
    assert conn.fill_done(G, follow, 8, ["f5", "f6", "f7", "f8"]) == (Fill(G, follow, None),)
    assert conn.fill_started(follow) == 8
    assert conn.defer_fill(follow, 2) and conn.defer_fill(follow, 3)
    assert conn.fill_done(G, follow, 8, []) == (Fill(G, follow, 2),)  # the oldest asked for
    assert follow.again_from is None and not follow.again


def test_diffs_during_open_wait_for_the_snapshot_then_pass_the_checks() -> None:
    conn = machine()
    placeholder = conn.opening(G, "watcher")
    assert placeholder is not None and conn.opening(G, "watcher") is None
    for v in (3, 4, 5):
        assert diff(conn, v) == NONE
    assert conn.outbox is None
    assert conn.followed(G, "watcher", 4, "s4") == NONE  # the snapshot read after d3 and d4 landed
    assert written(conn) == ["s4", "d5"]


def test_a_channel_resumed_during_open_fills_after_the_snapshot() -> None:
    conn = machine()
    conn.opening(G, "watcher")
    assert conn.missed(G) == NONE  # deferred: open reads the game
    actions = conn.followed(G, "watcher", 4, "s4")
    assert actions == (Fill(G, conn.follows[G]),)


def test_abandon_drops_only_its_own_placeholder() -> None:
    conn = machine()
    placeholder = conn.opening(G, "watcher")
    conn.followed(G, "watcher", 0, "s0")  # a follow made meanwhile
    conn.abandon(G, placeholder)
    assert G in conn.follows
    other = conn.opening("other", "player")
    conn.abandon("other", other)
    assert "other" not in conn.follows


def test_following_again_cancels_the_old_retry_and_ignores_the_old_fill() -> None:
    conn, old = following(0)
    diff(conn, 2)
    conn.fill_started(old)
    conn.fill_failed(G, old)
    assert conn.followed(G, "watcher", 3, "s3") == (CancelRetry(G),)
    assert written(conn) == ["s3"]
    assert conn.fill_done(G, old, 2, ["f1", "f2"]) == NONE and conn.outbox is None
    assert conn.follows[G].v == 3


def test_shutdown_cancels_every_retry_and_drops_the_queue() -> None:
    conn = machine()
    for game in ("g1", "g2", "g3"):
        conn.followed(game, "watcher", 0, "s")
    for game in ("g1", "g3"):
        follow = conn.follows[game]
        conn.fill_started(follow)
        conn.fill_failed(game, follow)
    assert set(conn.shutdown()) == {CancelRetry("g1"), CancelRetry("g3")}
    assert conn.follows == {} and conn.outbox is None


def test_a_fill_whose_game_was_closed_meanwhile_just_ends() -> None:
    conn, follow = following(0)
    diff(conn, 2)
    conn.fill_started(follow)
    assert conn.unfollowed(G) == NONE  # no retry was armed
    assert not conn.is_current(G, follow)
    conn.fill_abandoned(follow)
    assert not follow.filling and conn.outbox is None
    assert conn.fill_failed(G, follow) == NONE  # a failure of that fill arms no retry either
    assert conn.missed(G) == NONE and conn.diff_arrived(G, 3, 2, "d3") == NONE


# --- the fan-out's fast path (diff_in_step) -----------------------------------------------------------------
H = "hbcdefghijkm"


def _in_step() -> tuple[Connection, str, object, object]:
    conn, _follow = following(3)
    return conn, G, 4, 3


def _answer_queued() -> tuple[Connection, str, object, object]:
    conn, _follow = following(3)
    conn.answer("pong")  # not written yet: the diff must go after it
    return conn, G, 4, 3


def _filling() -> tuple[Connection, str, object, object]:
    conn, _follow = following(3)
    diff(conn, 6)  # a gap: a fill runs
    written(conn)
    return conn, G, 7, 6


def _lagging() -> tuple[Connection, str, object, object]:
    conn, follow = following(0, send_queue=1)
    diff(conn, 1)
    diff(conn, 2)  # dropped: the game lags until the queue drains
    conn.outbox = None  # written, but the drained event has not come yet
    assert follow.lagging
    return conn, G, 2, 1


def _open_placeholder() -> tuple[Connection, str, object, object]:
    conn = machine()
    conn.opening(G, "watcher")  # open reads the game: diffs wait for the snapshot
    return conn, G, 1, 0


def _closing() -> tuple[Connection, str, object, object]:
    conn, _follow = following(3)
    conn.close(4000)
    return conn, G, 4, 3


def _second_game() -> tuple[Connection, str, object, object]:
    conn, _follow = following(3)
    conn.followed(H, "watcher", 0, "s0")  # the game last followed is H now
    written(conn)
    return conn, G, 4, 3


def _last_game_closed() -> tuple[Connection, str, object, object]:
    conn, _follow = following(3)
    conn.followed(H, "watcher", 7, "s7")
    written(conn)
    conn.unfollowed(H)
    return conn, H, 8, 7


def _followed_again() -> tuple[Connection, str, object, object]:
    conn, _follow = following(3)
    conn.followed(G, "player", 9, "s9")  # a new Follow of the same game
    written(conn)
    return conn, G, 10, 9


def _with(v: object, frm: object, game: str = G) -> object:
    def build() -> tuple[Connection, str, object, object]:
        conn, _follow = following(3)
        return conn, game, v, frm

    return build


FAST_CASES = [
    pytest.param(_in_step, True, id="in-step"),
    pytest.param(_answer_queued, False, id="answer-queued"),
    pytest.param(_filling, False, id="filling"),
    pytest.param(_lagging, False, id="lagging"),
    pytest.param(_open_placeholder, False, id="placeholder-of-open"),
    pytest.param(_closing, False, id="closing"),
    pytest.param(_second_game, True, id="not-the-game-last-followed"),
    pytest.param(_last_game_closed, False, id="the-game-last-followed-closed"),
    pytest.param(_followed_again, True, id="followed-again"),
    pytest.param(_with(6, 5), False, id="gap"),
    pytest.param(_with(3, 2), False, id="own-echo"),
    pytest.param(_with(4, 2), False, id="broken-chain"),
    pytest.param(_with(4, 3, "other"), False, id="not-followed"),
    pytest.param(_with(4.0, 3), False, id="float-v"),
    pytest.param(_with(4, 3.0), False, id="float-from"),
    pytest.param(_with(True, 3), False, id="bool-v"),
    pytest.param(_with("4", 3), False, id="text-v"),
]


@pytest.mark.parametrize(("build", "taken"), FAST_CASES)
def test_the_fast_path_takes_exactly_the_diffs_that_would_be_queued_alone_and_drained(build, taken) -> None:
    """``diff_in_step`` says yes only where ``diff_arrived`` would queue this frame alone with no action
    (and ``drained`` would follow with none), and leaves the machine as those two would; otherwise it
    changes nothing."""
    fast, game, v, frm = build()
    slow, *_ = build()
    before = _states(fast)
    outbox_before = None if slow.outbox is None else list(slow.outbox)
    assert fast.diff_in_step(game, v, frm) is taken
    actions = slow.diff_arrived(game, v, frm, "F")
    alone = outbox_before is None and actions == NONE and slow.outbox == ["F"]
    assert alone is taken
    if taken:
        slow.outbox.clear()  # type: ignore[union-attr]
        assert slow.drained() == NONE
        assert fast.outbox is None and fast.full_since is None
        assert _states(fast) == _states(slow)
    else:
        assert _states(fast) == before


def _states(conn: Connection) -> dict[str, tuple[int, bool, bool, int]]:
    return {g: (f.v, f.filling, f.lagging, len(f.pending)) for g, f in conn.follows.items()}


def test_the_fast_path_keeps_a_watcher_in_step_diff_after_diff() -> None:
    conn, follow = following(0)
    for v in range(1, 6):
        assert conn.diff_in_step(G, v, v - 1)
    assert follow.v == 5 and conn.outbox is None
    assert not conn.diff_in_step(G, 5, 4)  # its echo, once more: the slow path skips it
    assert diff(conn, 5) == NONE and written(conn) == []
