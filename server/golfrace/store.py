"""Games in Redis: state, version, move log, a bounded diff buffer, remembered answers, per-game channel.

Keys (the ``{…}`` hash tag keeps one game's keys in one Redis Cluster slot):

- ``game:{ID}``        (a race seat ``<race id>-<seat>``: ``game:{<race id>}-<seat>``, so that a race and
                       its seats share one hash tag, one Redis Cluster slot) hash: ``state`` (engine JSON,
                       holds the code, never sent), ``v``, ``owner``, ``hidden`` (1: code shown only after
                       the end), ``status``, ``created``, ``updated``, ``meta`` (JSON for extensions: a
                       seat's ``race``, ``seat`` and ``undo`` option)
- ``game:{ID}:log``    list: ``<token> <ms since epoch>`` per applied action (``d``, ``3``, ``2:4``, ``u``)
- ``game:{ID}:diffs``  list: the last ``resync_buffer`` diffs, msgpack, oldest first
- ``game:{ID}:seq``    hash: ``<player>/<sid>`` → highest seq answered; ``<player>/<sid>#<seq>`` → the answer
- channel ``game:{ID}``  every diff, msgpack, in version order (published inside the commit script)
- ``player:{PID}``     hash: ``name``, ``seen``;  ``player:{PID}:games`` zset of unfinished game ids
- ``golfrace:secret``  the token-signing secret shared by all instances (when not configured)
- ``race:{RID}:gate``  hash, for a race's seats: ``starts_at``, ``deadline`` (ms, 0: none), ``ended`` (1),
                       ``undo`` (1/0), ``out:<seat>`` (a racer the race stopped: resigned, abandoned,
                       timeout), ``rev`` (the race record's revision); written by the race (``races/``),
                       read by the commit script of every seat move

A move is one compare-and-set: the server loads ``(state, v)``, runs the engine, and the commit script
applies the result only if ``v`` is unchanged (otherwise the server reloads and tries again).
"""

from __future__ import annotations

import functools
import json
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from .batcher import Batcher, settings_batcher
from .engine import Game, GameCode, Status
from .game_codec import decode_state, encode_state, history_text, next_history
from .protocol import pack
from .settings import Settings

if TYPE_CHECKING:
    from .redis_conn import ClusterBatcher

COMMIT = """
local ARGV = cmsgpack.unpack(ARGV[1])
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {'nogame'} end
local stream = ARGV[2]
local seq = tonumber(ARGV[3])
local seqkey = stream .. '#' .. string.format('%d', seq)
local answer = redis.call('HGET', KEYS[4], seqkey)
if answer then
  -- a write, so that the batch's WAIT covers the first answer too (it may be on another connection)
  if ARGV[17] == '1' then redis.call('HSET', KEYS[4], seqkey, answer) end
  return {'dup', answer}
end
local top = tonumber(redis.call('HGET', KEYS[4], stream) or '0')
if seq <= top then return {'stale'} end
if KEYS[5] then
  local g = redis.call('HMGET', KEYS[5], 'starts_at', 'deadline', 'ended', 'undo', ARGV[19], 'rev')
  local now = tonumber(ARGV[13])
  local deadline = tonumber(g[2] or '0')
  local refusal = nil
  if not g[1] then refusal = 'race_not_started'
  elseif g[3] == '1' or (deadline > 0 and now >= deadline) then refusal = 'race_over'
  elseif now < tonumber(g[1]) then refusal = 'race_not_started'
  elseif g[5] or redis.call('HGET', KEYS[1], 'status') ~= 'playing' then refusal = 'game_ended'
  elseif ARGV[18] == 'undo' and g[4] ~= '1' then refusal = 'undo_disabled'
  end
  if refusal then return {'gate', refusal} end
  -- the race the server described the move with is not the stored one: read it again
  if ARGV[22] ~= '' and g[6] and g[6] ~= ARGV[22] then return {'regate'} end
end
if v ~= ARGV[1] then return {'conflict', v} end
if ARGV[5] == 'move' then
  redis.call('HSET', KEYS[1], 'state', ARGV[6], 'v', tonumber(v) + 1, 'status', ARGV[12], 'updated', ARGV[13])
  redis.call('RPUSH', KEYS[2], ARGV[8])
  redis.call('RPUSH', KEYS[3], ARGV[7])
  redis.call('LTRIM', KEYS[3], -tonumber(ARGV[9]), -1)
  redis.call(ARGV[16], ARGV[11], ARGV[15] .. ARGV[7])
  if ARGV[20] ~= '' then redis.call(ARGV[16], ARGV[20], ARGV[15] .. ARGV[21]) end
end
redis.call('HSET', KEYS[4], stream, string.format('%d', seq), seqkey, ARGV[4])
local window = tonumber(ARGV[14])
for old = math.max(top - window + 1, 1), math.min(top, seq - window) do
  redis.call('HDEL', KEYS[4], stream .. '#' .. string.format('%d', old))
end
local ttl = tonumber(ARGV[10])
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ttl) end
return {'ok'}
"""


ORIGIN_MARK = b"\x00"  # never the first byte of a msgpack map
ORIGIN_LEN = 9
FIELDS = ["state", "v", "owner", "hidden", "created", "meta"]


SEAT_IDS_KEPT = 65_536
SEAT_ID = re.compile(r"(r[a-z0-9]{11})-([1-9][0-9]?)")
"""A race seat's game id: the race id (``r`` + 11 characters) and the seat number."""


@functools.lru_cache(maxsize=SEAT_IDS_KEPT)
def seat_of(game_id: str) -> tuple[str, int] | None:
    """``(race id, seat)`` when ``game_id`` is a race seat's game, else None (kept for the ids seen lately:
    each move asks several times)."""
    match = SEAT_ID.fullmatch(game_id)
    return None if match is None else (match[1], int(match[2]))


def seat_id(race_id: str, seat: int) -> str:
    return f"{race_id}-{seat}"


def game_key(game_id: str) -> str:
    """``game:{ID}``; a race seat's keys carry the race's hash tag: ``game:{<race id>}-<seat>``."""
    seat = seat_of(game_id)
    return f"game:{{{game_id}}}" if seat is None else f"game:{{{seat[0]}}}-{seat[1]}"


def channel(game_id: str) -> str:
    """The pub/sub channel of a game's diffs, named like its key (races and others publish their own)."""
    return game_key(game_id)


def gate_key(race_id: str) -> str:
    """The race gate the commit script reads for every move of the race's seats (see the module)."""
    return f"race:{{{race_id}}}:gate"


@dataclass(frozen=True, slots=True)
class Also:
    """A message a commit publishes after its diff (a race's move event): on ``channel``, packed as ``raw``
    (with this process's origin prefix, like the diff), delivered here from ``message``."""

    channel: str
    raw: bytes
    message: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Gate:
    """What a seat's commit checks besides the version: the race gate's key and the seat."""

    key: str
    seat: int
    rev: int | None = None
    """The race record's revision the move's event was made from (``Race.rev``): the commit answers
    ``regate`` when the gate has another (None: not checked)."""


def publish_command(redis: Any) -> str:
    """The publish command for ``redis``: ``SPUBLISH`` on a Redis Cluster, whose classic ``PUBLISH`` goes to
    every node; ``PUBLISH`` on a single Redis (which may be older than 7.0, the first with ``SPUBLISH``)."""
    return "SPUBLISH" if isinstance(redis, RedisCluster) else "PUBLISH"


def player_key(player: str) -> str:
    return f"player:{{{player}}}"


def new_id() -> str:
    """12 characters of base-32 (lowercase, no ambiguous symbols): 60 random bits."""
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(12))


def pack_args(args: list[Any]) -> bytes:
    """A script's arguments as one msgpack array of strings, which the script unpacks with Redis's
    ``cmsgpack`` (one argument to encode instead of fifteen: redis-py encodes each in Python, ~1 us a piece).
    Old-style raw strings (``use_bin_type=False``), which every Redis's ``cmsgpack`` reads."""
    return msgpack.packb(  # type: ignore[no-any-return]
        [str(a) if isinstance(a, int) else a for a in args], use_bin_type=False
    )


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class Stored:
    """A game as loaded: the engine value, its version and who owns it."""

    id: str
    game: Game
    v: int
    owner: str
    hidden: bool
    created: int
    meta: dict[str, Any]
    hist: str = ""
    """The undo history in the stored form (``history_text``), kept so that a move extends it in O(1)."""
    code: str = ""
    """``str(game.code)``, made once."""


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit's outcome: ``ok``, ``dup`` (and the earlier answer), ``stale``, ``conflict``, ``nogame``,
    ``gate`` (a race seat's move the race refuses: ``refusal`` names the code; nothing was recorded) or
    ``regate`` (the race changed since the move's event was made from it: nothing was recorded)."""

    outcome: str
    answer: bytes | None = None
    diff: bytes = b""
    """The diff as packed for Redis (for local delivery without packing it again)."""
    refusal: str = ""


class Store:
    def __init__(
        self,
        redis: aioredis.Redis | RedisCluster,
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
        self.publish_command = publish_command(redis)
        """``PUBLISH``, or ``SPUBLISH`` on a Redis Cluster (sharded pub/sub: only the channel's shard)."""
        self.durable = self.batch.wait_replicas > 0
        """Writes are acknowledged only once a replica has them (the batcher's ``WAIT``)."""
        self.origin = ORIGIN_MARK + secrets.token_bytes(ORIGIN_LEN - 1)
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
        game = Game.new(code, draws_final=draws_final)
        created = self.clock()
        meta = meta or {}
        mapping = {
            "state": encode_state(game, ""),
            "v": 0,
            "owner": owner,
            "hidden": int(hidden),
            "status": game.status.value,
            "created": created,
            "updated": created,
            "meta": json.dumps(meta),
        }
        return Stored(game_id, game, 0, owner, hidden, created, meta, "", str(game.code)), mapping

    async def create(
        self, owner: str, code: GameCode, hidden: bool, meta: dict[str, Any] | None = None
    ) -> Stored:
        game_id = new_id()
        stored, mapping = self.new_game(game_id, owner, code, hidden, meta)
        key = game_key(game_id)
        created = stored.created
        pkey = player_key(owner) + ":games"
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
        return self._keep(_stored(game_id, fields, self._cache.get(game_id)))

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
        return self._keep(_stored(game_id, fields, self._cache.get(game_id))), answer

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
            stored = self._keep(_stored(game_id, fields, self._cache.get(game_id)))
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
        key = game_key(stored.id)
        status = after.status.value if after is not None else ""
        state = b""
        if after is not None:
            state = encode_state(after, next_history(stored.game, stored.hist, after), stored.code)
        packed_diff = pack(diff) if diff is not None else b""
        finished = (after or stored.game).status is not Status.PLAYING  # answers keep a finished TTL
        ttl = self.settings.finished_game_ttl if finished else self.settings.idle_game_ttl
        args: list[Any] = [
            str(stored.v),
            stream,
            seq,
            pack(answer),
            "move" if after is not None else "answer",
            state,
            packed_diff,
            log_entry,
            self.settings.resync_buffer,
            ttl,
            channel(stored.id),
            status,
            self.clock(),
            self.settings.seq_window,
            self.origin,
            self.publish_command,
            "1" if self.durable else "",
            "undo" if undo else "",
            f"out:{gate.seat}" if gate is not None else "",
            also.channel if also is not None else "",
            also.raw if also is not None else b"",
            "" if gate is None or gate.rev is None else str(gate.rev),
        ]
        keys = [key, key + ":log", key + ":diffs", key + ":seq"]
        if gate is not None:
            keys.append(gate.key)
        reply = await self.batch.evalsha(self._commit_sha, keys, [pack_args(args)])
        outcome = reply[0].decode()
        if outcome == "gate":
            return Commit(outcome, refusal=reply[1].decode())
        return Commit(outcome, reply[1] if outcome == "dup" else None, diff=packed_diff)

    def advanced(self, stored: Stored, after: Game) -> Stored:
        """Remember that ``stored`` moved to ``after`` (version + 1) by a commit of ours."""
        s = stored
        hist = next_history(s.game, s.hist, after)
        return self.remember(Stored(s.id, after, s.v + 1, s.owner, s.hidden, s.created, s.meta, hist, s.code))

    async def set_open(self, owner: str, game_id: str, is_open: bool) -> None:
        """Keep ``player:{PID}:games`` listing exactly the unfinished games."""
        pkey = player_key(owner) + ":games"
        if is_open:  # a ZADD that re-creates an emptied list makes a key without TTL: give it one
            await self.batch.transaction(
                [("ZADD", pkey, self.clock(), game_id), ("EXPIRE", pkey, self.settings.player_ttl)]
            )
        else:
            await self.batch.call("ZREM", pkey, game_id)

    async def player_games(self, player: str) -> list[str]:
        last = self.settings.max_player_games - 1
        ids = await self.batch.call("ZREVRANGE", player_key(player) + ":games", 0, last)
        return [i.decode() for i in ids]

    async def diffs_since(self, game_id: str, v: int) -> tuple[int, list[bytes]] | None:
        """``(current version, packed diffs v+1..current)``, or None when the buffer no longer reaches ``v``
        (or the game is gone)."""
        key = game_key(game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(key, "v")
            pipe.lrange(key + ":diffs", 0, -1)
            current_raw, buffered = await pipe.execute()
        if current_raw is None:
            return None
        current = int(current_raw)
        missing = current - v
        if missing < 0 or missing > len(buffered):
            return None
        return current, buffered[len(buffered) - missing :] if missing else []

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
        await self.redis.set("golfrace:secret", secrets.token_urlsafe(32), nx=True)
        value = await self.redis.get("golfrace:secret")
        return str(value.decode())

    async def ping_ms(self) -> float:
        start = time.perf_counter()
        await self.redis.ping()
        return (time.perf_counter() - start) * 1000


def _stored(game_id: str, fields: list[bytes | None], known: Stored | None = None) -> Stored | None:
    state, v, owner, hidden, created, meta = fields
    if state is None or v is None or owner is None:
        return None
    if known is not None and known.v == int(v):
        return known
    game = decode_state(state)
    return Stored(
        game_id,
        game,
        int(v),
        owner.decode(),
        hidden == b"1",
        int(created or 0),
        json.loads(meta) if meta else {},
        history_text(game),
        str(game.code),
    )
