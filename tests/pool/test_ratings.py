"""Ratings (pure, then on a real Redis): openskill's Plackett–Luce on a race's order, the provisional mark,
the floor against sandbagging, established ratings unmoved by provisional accounts, bots not rated, and
the update applied once per race however often it runs."""

from __future__ import annotations

from dataclasses import replace

import redis.asyncio as aioredis

from golfrace.pool.ratings import Entrant, Rating, Ratings, rate
from golfrace.settings.pool import PoolSettings

S = PoolSettings()
ESTABLISHED = Rating(mu=25.0, sigma=2.0, races=40, peak=1500)


def test_the_winner_gains_the_loser_loses_and_uncertainty_shrinks() -> None:
    out = rate([Entrant("a", Rating()), Entrant("b", Rating())], S)
    assert out["a"].rating > 1500 > out["b"].rating
    assert out["a"].sigma < Rating().sigma and out["a"].races == 1
    assert Rating().provisional(S) and not ESTABLISHED.provisional(S)


def test_a_bot_moves_the_human_only() -> None:
    bot = Entrant("bot:5:ab", Rating(mu=25.0, sigma=1.0), bot=5)
    out = rate([bot, Entrant("h", ESTABLISHED)], S)
    assert set(out) == {"h"} and out["h"].rating < ESTABLISHED.rating
    assert out["h"].vs == {"bot:5": [0, 1]}
    won = rate([Entrant("h", ESTABLISHED), bot], S)["h"]
    assert won.rating > ESTABLISHED.rating and won.vs == {"bot:5": [1, 1]}


def test_sandbagging_losing_on_purpose_stops_at_the_floor() -> None:
    """Cheater: an established account loses race after race to get weak opponents, then wins big."""
    me = Rating(mu=30.0, sigma=2.0, races=40, peak=1800)
    weak = Entrant("w", Rating(mu=15.0, sigma=1.0), bot=1)
    for _ in range(60):
        me = rate([weak, Entrant("me", me)], S)["me"]
    assert me.rating >= 1800 - S.rating_floor_gap
    assert me.rating <= 1800 - S.rating_floor_gap + 2  # it did fall, down to the floor
    assert me.floor(S) == 1500 and me.vs == {"bot:1": [0, 60]}


def test_a_provisional_account_neither_feeds_nor_drains_an_established_one() -> None:
    """Cheater: fresh second accounts lose on purpose to an established one (or beat it) to move its
    rating; an established rating counts only established humans and bots."""
    fresh = Entrant("fresh", Rating())
    out = rate([Entrant("main", ESTABLISHED), fresh], S)
    assert out["main"].mu == ESTABLISHED.mu and out["main"].races == 41
    assert out["fresh"].rating < 1500  # the fresh account itself is rated from everyone
    other = Entrant("other", replace(ESTABLISHED, mu=26.0))
    three = rate([Entrant("main", ESTABLISHED), fresh, other], S)
    two = rate([Entrant("main", ESTABLISHED), other], S)
    assert three["main"].mu == two["main"].mu  # the fresh account is as if not there


async def test_a_race_is_applied_once_with_its_history_and_board(rds: aioredis.Redis) -> None:
    ratings = Ratings(rds, S)
    changes = rate([Entrant("pa", ESTABLISHED), Entrant("pb", ESTABLISHED)], S)
    stored, held = await ratings.computed("R1", changes)
    later = rate([Entrant("pb", ESTABLISHED), Entrant("pa", ESTABLISHED)], S)
    again = await ratings.computed("R1", later, {"pa": {"game": "R1-1", "reason": "too_fast"}})
    assert again == (stored, held) == (changes, {})  # another instance's second run: the first decision
    for _ in range(3):
        await ratings.apply("R1", "easy", stored, 1000)
    a = await ratings.get("pa", "easy")
    assert a == changes["pa"]
    history = await ratings.history("pa", "easy")
    assert [(p["race"], p["delta"]) for p in history] == [("R1", a.rating - ESTABLISHED.rating)]
    assert await ratings.change_in("pb", "R1", "easy") is not None
    assert [p for p, _ in await ratings.board("easy", 10)] == ["pa", "pb"]
    assert await rds.ttl("rating:{pa}") > 0  # every key expires (tests/server/test_keyspace.py)


async def test_a_held_race_changes_no_rating_until_cleared(rds: aioredis.Redis) -> None:
    ratings = Ratings(rds, S)
    changes = rate([Entrant("pa", ESTABLISHED), Entrant("pb", ESTABLISHED)], S)
    await ratings.hold("R2", "classic", changes, 1000)
    assert await ratings.get("pa", "classic") == Rating()
    assert await ratings.held("R2")
    assert await ratings.clear("R2", 2000)
    assert await ratings.get("pa", "classic") == changes["pa"]
    assert not await ratings.clear("R2", 3000)


async def test_a_refused_race_never_changes_a_rating_nor_is_cleared_or_held_again(
    rds: aioredis.Redis,
) -> None:
    ratings = Ratings(rds, S)
    changes = rate([Entrant("pa", ESTABLISHED), Entrant("pb", ESTABLISHED)], S)
    held = {"pa": {"game": "R3-1", "reason": "pending"}}
    await ratings.hold("R3", "easy", changes, 1000, held)
    assert await ratings.holds("R3") == held and await ratings.state("R3") == "held"
    assert await rds.zscore("pool:review", "R3") == 1000
    assert await ratings.waiting(10) == ["R3"]  # a knowledge verdict awaited: swept until it comes
    for key in ("rating:hold:{R3}", "pool:review", "pool:review:wait"):
        assert await rds.ttl(key) > 0, key  # every key expires (tests/server/test_keyspace.py)
    assert await ratings.refuse("R3")
    assert not await ratings.clear("R3", 2000)
    await ratings.hold("R3", "easy", changes, 3000, held)  # the aftermath again: the refusal stands
    assert await ratings.state("R3") == "refused" and not await ratings.held("R3")
    assert await rds.zscore("pool:review", "R3") is None and await ratings.waiting(10) == []
    assert await ratings.get("pa", "easy") == Rating() and await ratings.history("pa", "easy") == []
