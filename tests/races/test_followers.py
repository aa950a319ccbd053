"""``races/followers.py`` without a socket, on the session's server and its real Redis: a connection's race
and board followers, watcher share and lobby presence go the moment it ends (its close hook), with no sweep;
a connection may follow ``max_open_games`` races and boards at most."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from golfrace.engine import GameCode, Rules
from golfrace.live import streams
from golfrace.live.session import Session
from golfrace.races import leaderboard as lb
from golfrace.races import race_views
from golfrace.races.followers import RaceFollower, RaceWire
from golfrace.races.race import Race
from golfrace.races.storage import race_channel
from golfrace.wire.protocol import JSON, ProtocolError
from golfrace_testkit.servers import RunningServer

from ..live.sockets import Recorded
from ..waiting import until


def race_wire(server: RunningServer) -> RaceWire:
    wire: RaceWire = server.ctx.get(RaceWire)
    return wire


def new_session(server: RunningServer, player: str | None = None) -> Session:
    session = Session(server.ctx, Recorded(), JSON)
    session.player = player
    return session


async def test_a_watcher_that_ends_stops_following_and_counting_at_once(server: RunningServer) -> None:
    wire, race_id = race_wire(server), f"t{secrets.token_hex(5)}"
    session = new_session(server, f"g{secrets.token_hex(5)}")
    follower = await wire.follow(session, race_id, "watcher", ref="race_watch")
    assert isinstance(follower, RaceFollower) and wire.follower(session, race_id) is follower
    assert follower in server.ctx.hub.subscribers[race_channel(race_id)]
    assert await wire.service.presence.watchers(race_id) == 1
    await session.shutdown()  # no sweep runs between: the close hook alone
    assert session not in wire.followers
    assert follower not in server.ctx.hub.subscribers.get(race_channel(race_id), set())
    assert await wire.service.presence.watchers(race_id) == 0


async def test_a_racer_that_ends_is_no_longer_here(server: RunningServer) -> None:
    wire, race_id, player = race_wire(server), f"t{secrets.token_hex(5)}", f"g{secrets.token_hex(5)}"
    first, second = new_session(server, player), new_session(server, player)
    await wire.follow(first, race_id, "racer", ref="race_join")
    await wire.follow(second, race_id, "racer", ref="race_join")
    assert wire.racers_here[(race_id, player)] == 2
    assert await wire.service.presence.is_present(race_id, player)
    await first.shutdown()
    assert first not in wire.joined and wire.racers_here[(race_id, player)] == 1
    assert await wire.service.presence.is_present(race_id, player)  # their other tab is still here
    await second.shutdown()
    assert second not in wire.joined and (race_id, player) not in wire.racers_here
    assert not await wire.service.presence.is_present(race_id, player)


async def test_boards_followed_go_with_the_connection(server: RunningServer) -> None:
    wire, board = race_wire(server), lb.daily_board("2026-01-01")
    session = new_session(server)
    await wire.follow_board(session, board)
    await wire.follow_board(session, board)  # again: one follower
    assert list(wire.followers[session]) == ["lb:" + board]
    await session.shutdown()
    assert session not in wire.followers
    assert not any(
        getattr(f, "session", None) is session for f in server.ctx.hub.subscribers.get(lb.channel(board), ())
    )


async def test_a_connection_follows_at_most_max_open_games(server: RunningServer) -> None:
    wire, session = race_wire(server), new_session(server)
    limit = server.ctx.settings.max_open_games
    for n in range(limit):
        await wire.follow(session, f"t{secrets.token_hex(4)}{n}", "watcher", ref="race_watch")
    with pytest.raises(ProtocolError) as refused:
        await wire.follow(session, f"t{secrets.token_hex(5)}", "watcher", ref="race_watch")
    assert refused.value.code == "too_many_games"
    await wire.drop(session, next(iter(wire.followers[session])))  # one dropped: room for one
    await wire.follow(session, f"t{secrets.token_hex(5)}", "watcher", ref="race_watch")
    await session.shutdown()
    assert session not in wire.followers


async def test_following_again_in_another_role_replaces_the_follower(server: RunningServer) -> None:
    wire, race_id = race_wire(server), f"t{secrets.token_hex(5)}"
    session = new_session(server, f"g{secrets.token_hex(5)}")
    watcher = await wire.follow(session, race_id, "watcher", ref="race_watch")
    assert await wire.follow(session, race_id, "watcher", ref="race_watch") is watcher
    racer = await wire.follow(session, race_id, "racer", ref="race_join")
    assert racer is not watcher and racer.role == "racer" and wire.follower(session, race_id) is racer
    assert await wire.service.presence.watchers(race_id) == 0  # no longer a watcher
    await session.shutdown()


async def test_a_race_event_s_one_view_becomes_each_audience_s_race_as_the_older_five_did(
    server: RunningServer,
) -> None:
    """A race event carries the watchers' view alone: a racer gets it with their seat, someone who left the
    race gets nothing, a watcher gets it as it is; an event of an older instance (one view per audience,
    ``views``) gives each the same."""
    wire, race_id = race_wire(server), f"t{secrets.token_hex(5)}"
    race = Race.create(race_id, GameCode(Rules.EASY, 7), host="pann", name="Ann", now=1_000)
    race = race.join("pbob", "Bob", 1_000)
    await wire.service.insert(race)  # the watcher's stream starts from its snapshot
    shared = race_views.race_view(race, None, 1_000, 0)
    old = {p: race_views.race_view(race, p, 1_000, 0) for p in ("pann", "pbob")}
    sockets = {name: Recorded() for name in ("pann", "pzed", "pw")}
    ann, gone, watcher = (Session(server.ctx, sockets[name], JSON) for name in sockets)
    ann.player, gone.player, watcher.player = "pann", "pzed", "pw"
    for session, role in ((ann, "racer"), (gone, "racer"), (watcher, "watcher")):
        await wire.follow(session, race_id, role, ref="race_join")
    await streams.opened(watcher, race_id)  # the watcher's stream: its snapshot first (as ``watch`` does)

    def races(name: str) -> list[dict[str, Any]]:
        return [f for f in sockets[name].frames if f["t"] == "race"]

    for n, event in enumerate(({"view": shared}, {"views": {**old, "": shared}}), start=1):
        message: dict[str, Any] = {"k": "race", "rev": 0, "check_at": None, "ended_at": None, "boards": []}
        server.ctx.hub.deliver_local(race_channel(race_id), {**message, **event})
        await until(lambda: len(races("pann")) == n and len(races("pw")) == n, "each audience's race")  # noqa: B023
        mine, theirs = races("pann")[-1], races("pw")[-1]
        assert (
            mine == {"t": "race", **old["pann"]} and mine["you"]["game"] == f"{race_id}-{race.racers[0].seat}"
        )
        assert {k: v for k, v in theirs.items() if k != "v"} == {"t": "race", **shared}
        assert races("pzed") == []  # not racing in it: the event has no race for them
    for session in (ann, gone, watcher):
        await session.shutdown()
