"""Analyses computed once per game and cached: a bounded number at once, each in a worker thread under the
CPU budget of ``AnalysisSettings``; requests for a game being analysed wait for that one computation.

Key: ``ana:{<game id>}:<version>`` — the analysis as JSON, with a TTL (a solo game's version: a stuck solo
game may still be undone and played on; a race record's is ``r``, it never changes).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

from golfrace.live.tasks import end
from golfrace.settings.analysis import AnalysisSettings
from golfrace.store import race_keys
from golfrace.store.games import RedisClient
from golfrace.wire.errors import ProtocolError

from ..engine import GameCode
from .core import analyse

VERSION = 1
"""Of the cached form: an analysis cached by an older server is made again."""


analysis_key = race_keys.analysis


class Analyses:
    def __init__(self, redis: RedisClient, settings: AnalysisSettings) -> None:
        self.redis = redis
        self.settings = settings
        self._slots = asyncio.Semaphore(settings.concurrent)
        self._pending: dict[str, asyncio.Task[dict[str, Any]]] = {}
        self.computed = 0
        """Analyses this process computed (not read from the cache): tests count them."""

    async def get(self, key: str, code: GameCode, tokens: Sequence[str], score: int) -> dict[str, Any]:
        raw = await self.redis.get(key)
        if raw is not None:
            cached = json.loads(raw)
            if cached.get("version") == VERSION:
                return dict(cached["analysis"])
        task = self._pending.get(key)
        if task is None:
            if len(self._pending) >= self.settings.concurrent + self.settings.waiting:
                raise ProtocolError("analysis_busy", "too many analyses being made; ask again later")
            task = asyncio.get_running_loop().create_task(self._make(key, code, tuple(tokens), score))
            self._pending[key] = task
            task.add_done_callback(lambda _t: self._pending.pop(key, None))
        return await asyncio.shield(task)  # a caller that goes away leaves the analysis to the others

    async def close(self) -> None:
        """The app ends: the analyses being made are cancelled and awaited (a solver thread running finishes
        its budget on its own; nothing is cached from it)."""
        for task in list(self._pending.values()):
            await end(task)

    async def _make(self, key: str, code: GameCode, tokens: tuple[str, ...], score: int) -> dict[str, Any]:
        s = self.settings
        async with self._slots:
            result = await asyncio.to_thread(
                analyse,
                code,
                tokens,
                score,
                budget_s=s.budget_s,
                clock=time.thread_time,
                max_states=s.max_states,
            )
        self.computed += 1
        await self.redis.set(key, json.dumps({"version": VERSION, "analysis": result}), ex=s.cache_ttl_s)
        return result
