"""Every place Golf Race relies on a library's internals rather than its documented API, in one package.

- ``uvicorn_ws``: our subclass of uvicorn's websockets-sansio protocol (trimmed per-connection state, one
  socket write per loop iteration, frames written as framed once for many connections);
  ``ws_frames``: that framing, by ``websockets``; ``uvicorn_server``: uvicorn as we run it (the protocol
  choice and its fallback, its log of a bad text frame, its ``Server`` with our signal handling).
- ``redis_wire``: the store's batcher below redis-py's pipeline API (a connection of the pool's, packed
  commands, one write, each reply parsed as a pipeline would, redis-py's retry).
- ``redis_pubsub``: the hub's pub/sub connections, redis-py's ``PubSub`` read reply by reply straight from
  its connection (``SUBSCRIBE`` on a single Redis, reconnecting; ``SSUBSCRIBE`` per cluster master, not).
- ``redis_slots``: redis-py's asyncio ``RedisCluster`` slot map (loaded yet, reloaded, the master of a key),
  for the cluster batcher and the sharded hub (``tests/cluster/test_cluster.py`` holds it, and
  ``redis_pubsub``'s sharded side, against a real cluster).

``tests/server/test_seams_contract.py`` (and ``test_seams_ws.py``) hold these against the installed
libraries (the exact attributes and behaviours relied upon), so an incompatible release fails there loudly;
``pyproject.toml`` pins the tested upper bounds.
"""
