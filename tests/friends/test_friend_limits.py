"""What a burst of follows and challenges gets (issue 21.4: rate-limited, accounts only), on servers of their
own with small buckets, and the TTL of every friends key a session leaves in Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from fnmatch import fnmatch
from typing import Any

import pytest
import redis.asyncio as aioredis

from golfrace.friends.wire import FriendsWire
from golfrace.settings import Settings
from golfrace.store.embedded import PERMANENT_PATTERNS
from golfrace.store.friend_keys import blocked, following
from golfrace_testkit.servers import RunningServer, running_server

from .conftest import MakePal, T, ask, friend_settings

pytestmark = pytest.mark.timeout(120)
BURST, NET_BURST, CHALLENGES = 5, 8, 3
NETWORK = "127.0.0.1"


@pytest.fixture(scope="module")
async def strict(settings: Settings) -> AsyncIterator[RunningServer]:
    tight = friend_settings(
        settings,
        follow_burst=BURST,
        follow_per_hour=1.0,
        follow_net_burst=NET_BURST,
        follow_net_per_hour=1.0,
        challenge_burst=CHALLENGES,
        challenge_per_hour=1.0,
    )
    async with running_server(tight) as running:
        yield running


@pytest.fixture
async def rds(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url, socket_timeout=5)
    for kind in ("friend_follow", "friend_challenge"):  # the network's buckets: this test's alone
        await client.delete(f"limit:{{{kind}|{NETWORK}}}")
    try:
        yield client
    finally:
        for kind in ("friend_follow", "friend_challenge"):
            await client.delete(f"limit:{{{kind}|{NETWORK}}}")
        await client.aclose()


async def burst(pages: list[Any], msg: dict[str, Any], n: int, answer: str) -> list[dict[str, Any]]:
    """``n`` copies of ``msg`` sent at once, spread over ``pages``; every answer."""
    return await asyncio.gather(*(ask(pages[i % len(pages)], msg, answer) for i in range(n)))


async def test_a_burst_of_a_hundred_follows_gets_the_accounts_burst_then_the_networks(
    make_pal: MakePal, strict: RunningServer, rds: aioredis.Redis
) -> None:
    one, two, target = await make_pal(strict), await make_pal(strict), await make_pal(strict)
    pages = [await one.page() for _ in range(4)]
    answers = await burst(pages, {"t": "friend_follow", "name": target.username}, 100, "friends")
    passed = [a for a in answers if a["t"] == "friends"]
    limited = [a for a in answers if a["t"] == "error"]
    assert len(passed) == BURST, [a.get("code") for a in answers]
    assert {a["code"] for a in limited} == {"rate_limited"}
    assert all(a["params"]["kind"] == "follow" and a["params"]["retry_ms"] > 0 for a in limited)
    # a block costs the same tokens: none left for this account
    blocked = await ask(pages[0], {"t": "friend_block", "name": target.username}, "friends")
    assert blocked["code"] == "rate_limited"
    # a second account of the same network gets what the network has left
    others = [await two.page() for _ in range(2)]
    answers = await burst(others, {"t": "friend_follow", "name": target.username}, 100, "friends")
    assert len([a for a in answers if a["t"] == "friends"]) == NET_BURST - BURST


async def test_a_burst_of_a_hundred_challenges_makes_one_notice(
    make_pal: MakePal, strict: RunningServer, rds: aioredis.Redis
) -> None:
    ann, bob = await make_pal(strict), await make_pal(strict)
    pages = [await ann.page() for _ in range(4)]
    b = await bob.page()
    follow = await ask(pages[0], {"t": "friend_follow", "name": bob.username}, "friends")
    assert follow["t"] == "friends", follow
    answers = await burst(pages, {"t": "friend_challenge", "name": bob.username}, 100, "challenge")
    sent = [a for a in answers if a["t"] == "challenge"]
    assert 1 <= len(sent) <= CHALLENGES, [a.get("code") for a in answers]
    assert len({a["challenge"] for a in sent}) == 1  # one challenge, however many asked at once
    assert {a["code"] for a in answers if a["t"] == "error"} == {"rate_limited"}
    await b.expect("challenge", T)
    await b.ping()
    assert len([f for f in b.frames if f.get("t") == "challenge"]) == 1


async def test_every_friends_key_but_the_lists_expires(
    make_pal: MakePal, fr_server: RunningServer, rds: aioredis.Redis
) -> None:
    ann, bob = await make_pal(), await make_pal()
    a, b = await ann.page(), await bob.page()
    await ask(a, {"t": "friend_follow", "name": bob.username}, "friends")
    await ask(b, {"t": "friend_block", "name": ann.username}, "friends")
    await ask(b, {"t": "friend_unblock", "name": ann.username}, "friends")
    sent = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
    assert sent["t"] == "challenge", sent
    found = []
    for pattern in (f"fr:{{{ann.player}}}*", f"fr:{{{bob.player}}}*", "frch:*", "limit:{friend_*"):
        async for key in rds.scan_iter(match=pattern):
            name = key.decode()
            found.append(name)
            ttl = await rds.ttl(key)
            if any(fnmatch(name, p) for p in PERMANENT_PATTERNS):
                assert name.endswith((":out", ":blk")), name
            else:
                assert ttl > 0, (name, ttl)
    assert f"fr:{{{ann.player}}}:out" in found and f"fr:{{{ann.player}}}:on" in found
    assert any(name.startswith("frch:") for name in found)
    assert any(name.startswith(f"fr:{{{ann.player}}}:to:") for name in found)


async def test_fifty_challenges_at_once_without_a_limit_still_make_one(
    make_pal: MakePal, fr_server: RunningServer
) -> None:
    """The pair's one pending challenge holds by itself (a ``SET NX`` on a challenge already written), not
    only through the rate limit."""
    ann, bob = await make_pal(), await make_pal()
    pages = [await ann.page() for _ in range(5)]
    b = await bob.page()
    await ask(pages[0], {"t": "friend_follow", "name": bob.username}, "friends")
    answers = await burst(pages, {"t": "friend_challenge", "name": bob.username}, 50, "challenge")
    assert {a["t"] for a in answers} == {"challenge"}, [a for a in answers if a["t"] == "error"][:3]
    assert len({a["challenge"] for a in answers}) == 1
    await b.expect("challenge", T)
    await b.ping()
    notices = [f for f in b.frames if f.get("t") == "challenge"]
    assert len(notices) == 1, notices


async def test_eight_answers_racing_in_one_process_start_one_race(
    make_pal: MakePal, fr_server: RunningServer
) -> None:
    """The answers interleave at every Redis round trip here (one event loop, no socket between): only the
    one whose ``DEL`` took the challenge starts a race."""
    ann, bob = await make_pal(), await make_pal()
    a, _ = await ann.page(), await bob.page()
    await ask(a, {"t": "friend_follow", "name": bob.username}, "friends")
    sent = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
    friends = fr_server.app.state.ctx.get(FriendsWire).friends
    me = await friends.accounts.person(bob.player)
    results = await asyncio.gather(
        *(friends.answer(me, sent["challenge"], True) for _ in range(8)), return_exceptions=True
    )
    started = [r for r in results if isinstance(r, dict)]
    assert len(started) == 1 and started[0]["outcome"] == "accepted", results
    assert {getattr(r, "code", None) for r in results if not isinstance(r, dict)} == {"challenge_gone"}


async def test_thirty_lists_asked_at_once_read_redis_about_once(
    make_pal: MakePal, fr_server: RunningServer, rds: aioredis.Redis
) -> None:
    """A page asking for its list in a loop gets the list of the last second again (``list_every_ms``),
    not a fresh read of every followed account each time."""
    ann = await make_pal()
    a = await ann.page()
    for _ in range(3):
        await ask(a, {"t": "friend_follow", "name": (await make_pal()).username}, "friends")

    # the reads of ann's own lists, seen by a MONITOR (the pool's waves and other servers on this Redis read
    # sets of their own meanwhile: a count of every SMEMBERS would count them too)
    marker = f"test:{ann.player}:marker"
    watched = {following(ann.player), blocked(ann.player), marker}
    seen: list[str] = []
    listening, marked = asyncio.Event(), asyncio.Event()

    async def watch() -> None:
        async with rds.monitor() as monitor:
            listening.set()
            async for command in monitor.listen():
                words = str(command.get("command", "")).split()
                if len(words) > 1 and words[0].upper() == "SMEMBERS" and words[1] in watched:
                    if words[1] == marker:
                        marked.set()
                        return
                    seen.append(words[1])

    watcher = asyncio.create_task(watch())
    await asyncio.wait_for(listening.wait(), T)
    answers = await burst([a], {"t": "friends"}, 30, "friends")
    assert all(len(x["following"]) == 3 for x in answers), answers
    await rds.smembers(marker)  # sent after the burst's answers: once it is seen, every read before it was
    await asyncio.wait_for(marked.wait(), T)
    await watcher
    assert len(seen) <= 4, seen  # without the cache: 60 (following and blocked, each time)


async def test_a_challenge_left_unanswered_runs_out_and_a_new_one_can_follow(
    make_pal: MakePal, settings: Settings
) -> None:
    async with running_server(friend_settings(settings, challenge_ttl_s=1)) as brief:
        ann, bob = await make_pal(brief), await make_pal(brief)
        a, b = await ann.page(), await bob.page()
        await ask(a, {"t": "friend_follow", "name": bob.username}, "friends")
        first = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
        assert 0 < first["expires_at"] - first["now"] <= 1000
        deadline = asyncio.get_running_loop().time() + T
        while True:  # the same challenge while it waits, a new one once Redis has let it expire
            again = await ask(a, {"t": "friend_challenge", "name": bob.username}, "challenge")
            if again["challenge"] != first["challenge"]:
                break
            assert asyncio.get_running_loop().time() < deadline, again
            await asyncio.sleep(0.1)
        late = await ask(b, {"t": "challenge_answer", "challenge": first["challenge"], "accept": True}, "x")
        assert late["code"] == "challenge_gone"
        for page in (a, b):
            await page.close()
