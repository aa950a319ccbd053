"""What every handler can reach: settings, clock, store, hub, tokens. One per app (built in app.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis

from .hub import Hub
from .settings import Settings
from .store import Store
from .tokens import Tokens

if TYPE_CHECKING:
    from .dispatch import Dispatch
    from .session import Session


Clock = Callable[[], int]
"""Server time in milliseconds since the epoch (``create_app(..., clock=...)``: tests move it at will)."""


def wall_clock() -> int:
    return int(time.time() * 1000)


@dataclass
class Context:
    settings: Settings
    redis: aioredis.Redis
    store: Store
    hub: Hub
    tokens: Tokens
    dispatch: Dispatch
    """This app's message table (``dispatch.Dispatch``)."""
    clock: Clock = wall_clock
    sessions: set[Session] = field(default_factory=set)
    extras: dict[str, Any] = field(default_factory=dict)
    """Room for extensions (races, leaderboards…) to keep their own services."""
