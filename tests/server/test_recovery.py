"""Recovery from Redis trouble without losing or doubling a diff: a lost commit reply, a lost pub/sub
connection, failed subscriptions and fills, and the races between a client's own requests and the fan-out.
Each fault is injected into a real server (in-process, real Redis, real websockets)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from golfrace.settings import Settings
from golfrace.store.commit import Outcome
from golfrace.store.keys import channel, game_key
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from .helpers import WIN_CODE, WIN_MOVES, drop_first_message, fail_once

pytestmark = pytest.mark.timeout(60)
T = 10.0


@pytest.fixture
async def pair(settings: Settings) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    async with running_server(settings.with_(port=0)) as a, running_server(settings.with_(port=0)) as b:
        yield a, b


async def watched_game(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> tuple[Client, Client, Any]:
    """A player on instance A with a new game, and a watcher of it on instance B."""
    a, b = pair
    player, watcher = await make_client(a.ws), await make_client(b.ws)
    view = await player.new(WIN_CODE)
    await watcher.open(view.game, "watcher")
    return player, watcher, view


def session_of(server: RunningServer, client: Client) -> Any:
    """The server's session of ``client`` (in-process servers)."""
    return next(s for s in server.ctx.sessions if s.player == client.player)


async def until(condition: Any, timeout: float = T) -> None:
    """Wait (polling) until ``condition()`` holds; fails after ``timeout``."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def diff_versions(c: Client, game: str) -> list[int]:
    return [f["v"] for f in c.frames if f.get("t") == "diff" and f["game"] == game]


async def kill_pubsub(server: RunningServer) -> None:
    """Redis drops this server's pub/sub connection (and only that one)."""
    addr = server.ctx.hub.side.link.local_address()
    assert addr is not None
    await server.ctx.redis.execute_command("CLIENT", "KILL", "ADDR", addr)


async def test_a_commit_whose_reply_was_lost_still_reaches_every_follower(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    a, _ = pair
    player, watcher = await make_client(a.ws), await make_client(a.ws)
    view = await player.new(WIN_CODE)
    await watcher.open(view.game, "watcher")
    batcher = a.ctx.store.batch
    real = batcher._exchange
    lost = {"done": False}

    async def lose_the_reply(conn: Any, commands: list[tuple[Any, ...]], packed: list[Any]) -> list[Any]:
        replies = await real(conn, commands, packed)  # Redis ran the script...
        ran = any(c[0] == "EVALSHA" and isinstance(r, list) for c, r in zip(commands, replies, strict=True))
        if not lost["done"] and ran:
            lost["done"] = True
            raise RedisConnectionError("connection reset before the reply")  # ...the reply never came
        return replies

    batcher._exchange = lose_the_reply
    commit = a.ctx.store.commit
    outcomes: list[Outcome] = []

    async def traced(*args: Any, **kwargs: Any) -> Any:
        result = await commit(*args, **kwargs)
        outcomes.append(result.outcome)
        return result

    a.ctx.store.commit = traced
    answer = await player.act(view.game, "draw")  # the batch is retried: the script answers `dup`
    assert lost["done"] and outcomes == [Outcome.DUP] and answer["t"] == "ack" and answer["v"] == 1
    for c in (player, watcher):
        await c.wait_version(view.game, 1, timeout=T)
        assert diff_versions(c, view.game) == [1]
    assert (await player.act(view.game, "draw"))["v"] == 2  # the cached state was dropped, not stale
    await watcher.wait_version(view.game, 2, timeout=T)
    assert diff_versions(watcher, view.game) == [1, 2]


async def test_diffs_published_while_the_pubsub_connection_was_down_are_caught_up(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    player, watcher, view = await watched_game(pair, make_client)
    await kill_pubsub(pair[1])
    assert (await player.act(view.game, "draw"))["t"] == "ack"  # published while B is reconnecting
    await watcher.wait_version(view.game, 1, timeout=T)  # with no further move
    assert diff_versions(watcher, view.game) == [1]


async def test_a_channel_left_while_the_pubsub_connection_was_down_is_not_subscribed_again(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    a, _ = pair
    player, watcher = await make_client(a.ws), await make_client(a.ws)
    view = await player.new(WIN_CODE)
    await player.send({"t": "close", "game": view.game})
    await watcher.open(view.game, "watcher")
    name = channel(view.game)
    await kill_pubsub(a)
    await watcher.send({"t": "close", "game": view.game})  # the last local follower leaves meanwhile
    await watcher.ping()
    redis, hub = a.ctx.redis, a.ctx.hub
    for _ in range(100):
        await asyncio.sleep(0.05)
        if hub.confirmed and dict(await redis.pubsub_numsub(name))[name.encode()] == 0:
            break
    assert dict(await redis.pubsub_numsub(name))[name.encode()] == 0
    assert name not in hub.wanted and name not in hub.side.link.channels()


async def test_a_failed_subscription_can_be_tried_again(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    a, b = pair
    player, watcher = await make_client(a.ws), await make_client(b.ws)
    view = await player.new(WIN_CODE)
    fail_once(b.ctx.hub.side.link, "subscribe", RedisConnectionError("a blip"))
    await watcher.send({"t": "open", "game": view.game, "role": "watcher"})
    assert (await watcher.expect("error", T))["code"] == "unavailable"
    await watcher.open(view.game, "watcher")  # the client tries again: really subscribed this time
    assert (await player.act(view.game, "draw"))["t"] == "ack"
    await watcher.wait_version(view.game, 1, timeout=T)
    assert channel(view.game) in b.ctx.hub.confirmed


async def test_a_failed_fill_is_tried_again_without_the_client_asking(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    player, watcher, view = await watched_game(pair, make_client)
    b = pair[1]
    read = drop_first_message(b.ctx.hub)  # one diff lost on the way: a gap to fill
    fills = fail_once(b.ctx.store, "diffs_since", RedisConnectionError("a blip"))  # and that fill fails
    for _ in range(3):
        assert (await player.act(view.game, "draw"))["t"] == "ack"
    await watcher.wait_version(view.game, 3, timeout=T)  # no further move, no message from the watcher
    assert read["n"] == 3 and fills["n"] >= 2
    assert diff_versions(watcher, view.game) == [1, 2, 3]


async def test_resync_during_a_fill_sends_each_version_in_order(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    player, watcher, view = await watched_game(pair, make_client)
    store = pair[1].ctx.store
    drop_first_message(pair[1].ctx.hub)
    real_since = store.diffs_since

    async def slow(*args: Any) -> Any:  # the fill's Redis round trip takes a while
        await asyncio.sleep(0.3)
        return await real_since(*args)

    store.diffs_since = slow
    await player.act(view.game, "draw")  # v1: lost
    await player.act(view.game, "draw")  # v2: a gap, the fill starts
    follow = session_of(pair[1], watcher).follows[view.game]
    await until(lambda: follow.filling)  # the fill is in its slow round trip
    await watcher.send({"t": "resync", "game": view.game, "v": 0})  # the client asks as well
    await watcher.wait_version(view.game, 2, timeout=T)
    await until(lambda: not follow.filling and not follow.again)  # every pass of the fill has run
    await watcher.ping()
    assert diff_versions(watcher, view.game) == [1, 2]
    assert watcher.reader_error is None


async def test_a_move_during_open_is_not_lost(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    a, b = pair
    player, watcher = await make_client(a.ws), await make_client(b.ws)
    view = await player.new(WIN_CODE)
    store, hub = b.ctx.store, b.ctx.hub
    real, real_dispatch = store.load, hub._dispatch
    calls = {"n": 0}
    arrived = asyncio.Event()

    def dispatch(name: str, raw: bytes) -> None:
        real_dispatch(name, raw)
        if name == channel(view.game):
            arrived.set()

    async def load(game_id: str) -> Any:
        stored = await real(game_id)
        calls["n"] += 1
        if calls["n"] == 2:  # open's read after subscribing: a move lands before the snapshot is sent
            await player.act(view.game, "draw")
            await asyncio.wait_for(arrived.wait(), T)  # its diff has reached B, ahead of the snapshot
        return stored

    hub._dispatch = dispatch
    store.load = load
    await watcher.open(view.game, "watcher")
    await watcher.wait_version(view.game, 1, timeout=T)
    assert diff_versions(watcher, view.game) == [1]


async def test_a_refused_action_keeps_a_finished_games_ttl(settings: Settings, make_client: Any) -> None:
    async with running_server(settings.with_(port=0)) as a:
        player = await make_client(a.ws)
        view = await player.new(WIN_CODE)
        for t in WIN_MOVES.split():
            act = {"a": "draw"} if t == "d" else {"a": "tap", "col": int(t)}
            assert (await player.act(view.game, **act))["t"] == "ack"
        key = game_key(view.game)
        assert await a.ctx.redis.ttl(key) > settings.idle_game_ttl
        assert (await player.act(view.game, "draw"))["code"] == "game_over"
        for k in (key, key + ":log", key + ":diffs", key + ":seq"):
            assert await a.ctx.redis.ttl(k) > settings.idle_game_ttl, k


async def test_remembered_answers_stay_within_the_window_with_gaps_and_huge_seqs(
    settings: Settings, make_client: Any
) -> None:
    window = 4
    async with running_server(settings.with_(port=0, seq_window=window)) as a:
        player = await make_client(a.ws)
        view = await player.new(WIN_CODE)
        seqs = [1, 2, 5, 9, 10, 30, 10**15 + 1, 10**15 + 2, 2**53 - 2, 2**53 - 1]
        for seq in seqs:
            await player.send({"t": "act", "game": view.game, "seq": seq, "a": "undo"})
            await player.expect(None, T, where=lambda m, s=seq: m.get("seq") == s)
        stream = f"{player.player}/{player.welcome['sid']}"
        fields = {k.decode() for k in await a.ctx.redis.hkeys(game_key(view.game) + ":seq")}
        answers = sorted(int(f.rpartition("#")[2]) for f in fields if f.startswith(stream + "#"))
        assert answers == [2**53 - 2, 2**53 - 1]  # only the seqs within 4 of the highest
        # a big seq is its own key: the one just below it is not taken for it
        await player.send({"t": "act", "game": view.game, "seq": 2**53 - 1, "a": "draw"})
        again = await player.expect(None, T, where=lambda m: m.get("seq") == 2**53 - 1)
        assert again["t"] == "refused" and again["code"] == "nothing_to_undo"


async def test_failed_fills_retry_in_one_chain_that_stops_when_the_client_leaves(
    pair: tuple[RunningServer, RunningServer], make_client: Any
) -> None:
    player, watcher, view = await watched_game(pair, make_client)
    drop_first_message(pair[1].ctx.hub)
    attempts: list[float] = []

    async def always_down(*args: Any) -> Any:
        attempts.append(asyncio.get_running_loop().time())
        raise RedisConnectionError("Redis is away")

    pair[1].ctx.store.diffs_since = always_down
    for _ in range(2):
        await player.act(view.game, "draw")  # v1 lost, v2 opens a gap: fills fail from now on
    for _ in range(8):  # each answer drains the queue, which would catch up a lagging game: not now
        await watcher.ping()
    await until(lambda: len(attempts) >= 3)
    gaps = [later - earlier for earlier, later in itertools.pairwise(attempts)]
    # one chain that backs off (0.25 s, then 0.5 s): a second chain would show as attempts close together
    assert gaps[0] >= 0.2 and gaps[1] >= 0.45, gaps
    session = session_of(pair[1], watcher)
    await until(lambda: view.game in (session._timers or {}))  # the next retry is armed
    await watcher.close()
    await until(lambda: session not in pair[1].ctx.sessions and not session.follows)  # the server let it go
    assert not session._timers  # its pending retry is cancelled: no attempt can come any more
