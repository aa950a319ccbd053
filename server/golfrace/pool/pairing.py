"""Who races whom in one wave of a pool: pure (no Redis, no clock of its own).

The idea is lichess's pool (``lila/modules/pool``): seekers gather between waves; a wave pairs those whose
ratings are close, and each wave a seeker has waited widens the gap they accept. Here a race takes 2 to
``race_max`` seekers, so a wave builds groups rather than pairs:

- seekers are split by **queue**: ``ranked`` (accounts), ``casual`` (guests) and ``flagged`` (fair play:
  a result held for review, or an account flagged; they race only each other);
- within a queue, sorted by rating, a group starts at the lowest seeker left and takes the next ones while
  the group's whole spread (highest − lowest) is within every member's own allowed gap
  (``gap_base + gap_per_wave × waves waited``, at most ``gap_max``): both sides must accept a pairing;
- in the ranked and flagged queues, no two members of a group come from one network (win-trading between
  two of one's own accounts);
- a seeker left alone who has waited ``bot_wait_s`` gets a race with bots of their strength (``Group.bots``).

Greedy in rating order is O(n · race_max) per wave, fast enough for 10k seekers a wave (``bench/pool.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from golfrace.settings.pool import PoolSettings

QUEUES = ("ranked", "casual", "flagged")
SEPARATE_NETWORKS = frozenset({"ranked", "flagged"})


@dataclass(frozen=True, slots=True)
class Seeker:
    player: str
    rating: int
    """The rating the pool pairs by (``ratings.pairing_rating``: never below the account's floor)."""
    network: str
    queue: str
    joined_at: int
    """ms since the epoch."""
    name: str = ""
    instance: str = ""
    """The server instance holding the seeker's connection (where ``pool_found`` goes)."""
    stamp: int = 0
    """When that instance last confirmed the connection (ms)."""


@dataclass(frozen=True, slots=True)
class Group:
    seekers: tuple[Seeker, ...]
    bots: int = 0
    """Bots to seat beside the seekers (a lone seeker who waited ``bot_wait_s``)."""
    queue: str = "casual"

    @property
    def gap(self) -> int:
        ratings = [s.rating for s in self.seekers]
        return max(ratings) - min(ratings)


@dataclass(frozen=True, slots=True)
class Wave:
    groups: tuple[Group, ...]
    waiting: tuple[Seeker, ...]
    stale: tuple[Seeker, ...] = field(default=())
    """Seekers whose instance stopped stamping them: dropped from the pool."""


def allowed_gap(seeker: Seeker, now: int, settings: PoolSettings) -> int:
    waves = max(0, now - seeker.joined_at) // max(1, int(settings.wave_interval_s * 1000))
    return min(settings.gap_max, settings.gap_base + settings.gap_per_wave * waves)


def pair(seekers: Iterable[Seeker], now: int, settings: PoolSettings) -> Wave:
    """The wave at ``now``: groups to race, seekers left waiting, seekers gone stale."""
    stale_before = now - int(settings.seeker_stale_s * 1000)
    live: dict[str, list[Seeker]] = {q: [] for q in QUEUES}
    stale: list[Seeker] = []
    for s in seekers:
        if s.stamp and s.stamp < stale_before:
            stale.append(s)
        else:
            live.setdefault(s.queue, []).append(s)
    groups: list[Group] = []
    waiting: list[Seeker] = []
    for queue, members in live.items():
        formed, left = _groups(members, queue, now, settings)
        groups.extend(formed)
        for s in left:
            if now - s.joined_at >= settings.bot_wait_s * 1000 and settings.bot_racers > 0:
                groups.append(Group((s,), bots=settings.bot_racers, queue=queue))
            else:
                waiting.append(s)
    return Wave(tuple(groups), tuple(waiting), tuple(stale))


def _groups(
    members: Sequence[Seeker], queue: str, now: int, settings: PoolSettings
) -> tuple[list[Group], list[Seeker]]:
    order = sorted(members, key=lambda s: (s.rating, s.joined_at, s.player))
    gaps = {s.player: allowed_gap(s, now, settings) for s in order}
    taken: set[str] = set()
    groups: list[Group] = []
    left: list[Seeker] = []
    separate = queue in SEPARATE_NETWORKS
    for i, first in enumerate(order):
        if first.player in taken:
            continue
        group = [first]
        networks = {first.network}
        tolerance = gaps[first.player]
        for other in order[i + 1 :]:
            if len(group) >= settings.race_max:
                break
            if other.player in taken:
                continue
            spread = other.rating - first.rating  # sorted: the group's lowest is ``first``
            if spread > tolerance:
                break  # every later seeker is further still
            if spread > gaps[other.player]:
                continue  # this one does not accept the group's lowest yet; a later one may
            if separate and other.network in networks:
                continue  # fair play: never two accounts of one network in a ranked race
            group.append(other)
            networks.add(other.network)
            tolerance = min(tolerance, gaps[other.player])
        if len(group) >= settings.race_min:
            taken.update(s.player for s in group)
            groups.append(Group(tuple(group), queue=queue))
        else:
            left.append(first)
    return groups, left
