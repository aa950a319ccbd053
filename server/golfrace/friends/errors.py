"""Refusals of friends requests; each carries a stable code of ``errors.ErrorCode``."""

from __future__ import annotations

from ..engine.errors import GolfError


class FriendError(GolfError):
    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message, **params)
        self.code = code


FRIEND_ERROR_CODES = (
    "no_such_player",  # no account has that username (or that seat holds no account, or its race is on)
    "own_account",  # one cannot follow, block or challenge oneself
    "too_many_friends",  # the following or blocked list is full (``following_max``, ``blocked_max``)
    "not_friend",  # a challenge goes to an account one follows
    "friend_offline",  # the friend has no page open now (also what a player they blocked is told)
    "challenge_gone",  # the challenge was answered, withdrawn or timed out, or is someone else's
)
