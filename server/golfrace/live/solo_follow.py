"""What follows the last move of a Play game, written whatever fails (issue 20.15): the player's list of
open games (``player:{P}:games``), history (``hist:{P}``) and best solo games (``sb:{P}``, the ghosts of
casual play) live on the player's slot, the game on its own,
so on a Redis Cluster the player's shard may be in a failover while the game's takes the move. The move is
acknowledged at once; what follows it is retried in a task (``moves._SoloFollow``) and, when its first
attempt did not succeed within ``solo_end_wait_s``, kept durably as a "to follow" record first, which every
instance (a restarted one too) completes at start-up and every ``SWEEP_S``.

Keys ``follow:{0}`` … ``follow:{15}``: sorted sets of ``"<game id>|<owner>|<ended ms>"`` scored by the end
(ms). Sixteen, spread over the hash slots, so that a record finds a shard that takes it (tried in turn,
``NOTE_TIMEOUT_S`` each, ``NOTE_BUDGET_S`` in all); each expires ``player_ttl`` after its last record."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from golfrace.engine import Status
from golfrace.store.history import Finished, History
from golfrace.store.keys import follow_bucket, seat_of
from golfrace.store.solo_bests import SoloBest, SoloBests

log = logging.getLogger("golfrace.live.handlers")

BUCKETS = 16
NOTE_TIMEOUT_S = 0.1
NOTE_BUDGET_S = 0.5
"""Each bucket gets ``NOTE_TIMEOUT_S`` to take a record, all of them together ``NOTE_BUDGET_S``: the ack waits
for no more (on three shards, three tries reach a live one)."""
SWEEP_S = 1.0
"""How often each instance completes the records that are due."""
GRACE_MS = 2_000
"""A record is due this long after the end (the move's own task normally completes it by then)."""
BATCH = 50


bucket_key = follow_bucket


def member(game_id: str, owner: str, ended: int) -> str:
    return f"{game_id}|{owner}|{ended}"


async def follow(
    ctx: Any, game_id: str, owner: str, playing: bool, game: Any, created: int, ended: int
) -> None:
    """The writes that follow a status change (each one a second run leaves as it is); raises on failure."""
    await ctx.store.set_open(owner, game_id, playing)
    if not playing and seat_of(game_id) is None:
        finished = Finished.of_solo(game_id, game, created, ended)
        await History(ctx.redis, ctx.settings.accounts, ctx.store.batch).record(owner, finished)
        best = SoloBest(game_id, finished.score, finished.elapsed, finished.moves, ended)
        bests = SoloBests(ctx.redis, ctx.settings.finished_game_ttl, ctx.store.batch)
        await bests.note(owner, str(game.code), best)


async def note(ctx: Any, game_id: str, owner: str, ended: int) -> str | None:
    """Keep the record in the first bucket whose shard takes it; its key, or None when none did."""
    entry = member(game_id, owner, ended)
    loop = asyncio.get_running_loop()
    stop = loop.time() + NOTE_BUDGET_S
    for n in range(BUCKETS):
        if loop.time() >= stop:
            break
        key = bucket_key(n)
        try:
            async with asyncio.timeout(NOTE_TIMEOUT_S):
                await ctx.store.batch.transaction(
                    [("ZADD", key, ended, entry), ("EXPIRE", key, ctx.settings.player_ttl)]
                )
            return key
        except Exception:  # this bucket's shard refuses it (a failover): the next bucket
            continue
    log.error("after the end of %s: no shard took its record", game_id)
    return None


async def done(ctx: Any, key: str | None, game_id: str, owner: str, ended: int) -> None:
    if key is not None:
        with contextlib.suppress(Exception):  # left behind: the sweep finds the work done and drops it
            await ctx.store.batch.call("ZREM", key, member(game_id, owner, ended))


async def sweep_once(ctx: Any) -> int:
    """Complete the records that are due; returns how many were completed."""
    now = ctx.clock()
    completed = 0
    keys = [bucket_key(n) for n in range(BUCKETS)]
    batch = ctx.store.batch  # every bucket in one batch (one write), each reply or failure its own
    reads = [batch.call("ZRANGEBYSCORE", key, "-inf", now - GRACE_MS, "LIMIT", 0, BATCH) for key in keys]
    for key, due in zip(keys, await asyncio.gather(*reads, return_exceptions=True), strict=True):
        if isinstance(due, BaseException):  # this bucket's shard is away: the next sweep
            continue
        for raw in due:
            entry = raw.decode() if isinstance(raw, bytes) else str(raw)
            game_id, owner, ended = entry.rsplit("|", 2)
            try:
                stored = await ctx.store.load(game_id)
                if stored is not None:
                    playing = stored.game.status is Status.PLAYING
                    await follow(ctx, game_id, owner, playing, stored.game, int(stored.created), int(ended))
                await ctx.redis.zrem(key, entry)
                completed += 1
            except Exception as exc:
                log.warning("completing what follows the end of %s failed: %r", game_id, exc)
    return completed


async def sweep(ctx: Any) -> None:
    """From start-up on, every ``SWEEP_S``: ``sweep_once``."""
    while True:
        with contextlib.suppress(Exception):
            await sweep_once(ctx)
        await asyncio.sleep(SWEEP_S)
