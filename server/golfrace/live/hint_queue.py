"""Hints served from a bounded queue with a CPU share of their own (issue 19.4).

The solver is pure Python: run in threads of the server's process it holds the GIL that the event loop needs
too, and 40 connections asking hints made a bystander's moves 15–28× slower. Here every hint of the process
goes through one ``HintQueue``: at most ``HintSettings.workers`` are computed at once, each in a worker
process (``hint_worker.py``) running ``nice`` steps below the server, so the operating system gives the
server the CPU first; at most ``queue`` more wait, and one more is refused at once (``hint_busy``, reason
``queue_full``, with ``retry_ms``). One player has at most ``per_player`` hints waiting or being computed,
whichever connection asked (``hint_busy``, reason ``player``); each network pays a token of its ``hint``
bucket per hint (``limits.py``: ``rate_limited``).
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from golfrace.engine import Game
from golfrace.engine.actions import Action
from golfrace.settings import HintSettings

from .hint_worker import lower_priority, think


class HintRefused(Exception):
    """Why a hint was not queued: ``reason`` is ``queue_full`` or ``player``."""

    def __init__(self, reason: str, retry_ms: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_ms = retry_ms


class HintQueue:
    def __init__(self, settings: HintSettings) -> None:
        self.settings = settings
        self._slots = asyncio.Semaphore(settings.workers)
        self._pool: ProcessPoolExecutor | None = None
        self.queued = 0
        """Hints waiting or being computed."""
        self.players: Counter[str] = Counter()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.settings.workers,
                mp_context=multiprocessing.get_context("spawn"),  # no fork of a threaded server
                initializer=lower_priority,
                initargs=(self.settings.nice,),
            )
        return self._pool

    def admit(self, player: str) -> None:
        """Take a place for ``player``'s hint, or raise ``HintRefused``; ``run`` then frees it."""
        s = self.settings
        retry_ms = int(s.max_seconds * 1000)
        if self.players[player] >= s.per_player:
            raise HintRefused("player", retry_ms)
        if self.queued >= s.workers + s.queue:
            raise HintRefused("queue_full", retry_ms * (1 + self.queued // s.workers))
        self.queued += 1
        self.players[player] += 1

    async def run(self, player: str, game: Game) -> tuple[Action | None, bool | None, int | None]:
        """The hint of an admitted request, computed in a worker process when a slot is free."""
        try:
            async with self._slots:
                loop = asyncio.get_running_loop()
                try:
                    return await loop.run_in_executor(self._executor(), think, game, self.settings)
                except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool next time
                    self._pool = None
                    raise
        finally:
            self.release(player)

    def release(self, player: str) -> None:
        """Free an admitted place (``run`` does it when the hint is done)."""
        self.queued -= 1
        self.players[player] -= 1
        if self.players[player] <= 0:
            del self.players[player]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
