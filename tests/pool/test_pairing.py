"""The pairing of one wave (pure): groups of 2–4 by rating, the gap widening per wave waited, queues kept
apart, never two accounts of one network in a ranked race, bots for a seeker who waited."""

from __future__ import annotations

import random

import pytest

from golfrace.pool.pairing import Seeker, allowed_gap, pair
from golfrace.settings.pool import PoolSettings

S = PoolSettings()
NOW = 1_000_000_000
WAVE_MS = int(S.wave_interval_s * 1000)


def seeker(
    player: str, rating: int, network: str | None = None, queue: str = "ranked", waited: int = 0
) -> Seeker:
    return Seeker(player, rating, network or f"10.0.0.{player}", queue, NOW - waited * WAVE_MS, stamp=NOW)


def groups_of(seekers: list[Seeker], now: int = NOW) -> list[set[str]]:
    return [{s.player for s in g.seekers} for g in pair(seekers, now, S).groups if not g.bots]


@pytest.mark.parametrize(
    ("waves", "gap"),
    [(0, 100), (1, 150), (4, 300), (10, 600), (100, 600)],
)
def test_the_allowed_gap_widens_with_each_wave_waited_up_to_its_cap(waves: int, gap: int) -> None:
    assert allowed_gap(seeker("1", 1500, waited=waves), NOW, S) == gap


def test_close_ratings_race_far_ones_wait_until_their_gap_has_widened() -> None:
    close = [seeker("1", 1500), seeker("2", 1560)]
    far = [seeker("3", 1500), seeker("4", 1800)]
    assert groups_of(close) == [{"1", "2"}]
    assert groups_of(far) == []
    # both must accept: one who waited long is not enough while the other is new
    assert groups_of([seeker("3", 1500, waited=10), seeker("4", 1800)]) == []
    assert groups_of([seeker("3", 1500, waited=4), seeker("4", 1800, waited=4)]) == [{"3", "4"}]


def test_a_race_takes_at_most_four_and_the_rest_form_the_next() -> None:
    seekers = [seeker(str(i), 1500 + i) for i in range(1, 8)]
    groups = groups_of(seekers)
    assert [len(g) for g in groups] == [4, 3]


def test_win_trading_two_accounts_of_one_network_never_share_a_ranked_race() -> None:
    """Cheater: two accounts of one person (one network) seek at once to trade wins."""
    seekers = [seeker("a", 1500, "1.2.3.4"), seeker("b", 1510, "1.2.3.4")]
    assert groups_of(seekers) == []
    assert groups_of([*seekers, seeker("c", 1520)]) == [{"a", "c"}]
    # guests race casually: a family behind one address may race each other there
    casual = [seeker("g", 1500, "1.2.3.4", "casual"), seeker("h", 1500, "1.2.3.4", "casual")]
    assert groups_of(casual) == [{"g", "h"}]


def test_flagged_players_race_only_each_other_and_guests_only_guests() -> None:
    seekers = [
        seeker("r1", 1500),
        seeker("f1", 1500, queue="flagged"),
        seeker("g1", 1500, queue="casual"),
        seeker("r2", 1500),
        seeker("f2", 1500, queue="flagged"),
        seeker("g2", 1500, queue="casual"),
    ]
    wave = pair(seekers, NOW, S)
    assert sorted((g.queue, sorted(s.player for s in g.seekers)) for g in wave.groups) == [
        ("casual", ["g1", "g2"]),
        ("flagged", ["f1", "f2"]),
        ("ranked", ["r1", "r2"]),
    ]


def test_a_lone_seeker_gets_bots_after_the_wait_and_not_before() -> None:
    alone = seeker("1", 1500)
    assert pair([alone], NOW, S).waiting == (alone,)
    later = NOW + int(S.bot_wait_s * 1000)
    wave = pair([alone], later, S)
    assert [(g.seekers, g.bots) for g in wave.groups] == [((alone,), S.bot_racers)]


def test_seekers_whose_instance_stopped_stamping_are_dropped() -> None:
    gone = Seeker("1", 1500, "n1", "ranked", NOW, stamp=NOW - int(S.seeker_stale_s * 1000) - 1)
    wave = pair([gone, seeker("2", 1500)], NOW, S)
    assert wave.stale == (gone,) and not wave.groups


def test_every_group_respects_every_members_gap_and_networks() -> None:
    rng = random.Random(7)
    seekers = [
        seeker(str(i), int(rng.gauss(1500, 300)), f"n{rng.randrange(300)}", waited=rng.randrange(12))
        for i in range(2000)
    ]
    wave = pair(seekers, NOW, S)
    seen: set[str] = set()
    for group in wave.groups:
        members = group.seekers
        assert 2 <= len(members) <= S.race_max or group.bots
        assert len({s.network for s in members}) == len(members)
        assert group.gap <= min(allowed_gap(s, NOW, S) for s in members)
        assert not seen & {s.player for s in members}
        seen |= {s.player for s in members}
    assert len(seen) + len(wave.waiting) == len(seekers)
