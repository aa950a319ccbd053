"""The ghosts of casual play: a player's finished solo games (``store.solo_bests``: their best on each deal).

Who may race one (privacy: a solo game is no public record):

- its owner (``mine``);
- a **friend**: an account that follows the owner and is followed back (and is not blocked by the owner),
  and only on a deal the friend has finished a game of themselves (``has_played``), so a ghost never
  shows a deal to someone who did not have it.

Fair play: a solo game dealt sealed (the weekend's daily course holes, ``meta.sealed``: when its code is
public) is nobody's ghost before then, its owner's included (``code_hidden``); a race seat's game is never a
solo ghost (its record is the race's, under the replay's gate); a game still being played is none either.
A ghost race is itself a casual solo game (``new`` of the code): it never enters a board.
"""

from __future__ import annotations

from typing import Any

from golfrace.live.services import Context
from golfrace.races import leaderboard as lb
from golfrace.races.errors import RaceError
from golfrace.races.replay import GameRecord, solo_record
from golfrace.races.service import RaceService
from golfrace.store import friend_keys
from golfrace.store import public_names as ranked
from golfrace.store.keys import player_key, seat_of
from golfrace.store.solo_bests import SoloBest, SoloBests

from ..engine import GameCode, Status


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def bests(ctx: Context) -> SoloBests:
    return SoloBests(ctx.redis, ctx.settings.finished_game_ttl)


async def name_of(ctx: Context, player: str) -> tuple[str, str]:
    """(the name shown, the account's username or "") of ``player``."""
    names = await ranked.public_names(ctx.redis, player)
    if names is not None:
        return names
    raw = await ctx.redis.hget(player_key(player), "name")
    return ("" if raw is None else _text(raw)), ""


async def has_played(ctx: Context, service: RaceService, player: str, code: str) -> bool:
    """Whether ``player`` finished a game of ``code`` (a solo game, or a ranked one on their bests)."""
    if await bests(ctx).of(player, code) is not None:
        return True
    return await service.boards.rank_of(lb.bests_board(player), code) is not None


async def friends(ctx: Context, player: str) -> list[str]:
    """The accounts ``player`` follows that follow ``player`` back and have not blocked them."""
    redis = ctx.redis
    out = []
    for friend in sorted(_text(m) for m in await redis.smembers(friend_keys.following(player))):
        if await redis.sismember(friend_keys.following(friend), player) and not await redis.sismember(
            friend_keys.blocked(friend), player
        ):
            out.append(friend)
    return out


async def may_see(ctx: Context, service: RaceService, owner: str, viewer: str | None, code: str) -> bool:
    if viewer is None:
        return False
    if viewer == owner:
        return True
    return owner in await friends(ctx, viewer) and await has_played(ctx, service, viewer, code)


async def ghost_record(ctx: Context, service: RaceService, game_id: str, viewer: str | None) -> GameRecord:
    """The record of a finished solo game that ``viewer`` may race, or ``RaceError``: ``game_not_found`` (no
    such solo game, or not one ``viewer`` may see), ``game_not_ended``, ``code_hidden`` (sealed, still on)."""
    stored = await ctx.store.load(game_id) if seat_of(game_id) is None else None
    if stored is None or "race" in stored.meta:
        raise RaceError("game_not_found", "no record of this game (never existed, or it expired)")
    if not await may_see(ctx, service, stored.owner, viewer, stored.code or str(stored.game.code)):
        raise RaceError("game_not_found", "no record of this game (never existed, or it expired)")
    if stored.game.status is Status.PLAYING:
        raise RaceError("game_not_ended", "this game is still being played")
    sealed = stored.meta.get("sealed")
    if sealed is not None and ctx.clock() < int(sealed):
        raise RaceError("code_hidden", "the daily course of that day is still on")
    name, _username = await name_of(ctx, stored.owner)
    return solo_record(stored, await ctx.store.log(game_id), name)


def listed(kind: str, best: SoloBest, names: tuple[str, str]) -> dict[str, Any]:
    """A solo ghost as the listing tells it (``routes._pick``'s fields), marked ``casual``."""
    return {
        "kind": kind,
        "game": best.game,
        "name": names[0],
        "username": names[1],
        "score": best.score,
        "elapsed": best.elapsed,
        "moves": best.moves,
        "stopped": False,  # a solo best is a game played to its end
        "casual": True,
    }


async def friend_best(ctx: Context, player: str, code: GameCode) -> tuple[str, SoloBest] | None:
    """The best solo game on ``code`` of ``player``'s friends (``friends``): (the friend, the game)."""
    found = []
    for friend in await friends(ctx, player):
        best = await bests(ctx).of(friend, str(code))
        if best is not None:
            found.append((best.sort_key(), friend, best))
    if not found:
        return None
    _key, friend, best = min(found)
    return friend, best
