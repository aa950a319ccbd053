"""A connection's requests in flight: each one waits only for the earlier requests it could depend on, and
runs under its deadline.

A move (``act``, ``resync``, ``hint``, and the race's ``race_act``, ``race_start``, ``race_leave``,
``race_resign``) waits for the earlier requests on the same game or race (a race and its seats
``<race>-<seat>`` are one); ``ping`` waits for nothing; every other request (``hello``, ``new``, ``open``,
``close``, ``watch``, ``daily``…: they change who the connection is or what it follows, or read what the
earlier ones did) waits for every earlier request, and later ones wait for it. So a frozen Redis holds up a
move on one game for at most ``Settings.request_timeout_s`` (then ``unavailable``), while ``ping`` and the
moves on other games go on; and whatever a client sends in one order on one game is handled in that order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from golfrace.live.session import Session
from golfrace.wire.errors import ProtocolError

log = logging.getLogger("golfrace.live.ordering")
KEYED = frozenset({"act", "resync", "hint", "race_act", "race_start", "race_leave", "race_resign"})
"""Requests that wait only for the earlier requests on their own game or race."""
FREE = frozenset({"ping"})
"""Requests that wait for nothing."""


def keys_of(msg: dict[str, Any]) -> frozenset[str] | None:
    """What a request touches: a set of game groups (a race and its seats are one), or None for everything."""
    t = msg["t"]
    if t in FREE:
        return frozenset()
    if t in KEYED:
        ident = msg.get("game", msg.get("race"))
        if isinstance(ident, str):
            return frozenset({ident.partition("-")[0]})
    return None


def _conflict(a: frozenset[str] | None, b: frozenset[str] | None) -> bool:
    return a is None or b is None or bool(a & b)


@dataclass(eq=False)
class _Item:
    msg: dict[str, Any]
    deadline: float
    keys: frozenset[str] | None
    task: asyncio.Task[None] | None = field(default=None)


class Lanes:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.pending: list[_Item] = []
        """Requests waiting or running, in the order they arrived."""

    def submit(self, msg: dict[str, Any]) -> None:
        """Take a validated message: it starts as soon as no earlier request it depends on is pending."""
        settings = self.session.settings
        if len(self.pending) >= settings.max_pending_requests:
            error = ProtocolError(
                "busy", f"over {settings.max_pending_requests} requests waiting; resend later", ref=_ref(msg)
            )
            error.rid = msg.get("rid")
            self.session.error(error)
            return
        deadline = asyncio.get_running_loop().time() + settings.request_timeout_s
        self.pending.append(_Item(msg, deadline, keys_of(msg)))
        self._start_ready()

    def _start_ready(self) -> None:
        for i, item in enumerate(self.pending):
            if item.task is not None:
                continue
            if any(_conflict(item.keys, earlier.keys) for earlier in self.pending[:i]):
                continue
            item.task = asyncio.create_task(self._run(item))

    async def _run(self, item: _Item) -> None:
        try:
            if not self.session.closing:
                await run(self.session, item.msg, item.deadline)
        finally:
            with contextlib.suppress(ValueError):
                self.pending.remove(item)
            if not self.session.closing:
                self._start_ready()

    async def stop(self) -> None:
        """The connection ended: what is still waiting or running is dropped."""
        items, self.pending = self.pending, []
        tasks = [item.task for item in items if item.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


def _ref(msg: dict[str, Any]) -> Any:
    return msg.get("seq", msg["t"])


async def run(session: Session, msg: dict[str, Any], deadline: float) -> None:
    """One request through the app's dispatch table under its deadline; every failure becomes an error
    message to the client."""
    try:
        await session.ctx.dispatch(session, msg, deadline)
    except ProtocolError as exc:
        session.error(exc)
    except Exception:
        log.exception("handler failed on %s", msg["t"])
        error = ProtocolError(
            "internal", "unexpected server fault; resend (a resent seq is never applied twice)", ref=_ref(msg)
        )
        error.rid = msg.get("rid")
        session.error(error)
