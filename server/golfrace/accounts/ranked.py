"""The hooks ranked play and the game paths call: who may appear on a public board, and what a finished game
adds to a player's history. Small on purpose: the race code calls one function at each point.

- ``public_name(redis, player)``: the name to show on a public leaderboard, or None when ``player`` is no
  account (anonymous results stay off every public board; personal bests and the history still count).
- ``note_board(redis, player, board)``: remember that an account has an entry on ``board`` (deletion
  renames it to a deleted player's).
- ``solo_over(redis, stored, game, now)`` / ``race_over(redis, record, verified)``: record a finished game.
"""

from __future__ import annotations

from typing import Any

from . import keys
from .history import Finished, History
from .settings import AccountSettings


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def public_name(redis: Any, player: str) -> str | None:
    """The account's display name (its username when empty) for public boards; None for a non-account."""
    username, display = await redis.hmget(keys.account(player), ["username", "display"])
    if username is None:
        return None
    return _text(display) if display else _text(username)


async def note_board(redis: Any, player: str, board: str) -> None:
    await redis.sadd(keys.boards(player), board)


async def _record(redis: Any, settings: AccountSettings, player: str, game: Finished) -> None:
    account = bool(await redis.exists(keys.account(player)))
    await History(redis, settings).record(player, game, account)


def _is_race_game(game_id: str, meta: dict[str, Any]) -> bool:
    race, sep, seat = game_id.rpartition("-")
    return bool(meta.get("race")) or (bool(sep) and race.startswith("r") and seat.isdigit())


async def solo_over(redis: Any, settings: AccountSettings, stored: Any, game: Any, now: int) -> None:
    """A solo game's move ended it (``stored`` as loaded before the move, ``game`` the engine value after).
    Race seats are left to ``race_over``, which knows the race's clock."""
    if _is_race_game(stored.id, stored.meta):
        return
    finished = Finished(
        stored.id,
        "solo",
        game.code.rules.value,
        game.status.value,
        int(game.score),
        int(game.moves),
        max(0, now - int(stored.created)),
        now,
    )
    await _record(redis, settings, stored.owner, finished)


async def race_over(redis: Any, settings: AccountSettings, record: Any, verified: Any) -> None:
    """A race (or daily attempt) ended with this racer's ``GameRecord`` and its replay ``Verified``."""
    from ..engine import GameCode

    finished = Finished(
        record.game,
        "daily" if record.daily else "race",
        GameCode.parse(record.code).rules.value,
        record.status,
        int(verified.score),
        int(verified.moves),
        int(record.elapsed),
        int(record.finished_at),
        bool(record.ranked),
        record.race,
        record.daily,
    )
    await _record(redis, settings, record.player, finished)
