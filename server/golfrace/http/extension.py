"""What an extension adds to the app: handler modules, routes, start-up and shut-down.

An extension (races, accounts, …) sits above the core and is handed to ``create_app`` by the composition root
(``golfrace/server.py``); the core never imports it. Its ``@handler`` functions join the app's dispatch table
(``live/dispatch.py``), its routes the router; ``startup`` fills the context's ports (``live/services.py``)
and ``shutdown`` stops what it started, in the reverse order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType

from starlette.routing import BaseRoute

from golfrace.live.services import Context

Hook = Callable[[Context], Awaitable[None]]


def no_routes() -> list[BaseRoute]:
    return []


@dataclass(frozen=True)
class Extension:
    name: str
    handlers: tuple[ModuleType, ...] = ()
    """Modules whose ``@handler`` functions answer some of ``wire/messages.py``'s client messages."""
    routes: Callable[[], list[BaseRoute]] = no_routes
    startup: Hook | None = None
    shutdown: Hook | None = None
