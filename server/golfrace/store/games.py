"""Games in Redis, through the hot-path batcher: creating one, loading one (with the earlier answer to a
client's ``seq``, or a race's seats together), committing a move or an answer (the script is ``commit.py``),
the diffs a follower missed, a player's unfinished games and ``player:{PID}`` hash, the shared token
secret, and the process-local cache of the games this process saw last. Key names: ``keys.py``; the loaded
value: ``stored.py``.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Union

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from golfrace.engine import Game, GameCode
from golfrace.settings import Settings
from golfrace.store import keys
from golfrace.store.batcher import Batcher, settings_batcher
from golfrace.store.commit import COMMIT, Also, Commit, Gate, commit_args, new_origin, publish_command
from golfrace.store.keys import game_key, player_games, player_key
from golfrace.store.stored_game import FIELDS, Stored, from_fields, new_stored
from golfrace.wire.ids import new_game_id
from golfrace.wire.protocol import pack

if TYPE_CHECKING:
    from golfrace.store.connection import ClusterBatcher


RedisClient = aioredis.Redis | RedisCluster
"""One Redis or a Redis Cluster (``redis+cluster://``; ``connection.general_client`` builds either): the same
command methods, and every caller keeps to one hash slot per command."""
Batch = Union[Batcher, "ClusterBatcher"]  # a forward reference: connection.py imports this module
"""The store's batcher (``Store.batch``): one Redis's, or a Redis Cluster's (one per master)."""


DIFFS_SINCE = """
return {redis.call('HGET', KEYS[1], 'v'), redis.call('LRANGE', KEYS[2], 0, -1)}
"""
"""A game's version and its diff buffer, read at one instant. A read-only script, not MULTI: Redis refuses
every command queued in a transaction while it is over ``maxmemory``, and a player must still resync then."""


def script_runner(redis: Any, batch: Batch | None, body: str) -> Callable[..., Awaitable[Any]]:
    """``run(keys=[...], args=[...])``: the Lua script ``body`` by ``EVALSHA`` through ``batch`` when given
    (joining the event-loop iteration's batch), else as redis-py's registered script on ``redis``."""
    if batch is None:
        return redis.register_script(body)  # type: ignore[no-any-return]
    sha = batch.script(body)

    async def run(keys: list[Any], args: list[Any]) -> Any:
        return await batch.evalsha(sha, keys, args)

    return run


def now_ms() -> int:
    return int(time.time() * 1000)


class Store:
    def __init__(
        self,
        redis: RedisClient,
        settings: Settings,
        batcher: Batcher | ClusterBatcher | None = None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.redis: Any = redis  # bytes in, bytes out (decode_responses=False)
        self.settings = settings
        self.clock: Callable[[], int] = clock or now_ms
        """ms since the epoch: game logs, ``updated`` and the race gate's "now" (one clock with the races)."""
        # The hot path (commits, new games, hello, game lists) is batched per event-loop iteration: Batcher.
        self.batch: Batcher | ClusterBatcher = batcher if batcher is not None else settings_batcher(settings)
        self._commit_sha = self.batch.script(COMMIT)
        self._diffs_sha = self.batch.script(DIFFS_SINCE)
        self.publish_command = publish_command(redis)
        """``PUBLISH``, or ``SPUBLISH`` on a Redis Cluster (sharded pub/sub: only the channel's shard)."""
        self.durable = self.batch.wait_replicas > 0
        """Writes are acknowledged only once a replica has them (the batcher's ``WAIT``)."""
        self.origin = new_origin()
        """Prefix of what this process publishes from a commit: the hub skips its own echo (the diff was
        delivered locally already) and strips the prefix from other processes' diffs."""
        # Games this process touched last, as of the version it last saw. Only a guess: every commit checks
        # the version in Redis, and a conflict reloads. Saves a round trip and a re-deal per move.
        self._cache: OrderedDict[str, Stored] = OrderedDict()

    # --- the local cache ----------------------------------------------------------------------------------
    def cached(self, game_id: str) -> Stored | None:
        stored = self._cache.get(game_id)
        if stored is not None:
            self._cache.move_to_end(game_id)
        return stored

    def remember(self, stored: Stored) -> Stored:
        self._cache[stored.id] = stored
        self._cache.move_to_end(stored.id)
        while len(self._cache) > self.settings.game_cache:
            self._cache.popitem(last=False)
        return stored

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)

    # --- games ----------------------------------------------------------------------------------------
    def new_game(
        self,
        game_id: str,
        owner: str,
        code: GameCode,
        hidden: bool,
        meta: dict[str, Any] | None = None,
        draws_final: bool = False,
    ) -> tuple[Stored, dict[str, Any]]:
        """A new game at version 0 and its ``game:{ID}`` hash fields (for ``create``, or a script that writes
        several games at once: a race's seats; ``draws_final`` for a ranked one)."""
        return new_stored(game_id, owner, code, hidden, meta or {}, draws_final, self.clock())

    async def create(
        self,
        owner: str,
        code: GameCode,
        hidden: bool,
        meta: dict[str, Any] | None = None,
        draws_final: bool = False,
    ) -> Stored:
        game_id = new_game_id()
        stored, mapping = self.new_game(game_id, owner, code, hidden, meta, draws_final)
        key = game_key(game_id)
        created = stored.created
        pkey = player_games(owner)
        # two single-slot steps (the game and the player's index live in different Cluster slots): the game
        # first, so the index never lists a game that is not stored; a failure between them leaves a game
        # nobody lists, which expires like any idle game
        await self.batch.transaction(
            [
                ("HSET", key, *[part for item in mapping.items() for part in item]),
                ("EXPIRE", key, self.settings.idle_game_ttl),
            ]
        )
        await self.batch.transaction(
            [
                ("ZADD", pkey, created, game_id),
                ("ZREMRANGEBYRANK", pkey, 0, -self.settings.max_player_games - 1),
                ("EXPIRE", pkey, self.settings.player_ttl),
            ]
        )
        return self.remember(stored)

    async def load(self, game_id: str) -> Stored | None:
        fields = await self.batch.call("HMGET", game_key(game_id), *FIELDS)
        return self._keep(from_fields(game_id, fields, self._cache.get(game_id)))

    def _keep(self, stored: Stored | None) -> Stored | None:
        return None if stored is None else self.remember(stored)

    async def load_with_answer(
        self, game_id: str, stream: str, seq: int
    ) -> tuple[Stored | None, bytes | None]:
        """The game and, when this ``seq`` was answered before, that answer (one round trip). A durable store
        leaves the answer to the commit, whose ``dup`` is confirmed by a replica before it is sent again."""
        if self.durable:
            return await self.load(game_id), None
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hmget(game_key(game_id), FIELDS)
            pipe.hget(game_key(game_id) + ":seq", f"{stream}#{seq}")
            fields, answer = await pipe.execute()
        return self._keep(from_fields(game_id, fields, self._cache.get(game_id))), answer

    async def load_seats(
        self, game_ids: list[str], also: tuple[Any, ...] | None = None
    ) -> tuple[Any, list[tuple[Stored | None, int | None]]]:
        """Race seats: each stored game (None: not stored) and the time of its last logged action (ms), read
        together (one slot: a race's seats share its hash tag), after ``also`` (a command on a key of that
        slot, e.g. the race's ``GET``), whose reply comes first."""
        commands: list[tuple[Any, ...]] = [also] if also is not None else []
        for game_id in game_ids:
            commands += [("HMGET", game_key(game_id), *FIELDS), ("LINDEX", game_key(game_id) + ":log", -1)]
        if not commands:
            return None, []
        replies = await self.batch.transaction(commands)
        first = replies.pop(0) if also is not None else None
        out: list[tuple[Stored | None, int | None]] = []
        for i, game_id in enumerate(game_ids):
            fields, last = replies[2 * i], replies[2 * i + 1]
            stored = self._keep(from_fields(game_id, fields, self._cache.get(game_id)))
            out.append((stored, int(last.split()[-1]) if last else None))
        return first, out

    async def commit(
        self,
        stored: Stored,
        stream: str,
        seq: int,
        answer: dict[str, Any],
        after: Game | None = None,
        diff: dict[str, Any] | None = None,
        log_entry: str = "",
        gate: Gate | None = None,
        also: Also | None = None,
        undo: bool = False,
    ) -> Commit:
        """Record ``answer`` for ``seq`` and, for a move (``after`` given), store the new state, log and diff
        and publish the diff; only if the game is still at ``stored.v`` and this seq was never answered.
        A race seat's commit (``gate``) also needs the race gate's consent (``undo``: the action is an undo),
        and publishes ``also`` (the race's move event) right after the diff, prefixed like it."""
        packed_diff = pack(diff) if diff is not None else b""
        keys, args = commit_args(
            stored,
            stream,
            seq,
            pack(answer),
            after,
            packed_diff,
            log_entry,
            gate,
            also,
            undo,
            settings=self.settings,
            now=self.clock(),
            origin=self.origin,
            publish=self.publish_command,
            durable=self.durable,
        )
        reply = await self.batch.evalsha(self._commit_sha, keys, [args])
        return Commit.from_reply(reply, packed_diff)

    def advanced(self, stored: Stored, after: Game) -> Stored:
        """Remember that ``stored`` moved to ``after`` (version + 1) by a commit of ours."""
        return self.remember(stored.moved(after))

    async def set_open(self, owner: str, game_id: str, is_open: bool) -> None:
        """Keep ``player:{PID}:games`` listing exactly the unfinished games."""
        pkey = player_games(owner)
        if is_open:  # a ZADD that re-creates an emptied list makes a key without TTL: give it one
            await self.batch.transaction(
                [("ZADD", pkey, self.clock(), game_id), ("EXPIRE", pkey, self.settings.player_ttl)]
            )
        else:
            await self.batch.call("ZREM", pkey, game_id)

    async def player_games(self, player: str) -> list[str]:
        last = self.settings.max_player_games - 1
        ids = await self.batch.call("ZREVRANGE", player_games(player), 0, last)
        return [i.decode() for i in ids]

    async def diffs_since(self, game_id: str, v: int) -> tuple[int, list[bytes]] | None:
        """``(current version, packed diffs v+1..current)``, or None when the buffer no longer reaches ``v``
        (or the game is gone)."""
        key = game_key(game_id)
        current_raw, buffered = await self.batch.evalsha(self._diffs_sha, [key, key + ":diffs"], [])
        if current_raw is None:
            return None
        current = int(current_raw)
        missing = current - v
        if missing < 0 or missing > len(buffered):
            return None
        return current, buffered[len(buffered) - missing :] if missing else []

    async def mark_hinted(self, game_id: str) -> None:
        """Mark a solo game as helped by a hint (field ``hinted`` of its hash; a course's hole with it goes on
        no board). Only on a stored game: a game gone is not made again."""
        if await self.hinted(game_id) is False:
            await self.batch.call("HSET", game_key(game_id), "hinted", 1)

    async def hinted(self, game_id: str) -> bool | None:
        """Whether a hint helped the game (None: no such game)."""
        state, hinted = await self.batch.call("HMGET", game_key(game_id), "state", "hinted")
        return None if state is None else hinted is not None

    async def log(self, game_id: str) -> list[str]:
        return [e.decode() for e in await self.batch.call("LRANGE", game_key(game_id) + ":log", 0, -1)]

    # --- players ----------------------------------------------------------------------------------------
    async def touch_player(self, player: str, name: str | None) -> None:
        key = player_key(player)
        mapping: dict[str, Any] = {"seen": now_ms()}
        if name is not None:
            mapping["name"] = name
        fields = [part for item in mapping.items() for part in item]
        await self.batch.transaction([("HSET", key, *fields), ("EXPIRE", key, self.settings.player_ttl)])

    async def shared_secret(self) -> str:
        """The signing secret shared by every instance on this Redis (created once)."""
        await self.redis.set(keys.SECRET, secrets.token_urlsafe(32), nx=True)
        value = await self.redis.get(keys.SECRET)
        return str(value.decode())

    async def ping_ms(self) -> float:
        start = time.perf_counter()
        await self.redis.ping()
        return (time.perf_counter() - start) * 1000
