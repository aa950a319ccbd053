"""Bot seats of quick races, driven by the server at a human pace.

A bot is an ordinary racer whose player id is ``bot:<strength>:<hex>`` (``races.racer.bot_strength``): its
seat is an ordinary stored game, moved through the same commit as a human's (the race gate included), so it
can do nothing a human cannot. What it may look at is what its player would see: the free cards, the
discard, how many cards the stock holds — never the stock's order.

The policy and the pace are pure (``policy.py``, shared with the command line's bot); ``BotDriver`` plays a
bot seat of a race until its game or the race is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from typing import TYPE_CHECKING, Any

from golfrace.live import metrics
from golfrace.store.commit import Outcome
from golfrace.store.keys import channel
from golfrace.wire.ids import seat_id
from golfrace.wire.views import action_name, diff

from ..engine import Action, Refusal, Status, token
from ..races.racer import BOT_PREFIX
from ..races.timers import pause
from .policy import choose_bot_move, pace_ms

if TYPE_CHECKING:
    from golfrace.live.services import Context

    from ..races.service import RaceService

log = logging.getLogger("golfrace.pool")


def bot_player(strength: int) -> str:
    return f"{BOT_PREFIX}{strength}:{secrets.token_hex(6)}"


class BotDriver:
    """Plays the bot seats of races started on this instance (``start``), one task per seat."""

    def __init__(self, ctx: Context, service: RaceService, median_ms: float) -> None:
        self.ctx = ctx
        self.service = service
        self.median_ms = median_ms
        self.tasks: set[asyncio.Task[None]] = set()

    def start(self, race_id: str, seat: int, player: str, strength: int, starts_at: int) -> None:
        task = asyncio.create_task(self._play(race_id, seat, player, strength, starts_at))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _play(self, race_id: str, seat: int, player: str, strength: int, starts_at: int) -> None:
        rng = random.Random(secrets.randbits(64))
        game_id = seat_id(race_id, seat)
        stream = f"{player}/bot"
        seq = 0
        try:
            await pause(self.service.clock, max(0, starts_at - self.service.clock()) / 1000)
            while True:
                await pause(self.service.clock, pace_ms(strength, rng, self.median_ms) / 1000)
                stored = await self.ctx.store.load(game_id)
                if stored is None or stored.game.status is not Status.PLAYING:
                    return
                race = await self.service.peek(race_id)
                if race is None or race.ended_at is not None:
                    return
                racer = race.racer(player)
                if racer is None or racer.done:
                    return
                seq += 1
                action = await asyncio.to_thread(choose_bot_move, stored.game, strength, rng)
                if not await self._move(stored, stream, seq, action):
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot seat %s stopped", game_id)

    async def _move(self, stored: Any, stream: str, seq: int, action: Action) -> bool:
        """One move through the seat's commit (as ``moves.on_act`` does for a person); False: stop."""
        store = self.ctx.store
        seats = self.ctx.seats
        if seats is None:  # the pool is installed after the races, whose start-up sets it
            return False
        for _ in range(self.ctx.settings.cas_retries):
            before = stored.game
            try:
                after = before.apply(action)
            except Refusal as refusal:
                log.warning("bot seat %s: %s refused: %s", stored.id, action, refusal.code)
                return False
            answer = {"t": "ack", "game": stored.id, "seq": seq, "v": stored.v + 1}
            change = diff(stored.id, stored.v, before, after, action, stored.hidden, stored.meta)
            now = store.clock()
            gate, also = await seats.prepare(stored, after, change, now)
            result = await store.commit(
                stored, stream, seq, answer, after, change, f"{token(action)} {now}", gate=gate, also=also
            )
            if result.outcome is Outcome.REGATE:
                seats.stale(stored)
                continue
            if result.outcome is Outcome.CONFLICT:
                loaded = await store.load(stored.id)
                if loaded is None:
                    return False
                stored = loaded
                continue
            if result.outcome is not Outcome.OK:
                return False  # the gate refused (race over, out), or the game is gone
            store.advanced(stored, after)
            metrics.labelled(metrics.MOVES, action_name(action)).inc()
            self.ctx.hub.deliver_local(channel(stored.id), change, result.diff)
            changed = (before.status is Status.PLAYING) != (after.status is Status.PLAYING)
            followed = seats.committed(store.cached(stored.id) or stored, changed)
            if also is not None:
                self.ctx.hub.deliver_local(also.channel, also.message, also.raw)
            if followed is not None:
                with contextlib.suppress(Exception):
                    await followed
            return True
        return False

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(BaseException):
                await task
