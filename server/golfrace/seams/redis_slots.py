"""redis-py's asyncio ``RedisCluster`` slot map, as the cluster batcher and the sharded hub use it: whether
the client has its map yet, reloading it (after a ``MOVED`` or a failover), and which master serves a key
now.
``RedisCluster`` has no public API for these; its ``nodes_manager`` does the work."""

from __future__ import annotations

from redis.asyncio.cluster import RedisCluster


async def ready(cluster: RedisCluster) -> None:
    """Load the slot map if the client has none yet (what its first command would do). A client that has one
    and is only flagged for a reload (redis-py flags it after any command's ``ConnectionError``: a dead
    master) keeps routing with the map it has: the batcher and the hub must not queue behind the general
    client's reload, or one shard's failover stalls the moves of every shard (issue 20.15); a ``MOVED``
    still reloads it (``ClusterBatcher.refresh``)."""
    if cluster._initialize and not cluster.nodes_manager.slots_cache:
        await cluster.initialize()


async def reload(cluster: RedisCluster) -> None:
    """Ask the cluster for its slot map again (``CLUSTER SLOTS`` from a reachable node)."""
    await cluster.nodes_manager.initialize()


def master_of(cluster: RedisCluster, key: str) -> tuple[str, int]:
    """``(host, port)`` of the master serving ``key``'s hash slot in the client's current map."""
    node = cluster.nodes_manager.get_node_from_slot(cluster.keyslot(key))
    return node.host, int(node.port)


def masters(cluster: RedisCluster) -> set[tuple[str, int]]:
    return {(node.host, int(node.port)) for node in cluster.get_primaries()}
