"""The dispatch table each app builds from its modules' handlers, and running one request through it.

``@handler("t")`` only marks a function as the handler of message type ``t`` (defined in ``messages.py``);
``Dispatch.from_modules`` collects the marked functions of the modules an app is made of (``handlers.py``,
``moves.py`` and its extensions) into that app's table: nothing is registered at import time. A handler gets
the session and the validated message, answers through ``session.send`` and raises ``ProtocolError`` for
errors. ``Dispatch`` runs it under the request's deadline, turns storage trouble into ``unavailable`` (a full
Redis into ``storage_full``), echoes the ``rid`` and answers ``ok`` for a request that got no answer of its
own. Every type not marked ``anonymous`` in ``messages.py`` needs an identified session.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any

from redis.exceptions import RedisError

from golfrace.live import metrics
from golfrace.live.deadlines import deadline_at
from golfrace.live.request import REQUEST, Request
from golfrace.live.session import Session
from golfrace.wire import messages
from golfrace.wire.errors import cause, storage_full
from golfrace.wire.protocol import ProtocolError

log = logging.getLogger("golfrace.live.handlers")
Handler = Callable[[Session, dict[str, Any]], Awaitable[None]]
MARK = "__golfrace_handles__"


def handler(t: str) -> Callable[[Handler], Handler]:
    """Mark ``fn`` as the handler of message type ``t`` (nothing is registered: see ``Dispatch``)."""

    def mark(fn: Handler) -> Handler:
        setattr(fn, MARK, t)
        return fn

    return mark


@dataclass(frozen=True, slots=True)
class Dispatch:
    """One app's table: message type → (its definition, its handler)."""

    table: Mapping[str, tuple[messages.In, Handler]]
    specs: Mapping[str, messages.In]
    """The definitions of the types this app handles: what ``protocol.decode`` accepts."""
    guard: Handler | None = None
    """Awaited before each handler, under the same deadline (the per-network limits): may raise."""

    @classmethod
    def from_modules(cls, modules: Iterable[ModuleType], guard: Handler | None = None) -> Dispatch:
        table: dict[str, tuple[messages.In, Handler]] = {}
        for module in modules:
            for fn in vars(module).values():
                t = getattr(fn, MARK, None)
                if not isinstance(t, str):
                    continue
                if t not in messages.CLIENT:
                    raise ValueError(f"{module.__name__}: {t!r} is not a message of messages.CLIENT")
                if t in table and table[t][1] is not fn:
                    raise ValueError(f"two handlers for {t!r}: {table[t][1]!r} and {fn!r}")
                table[t] = (messages.CLIENT[t], fn)
        specs = {t: spec for t, (spec, _fn) in table.items()}
        return cls(MappingProxyType(table), MappingProxyType(specs), guard)

    async def __call__(self, session: Session, msg: dict[str, Any], deadline: float | None = None) -> None:
        """Run ``msg``'s handler, until ``deadline`` (event-loop time) at most: then it is cancelled and the
        answer is ``unavailable`` (for a move: unknown, resend the same seq; a commit already sent to Redis
        may still apply). What the handler sends this connection meanwhile carries ``msg``'s ``rid``; a
        request with a ``rid`` that got no answer of its own gets ``ok``. Errors are raised, with
        ``ref``/``rid``."""
        t = msg["t"]
        metrics.labelled(metrics.MESSAGES_IN, t).inc()
        request = Request(session, msg.get("rid"))
        try:
            entry = self.table.get(t)
            if entry is None:
                raise ProtocolError("bad_type", f"no handler for {t!r}")
            if session.player is None and not entry[0].anonymous:
                raise ProtocolError("no_hello", "send hello first")
            reset = REQUEST.set(request)
            try:
                async with deadline_at(deadline):  # asyncio.timeout_at's, with one timer for all requests
                    if self.guard is not None:
                        await self.guard(session, msg)
                    await entry[1](session, msg)
            finally:
                request.active = False
                REQUEST.reset(reset)
        except ProtocolError as exc:
            exc.ref, exc.rid = _ref(msg), request.rid
            raise
        except TimeoutError as exc:  # before OSError: the deadline (or Redis' own timeout) passed
            log.warning("no answer from storage on %s within the deadline: %s", t, cause(exc))
            error = ProtocolError(
                "unavailable",
                "storage did not answer in time; unknown whether it took effect: resend (the same seq)",
                ref=_ref(msg),
            )
            error.rid = request.rid
            raise error from exc
        except (RedisError, OSError) as exc:
            if storage_full(exc):
                metrics.STORAGE_FULL.labels("ws").inc()
                error = ProtocolError(
                    "storage_full", "storage is full; this was not done: retry later", ref=_ref(msg)
                )
                error.rid = request.rid
                raise error from exc
            log.warning("storage failed on %s: %s", t, cause(exc))
            error = ProtocolError(
                "unavailable", "storage is unreachable; resend later (the same seq)", ref=_ref(msg)
            )
            error.rid = request.rid
            raise error from exc
        if request.rid is not None and not request.answered:
            session.send({"t": "ok", "ref": t, "rid": request.rid})


def answered_later() -> None:
    """The running request is answered by a task of its own (a hint): no ``ok`` for it."""
    request = REQUEST.get()
    if request is not None:
        request.answered = True


def _ref(msg: dict[str, Any]) -> Any:
    return msg.get("seq", msg["t"])
