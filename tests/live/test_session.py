"""``live/session.py``, without a socket: a connection's end (``Session.shutdown``) runs its close hooks once,
in order, each on its own, after the connection has left the hub; an ended connection takes no hook."""

from __future__ import annotations

import secrets

import pytest

from golfrace.live.session import Session
from golfrace.wire.protocol import JSON
from golfrace_testkit.servers import RunningServer

from .sockets import Recorded


def new_session(server: RunningServer) -> Session:
    return Session(server.ctx, Recorded(), JSON)


async def test_close_hooks_run_once_in_the_order_given(server: RunningServer) -> None:
    session = new_session(server)
    seen: list[str] = []

    class Owner:
        def __init__(self, name: str) -> None:
            self.name = name

        async def closed(self, ended: Session) -> None:
            assert ended is session and ended.ended
            seen.append(self.name)

    first, second = Owner("first"), Owner("second")
    session.on_close(first.closed)
    session.on_close(second.closed)
    session.on_close(first.closed)  # the same owner's hook again: still once
    assert seen == []  # nothing before the end
    await session.shutdown()
    assert seen == ["first", "second"]
    await session.shutdown()  # a second end does nothing
    assert seen == ["first", "second"]


async def test_a_failing_hook_does_not_keep_the_next_from_running(server: RunningServer) -> None:
    session = new_session(server)
    seen: list[str] = []

    async def fails(ended: Session) -> None:
        raise RuntimeError("this extension's hook fails")

    async def runs(ended: Session) -> None:
        seen.append("ran")

    session.on_close(fails)
    session.on_close(runs)
    await session.shutdown()
    assert seen == ["ran"]


async def test_an_ended_connection_takes_no_hook(server: RunningServer) -> None:
    session = new_session(server)
    await session.shutdown()

    async def late(ended: Session) -> None:
        raise AssertionError("never run")

    with pytest.raises(RuntimeError):
        session.on_close(late)


async def test_the_end_leaves_the_hub_before_the_hooks_run(server: RunningServer) -> None:
    session = new_session(server)
    name = f"test:{secrets.token_hex(6)}"
    await session.subscribe(name)
    assert session in server.ctx.hub.subscribers[name]
    subscribed_at_hook: list[bool] = []

    async def hook(ended: Session) -> None:
        subscribed_at_hook.append(ended in server.ctx.hub.subscribers.get(name, set()))

    session.on_close(hook)
    await session.shutdown()
    assert subscribed_at_hook == [False]
    assert session.channels == set()


async def test_every_connection_has_its_own_serial(server: RunningServer) -> None:
    a, b = new_session(server), new_session(server)
    assert a.serial != b.serial
    b.sid = a.sid  # a reconnect keeps its sid (hello.sid): the serial still tells the two apart
    assert a.serial != b.serial
