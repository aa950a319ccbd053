"""``friends/wire.py`` without a socket, on the session's server and its real Redis: a connection online for
its friends is stamped in Redis when it asks, and taken off the moment it ends (its close hook), with no
sweep; the refresh stamps only the connections still here."""

from __future__ import annotations

import secrets

from golfrace.friends.wire import FriendsWire
from golfrace.live.session import Session
from golfrace.wire.protocol import JSON
from golfrace_testkit.servers import RunningServer

from ..live.sockets import Recorded


async def test_a_connection_that_ends_is_offline_at_once(server: RunningServer) -> None:
    wire = server.ctx.get(FriendsWire)
    player = f"a{secrets.token_hex(6)}"
    tab, other_tab = Session(server.ctx, Recorded(), JSON), Session(server.ctx, Recorded(), JSON)
    await wire.enrol(tab, player)
    await wire.enrol(other_tab, player)
    assert (await wire.friends.presence(player))[0]
    await tab.shutdown()
    assert tab not in wire.online and tab not in wire.listed
    assert (await wire.friends.presence(player))[0]  # the other tab still is
    await wire.refresh()  # a refresh round stamps the tab left, not the one gone
    assert set(wire.online) >= {other_tab} and tab not in wire.online
    await other_tab.shutdown()
    assert await wire.friends.presence(player) == (False, [])


async def test_a_list_kept_for_a_connection_goes_with_it(server: RunningServer) -> None:
    wire = server.ctx.get(FriendsWire)
    tab = Session(server.ctx, Recorded(), JSON)
    wire.keep_list(tab, 1, {"friends": []})  # a list sent without enrolling (e.g. after friend_follow)
    assert wire.listed[tab] == (1, {"friends": []})
    await tab.shutdown()
    assert tab not in wire.listed
