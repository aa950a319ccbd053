"""The whole deployment on loopback: a 3-master + 3-replica Redis Cluster, three `golfrace serve`
instances, HAProxy in front. Games and races across instances and shards, an instance killed, a master
killed (kill -9) while players move: no acknowledged move is lost."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import MovedError

from golfrace.seams import redis_pubsub, redis_slots
from golfrace.store.batcher import Batcher
from golfrace.store.connection import ClusterUrl, cluster_client, node_client
from golfrace.store.keys import game_key
from golfrace_client.client import Client
from golfrace_testkit.cluster import command, info_fields
from golfrace_testkit.servers import running_server

from ..server.helpers import assert_no_leak
from .conftest import Deployment
from .helpers import Player, check_no_acked_move_lost, stored_games

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(90)]
T = 10.0


async def slots_of(deploy: Deployment, games: list[str]) -> dict[str, int]:
    redis = cluster_client(deploy.cluster.url, 2)
    try:
        await redis.initialize()
        return {g: redis.keyslot(game_key(g)) for g in games}
    finally:
        await redis.aclose()


async def test_a_game_and_its_watcher_on_two_instances(deploy: Deployment) -> None:
    player, watcher = await deploy.connect_on([None, None])
    view = await player.new(timeout=T)
    await watcher.open(view.game, "watcher", timeout=T)
    for _ in range(6):
        legal = view.legal()
        if not legal:
            break
        answer = await player.act(view.game, legal[0]["a"], legal[0].get("col"), timeout=T)
        assert answer["t"] == "ack"
    await watcher.wait_version(view.game, view.v, T)
    assert watcher.views[view.game].state == view.state
    code = (await stored_games(deploy.cluster.url, [view.game]))[view.game]["state"].code
    for client in (player, watcher):
        assert assert_no_leak(client, {view.game: str(code)}, hidden={view.game}) > 3


async def until(probe: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await probe():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.05)


async def start_players(deploy: Deployment, n: int) -> list[tuple[Player, int]]:
    """``n`` solo games through HAProxy, each with the index of the instance that serves it."""
    out = []
    for i in range(n):
        before = await asyncio.to_thread(deploy.connections)
        player = await Player(deploy.balancer.ws, f"P{i}").start()
        after = await asyncio.to_thread(deploy.connections)
        grew = [k for k, (a, b) in enumerate(zip(before, after, strict=True)) if b > a]
        assert len(grew) == 1, (before, after)
        out.append((player, grew[0]))
    return out


async def test_an_instance_killed_mid_game_its_players_resume_on_another(deploy: Deployment) -> None:
    placed = await start_players(deploy, 3)
    players = [p for p, _ in placed]
    victim_index = placed[0][1]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.keep_moving(stop)) for p in players]
    try:
        await until(lambda: _all_acked(players, 4), T, "every player moved")
        server = deploy.servers[victim_index]
        assert server.process is not None
        server.process.kill()  # kill -9: its websockets drop without a close frame
        await asyncio.to_thread(server.process.wait, 10)
        killed_at = time.monotonic()
        await until(lambda: _all_acked(players, 4, after=killed_at), 30, "every player moved after the kill")
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    victims = [p for p, where in placed if where == victim_index]
    assert victims and all(p.reconnects >= 1 for p in victims)
    assert all(p.reconnects == 0 for p, where in placed if where != victim_index)
    live = await asyncio.to_thread(deploy.connections)
    assert live[victim_index] == -1 and sum(n for n in live if n > 0) >= len(players)
    stored = await stored_games(deploy.cluster.url, [p.game for p in players])
    assert check_no_acked_move_lost(players, stored) >= 8 * len(players)
    for p in players:
        await p.close()
    await asyncio.to_thread(deploy.start_server, victim_index)  # whole again for the next tests


def _gap_within(player: Player, start: float, end: float) -> float:
    """The longest wait between two acks of ``player`` (or from ``start`` to its first) in [start, end]."""
    times = [start] + [a.at for a in player.acks if start < a.at <= end]
    return max(b - a for a, b in itertools.pairwise(times)) if len(times) > 1 else end - start


async def _all_acked(players: list[Player], n: int, after: float = 0.0) -> bool:
    return all(sum(1 for a in p.acks if a.at > after) >= n for p in players)


async def test_a_master_killed_while_players_move_loses_no_acknowledged_move(deploy: Deployment) -> None:
    cluster = deploy.cluster
    players = [p for p, _ in await start_players(deploy, 6)]
    owner = {p.name: cluster.owner_of(game_key(p.game)) for p in players}
    while len(set(owner.values())) < 2:  # (all six on one shard, 1 run in 243): one more, until one is not
        assert len(players) < 40, "every game on one shard"
        players.append(await Player(deploy.balancer.ws, f"P{len(players)}").start())
        owner[players[-1].name] = cluster.owner_of(game_key(players[-1].game))
    victim = owner[players[0].name]
    hit = [p for p in players if owner[p.name] == victim]
    spared = [p for p in players if owner[p.name] != victim]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.keep_moving(stop)) for p in players]
    try:
        await until(lambda: _all_acked(players, 6), T, "every player moved")
        cluster.kill(victim)
        killed_at = time.monotonic()

        async def promoted() -> bool:
            return len(await asyncio.to_thread(cluster.master_ports)) == 3

        await until(promoted, 20, "a replica of the killed master took over")
        promoted_at = time.monotonic()
        await asyncio.to_thread(cluster.restart, victim)  # it comes back as the new master's replica
        restarted_at = time.monotonic()
        await asyncio.to_thread(cluster.wait_replicas)
        linked_at = time.monotonic()
        await until(lambda: _all_acked(players, 6, after=killed_at), 30, "every player moved after the kill")
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    stored = await stored_games(cluster.url, [p.game for p in players])
    moves = check_no_acked_move_lost(players, stored)
    assert moves >= 12 * len(players)
    # the shard's players were told (the client sends the same seq again by itself) or lost their connection
    told = [f for p in hit for f in p.frames() if f.get("t") == "error" and f.get("code") == "unavailable"]
    assert told or any(p.reconnects for p in hit), [p.errors for p in hit]
    for p in spared:  # the other shards did not wait for the failover
        assert sum(1 for a in p.acks if killed_at < a.at < promoted_at) >= 1, p.name
    # issue 20.15: cluster-require-full-coverage no, so the healthy shards' players never stall (with "yes"
    # every node refused every command from the master's FAIL to the promotion: 2.5-3.7 s)
    healthy = max(_gap_within(p, killed_at, linked_at) for p in spared)
    first = min(a.at for p in spared for a in p.acks)  # the same players before the kill (the machine's load)
    calm = max(_gap_within(p, max(first, killed_at - (linked_at - killed_at)), killed_at) for p in spared)
    assert healthy <= 1.0, f"a player of a healthy shard waited {healthy:.2f} s between two acks"
    pause = max(p.longest_pause(killed_at) for p in hit)
    assert pause < 10, pause  # node timeout 1 s, the promotion, the client's resend pauses (≤ 1 s)
    print(
        f"\nfailover: a replica promoted {promoted_at - killed_at:.2f} s after the kill; the killed node"
        f" restarted at {restarted_at - killed_at:.2f} s, a replica again at {linked_at - killed_at:.2f} s;"
        f" the longest wait between two acks of a player of that shard: {pause:.2f} s, of a healthy shard:"
        f" {healthy:.2f} s (before the kill: {calm:.2f} s);"
        f" {moves} acked moves checked"
    )
    for p in players:
        await p.close()
    await asyncio.to_thread(cluster.wait_replicas)  # whole again for the next tests
    await every_instance_writes_to(deploy, cluster.owner_of(game_key(hit[0].game)))


async def watched_elsewhere(deploy: Deployment) -> tuple[Player, Client]:
    """A player's game and a watcher connected to another instance (its diffs reach it by pub/sub)."""
    ((player, at),) = await start_players(deploy, 1)
    for _ in range(12):
        watcher, where = await deploy.connect()
        if where != at:
            return player, watcher
    raise AssertionError("HAProxy kept the watcher on the player's instance")


async def test_a_watcher_on_another_instance_follows_its_game_through_a_failover(deploy: Deployment) -> None:
    """The sharded hub when the master of a watched game's slot dies: the watcher's instance loses its
    ``SSUBSCRIBE`` connection to that master, subscribes the channel again on the promoted replica and
    catches the watcher up from the store; the watcher (connection kept) reaches every version the player
    made, those published while its instance was not subscribed included, and later moves arrive live."""
    cluster = deploy.cluster
    player, watcher = await watched_elsewhere(deploy)
    victim, restarted = 0, False
    try:
        await watcher.open(player.game, "watcher", timeout=T)
        for undo in (False, True):
            await player.move(undo=undo)
        await watcher.wait_version(player.game, player.view.v, T)
        victim = cluster.owner_of(game_key(player.game))
        cluster.kill(victim)

        async def promoted() -> bool:
            return len(await asyncio.to_thread(cluster.master_ports)) == 3

        await until(promoted, 20, "a replica of the killed master took over")
        # back as the new master's replica: until then no write is acknowledged (WAIT 1)
        await asyncio.to_thread(cluster.restart, victim)
        restarted = True
        for n in range(4):  # resent by the player until the new master answers
            await player.move(undo=n % 2 == 1)
        await watcher.wait_version(player.game, player.view.v, 30)
        assert watcher.views[player.game].state == player.view.state
        await player.move()
        await watcher.wait_version(player.game, player.view.v, T)  # subscribed again: live
        assert watcher.views[player.game].state == player.view.state
        assert watcher.close_code is None  # the same connection all along
    finally:
        await player.close()
        if victim and not restarted:
            await asyncio.to_thread(cluster.restart, victim)
        await asyncio.to_thread(cluster.wait_replicas)  # whole again for the next tests


async def move_slot(slot: int, source: int, target: int, masters: list[int]) -> None:
    """Reshard: ``slot`` and its keys from the master on port ``source`` to the one on ``target``."""
    nodes = {port: aioredis.Redis(host="127.0.0.1", port=port) for port in masters}
    try:
        ids = {port: (await node.execute_command("CLUSTER", "MYID")).decode() for port, node in nodes.items()}
        await nodes[target].execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[source])
        await nodes[source].execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[target])
        while keys := await nodes[source].execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
            await nodes[source].execute_command("MIGRATE", "127.0.0.1", target, "", 0, 5000, "KEYS", *keys)
        for port in [target, source, *(p for p in masters if p not in (source, target))]:
            await nodes[port].execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[target])
    finally:
        for node in nodes.values():
            await node.aclose()


async def test_a_watcher_on_another_instance_follows_its_game_when_its_slot_moves(deploy: Deployment) -> None:
    """The sharded hub on a resharding: Redis tells the instances subscribed to the game's channel on the old
    master ``sunsubscribe`` once the slot is gone; each subscribes it again on the new master and the
    watcher (connection kept) sees the moves made there, as a player would."""
    cluster = deploy.cluster
    player, watcher = await watched_elsewhere(deploy)
    await watcher.open(player.game, "watcher", timeout=T)
    await player.move()
    await watcher.wait_version(player.game, player.view.v, T)
    key = game_key(player.game)
    source = cluster.owner_of(key)
    target = next(p for p in cluster.master_ports() if p != source)
    slot = (await slots_of(deploy, [player.game]))[player.game]
    await move_slot(slot, source, target, cluster.master_ports())
    assert cluster.owner_of(key) == target
    for n in range(3):  # the player's instance follows the MOVED
        await player.move(undo=n % 2 == 0)
    await watcher.wait_version(player.game, player.view.v, T)
    assert watcher.views[player.game].state == player.view.state
    assert watcher.close_code is None
    await player.close()
    await move_slot(slot, target, source, cluster.master_ports())  # the cluster as the next tests expect it


async def every_instance_writes_to(deploy: Deployment, master: int) -> None:
    """On each instance, a new player whose own keys live on ``master`` says hello (a write): an instance
    that sent nothing to the shard during its failover still has the old map and must follow the MOVED."""
    for server in deploy.servers:
        for _ in range(60):
            client = Client(server.ws)
            try:
                await client.start(T)  # hello writes player:{<id>}
                assert client.player is not None
                on_it = deploy.cluster.owner_of(f"player:{{{client.player}}}") == master
            finally:
                await client.close()
            if on_it:
                break
        else:
            raise AssertionError(f"60 new players on {server.http}, none on the master {master}")


async def test_a_fresh_instance_takes_a_burst_of_new_games(deploy: Deployment) -> None:
    """Its first subscriptions on each master come at once (one pub/sub connection per master is made by
    the first of them), and more requests than pooled connections reach the cluster together."""
    async with running_server(deploy.settings.with_(port=0, redis_connections=8)) as fresh:
        clients = [Client(fresh.ws) for _ in range(40)]
        try:
            await asyncio.gather(*(c.start(T) for c in clients))
            views = await asyncio.gather(*(c.new(timeout=T) for c in clients))
            assert len({v.game for v in views}) == 40
            slots = await slots_of(deploy, [v.game for v in views])
            assert len({deploy.cluster.owner_of(game_key(g)) for g in slots}) == 3  # every master took some
        finally:
            for c in clients:
                await c.close()


async def test_a_batch_sent_to_a_former_master_is_moved_not_unreplicated(deploy: Deployment) -> None:
    """A master that came back as a replica answers writes with MOVED and the batch's WAIT with an error:
    the caller gets the MOVED (the cluster batcher re-routes it), not "no replica confirmed"."""
    cluster = deploy.cluster
    replica = next(port for port, role in cluster.roles().items() if role == "slave")
    key = next(
        game_key(f"probe{n}")
        for n in range(10_000)
        if cluster.owner_of(game_key(f"probe{n}")) == _master_of(cluster, replica)
    )
    settings = deploy.settings
    client = node_client("127.0.0.1", replica, ClusterUrl.parse(cluster.url), settings)
    batch = Batcher(client, 1, settings.batch_timeout_s, 1, settings.redis_wait_timeout_ms)
    try:
        with pytest.raises(MovedError):
            await batch.transaction([("HSET", key, "v", 1)])
        with pytest.raises(MovedError):
            await batch.call("ZADD", key + ":z", 1, "m")
    finally:
        await batch.aclose()


def _master_of(cluster: Any, replica: int) -> int:
    return int(info_fields(command(replica, "INFO", "replication"))["master_port"])


async def test_the_slot_map_seam_agrees_with_the_cluster(deploy: Deployment) -> None:
    """seams/redis_slots.py on the installed redis-py: the map loads, reloads, and names each key's master
    as the cluster itself does (CLUSTER NODES)."""
    redis = cluster_client(deploy.cluster.url, 2)
    try:
        await redis_slots.ready(redis)
        await redis_slots.reload(redis)
        assert {port for _host, port in redis_slots.masters(redis)} == set(deploy.cluster.master_ports())
        for key in ("game:{abc}", "race:{rxyz}", "lb:{daily:2026-12-01}:z", "player:{p1}:games"):
            assert redis_slots.master_of(redis, key)[1] == deploy.cluster.owner_of(key)
    finally:
        await redis.aclose()


async def test_a_shard_link_reads_the_shard_channels_of_its_master(deploy: Deployment) -> None:
    """seams/redis_pubsub.py's sharded side on the installed redis-py and a real cluster: ``SSUBSCRIBE`` on
    the master of a channel's slot, its confirmation, a ``SPUBLISH``ed message and ``SUNSUBSCRIBE``, each
    read as the sharded hub reads them."""
    redis = cluster_client(deploy.cluster.url, 2)
    name = "game:{seamlink}"
    try:
        await redis_slots.ready(redis)
        host, port = redis_slots.master_of(redis, name)
        link = redis_pubsub.PubSubLink.to_node(redis, host, port, Retry(NoBackoff(), 1), T)
        try:
            async with asyncio.timeout(T):
                await link.subscribe(name)
                assert await link.read() == (redis_pubsub.SUBSCRIBED, name, None)
                assert link.channels() == {name}
                assert await redis.spublish(name, b"\x81\xa1t\xa4diff") == 1
                assert await link.read() == (redis_pubsub.MESSAGE, name, b"\x81\xa1t\xa4diff")
                await link.unsubscribe(name)
                assert await link.read() == (redis_pubsub.UNSUBSCRIBED, name, None)
                assert link.channels() == set()
        finally:
            await link.aclose()
    finally:
        await redis.aclose()
