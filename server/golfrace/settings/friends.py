"""Named limits of friends, with their units; ``GOLFRACE_FRIEND_<FIELD>`` sets any of them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import PositiveFloat, PositiveInt

from golfrace.settings.env import env_values


@dataclass(frozen=True, slots=True)
class FriendSettings:
    # --- the lists ---------------------------------------------------------------------------------------
    following_max: PositiveInt = 200
    """Accounts one account may follow (each shown with its presence and on the friends' daily board: one
    Redis read apiece, so the list stays bounded)."""
    blocked_max: PositiveInt = 500
    """Accounts one account may block."""

    # --- what a follow and a challenge cost (token buckets in Redis, as ``limits.py``'s) -------------------
    follow_burst: PositiveInt = 20
    """Follows and blocks one account may make at once (someone adding their class after a game)."""
    follow_per_hour: PositiveFloat = 120.0
    """Follows and blocks one account may make per hour after its burst: a script walking the usernames to
    learn who is online gets two a minute."""
    follow_net_burst: PositiveInt = 60
    """Follows and blocks one client network (IPv4 address, IPv6 /64) may make at once, over all its accounts:
    a family or a school behind one address."""
    follow_net_per_hour: PositiveFloat = 600.0
    """Follows and blocks one client network may make per hour after its burst."""
    challenge_burst: PositiveInt = 5
    """Challenges one account may send at once."""
    challenge_per_hour: PositiveFloat = 60.0
    """Challenges one account may send per hour after its burst: one a minute, a friend is not spammed."""
    challenge_net_burst: PositiveInt = 20
    """Challenges one client network may send at once, over all its accounts."""
    challenge_net_per_hour: PositiveFloat = 240.0
    """Challenges one client network may send per hour after its burst."""

    list_every_ms: PositiveInt = 1_000
    """A connection's ``friends`` asked again sooner than this (ms) gets the list it got last: each list
    reads a few keys per account followed, and a page asks every 10 s."""

    # --- challenges and presence -------------------------------------------------------------------------
    challenge_ttl_s: PositiveInt = 60
    """Seconds a challenge waits for its answer; then it is gone (both pages drop the notice)."""
    presence_refresh_s: PositiveFloat = 10.0
    """Seconds between two stamps of a connection's presence (and of the races it is in): a friend's list
    is at most this late about a race joined on another instance."""
    presence_stale_s: PositiveFloat = 30.0
    """Seconds after its last stamp a connection no longer counts as online (its instance died without a
    word; a connection that closes is taken off within one ``presence_refresh_s``)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> FriendSettings:
        return cls(**env_values(cls, "GOLFRACE_FRIEND_", env))
