"""What every handler can reach: settings, store, hub, tokens. One per server process (built in app.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis

from .hub import Hub
from .settings import Settings
from .store import Store
from .tokens import Tokens

if TYPE_CHECKING:
    from .session import Session


@dataclass
class Context:
    settings: Settings
    redis: aioredis.Redis
    store: Store
    hub: Hub
    tokens: Tokens
    sessions: set[Session] = field(default_factory=set)
    extras: dict[str, Any] = field(default_factory=dict)
    """Room for extensions (races, leaderboards…) to keep their own services."""
