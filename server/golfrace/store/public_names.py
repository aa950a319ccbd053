"""The hooks ranked play calls: who may appear on a public board. Small on purpose: the race code calls one
function at each point (what a finished game adds to a player's history is ``history.py``'s).

- ``public_name(redis, player)``: the name to show on a public leaderboard, or None when ``player`` is no
  account (anonymous results stay off every public board; personal bests and the history still count).
- ``note_board(redis, player, board)``: remember that an account has an entry on ``board`` (deletion
  renames it to a deleted player's).
"""

from __future__ import annotations

from typing import Any

from golfrace.store import account_keys as keys


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def public_name(redis: Any, player: str) -> str | None:
    """The account's display name (its username when empty) for public boards; None for a non-account."""
    names = await public_names(redis, player)
    return None if names is None else names[0]


async def public_names(redis: Any, player: str) -> tuple[str, str] | None:
    """(the name a public board shows, the account's username: boards mark it apart from the display name,
    fair play 19.6), or None for a non-account."""
    username, display = await redis.hmget(keys.account(player), ["username", "display"])
    if username is None:
        return None
    return (_text(display) if display else _text(username)), _text(username)


async def note_board(redis: Any, player: str, board: str) -> None:
    await redis.sadd(keys.boards(player), board)
