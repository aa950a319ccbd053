"""The hub (``store/pubsub.py``) over a real Redis: a subscription is confirmed before ``subscribe`` returns,
messages reach every local subscriber of the channel, a channel nobody here follows any more is left in
Redis too, this process's own commits are not delivered twice, and ``stop`` ends the listening task."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from golfrace.store.commit import ORIGIN_LEN, ORIGIN_MARK
from golfrace.store.pubsub import Envelope, Hub, classic_hub
from golfrace.wire.protocol import pack

from ..waiting import until, until_async


class Inbox:
    """A subscriber that keeps the messages delivered to it."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def deliver(self, envelope: Envelope) -> None:
        self.messages.append(envelope.message)


@pytest.fixture
async def hub(redis_url: str) -> AsyncIterator[tuple[Hub, aioredis.Redis]]:
    redis = aioredis.Redis.from_url(redis_url)
    origin = ORIGIN_MARK + secrets.token_bytes(ORIGIN_LEN - 1)
    made = classic_hub(redis, redis_url, origin)
    await made.start()
    try:
        yield made, redis
    finally:
        await made.stop()
        await redis.aclose()


def channel() -> str:
    return f"test:{{{secrets.token_hex(6)}}}"


async def test_every_subscriber_of_a_channel_gets_what_is_published(hub: tuple[Hub, aioredis.Redis]) -> None:
    made, redis = hub
    name, other = channel(), channel()
    a, b, elsewhere = Inbox(), Inbox(), Inbox()
    await made.subscribe(name, a)
    await made.subscribe(name, b)
    await made.subscribe(other, elsewhere)
    assert name in made.confirmed  # confirmed before subscribe returned: nothing published after is missed
    assert await redis.publish(name, pack({"k": "hello", "n": 1})) == 1  # one connection for the process
    await until(lambda: len(a.messages) == 1 and len(b.messages) == 1, "both subscribers got it")
    assert a.messages == [{"k": "hello", "n": 1}] and elsewhere.messages == []


async def test_the_last_subscriber_gone_leaves_the_channel_in_redis(hub: tuple[Hub, aioredis.Redis]) -> None:
    made, redis = hub
    name = channel()
    a, b = Inbox(), Inbox()
    await made.subscribe(name, a)
    await made.subscribe(name, b)
    await made.unsubscribe(name, a)
    assert name in made.wanted  # b still follows it
    await made.publish(name, {"n": 2})
    await until(lambda: b.messages == [{"n": 2}], "the one left got it")
    assert a.messages == []
    await made.unsubscribe(name, b)
    assert name not in made.wanted and name not in made.subscribers

    async def left() -> bool:  # Redis takes the UNSUBSCRIBE on the hub's own connection, in its turn
        return not dict(await redis.pubsub_numsub(name)).get(name.encode(), 0)

    await until_async(left, "Redis has nobody of this process on the channel")


async def test_this_process_own_commits_are_delivered_locally_once(hub: tuple[Hub, aioredis.Redis]) -> None:
    made, redis = hub
    name = channel()
    inbox = Inbox()
    await made.subscribe(name, inbox)
    raw = pack({"v": 1})
    made.deliver_local(name, {"v": 1}, raw)  # the commit's own delivery, at once
    assert inbox.messages == [{"v": 1}]
    await redis.publish(name, made.origin + raw)  # its echo from Redis: skipped
    elsewhere = ORIGIN_MARK + secrets.token_bytes(ORIGIN_LEN - 1)  # another process's commit
    await redis.publish(name, elsewhere + pack({"v": 2}))
    await until(lambda: len(inbox.messages) == 2, "the other process's diff")
    assert inbox.messages == [{"v": 1}, {"v": 2}]


async def test_stop_ends_the_listening_task(redis_url: str) -> None:
    redis = aioredis.Redis.from_url(redis_url)
    made = classic_hub(redis, redis_url)
    await made.start()
    await made.subscribe(channel(), Inbox())
    listening = made.side._task  # type: ignore[attr-defined]
    assert listening is not None and not listening.done()
    await made.stop()
    assert listening.done()
    await redis.aclose()
