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

import asyncio
import contextlib
import functools
import hashlib
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
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError

from .engine import Game, GameCode, Status
from .engine.game import Step
from .protocol import pack, unpack
from .seams import redis_wire
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


def pack_list(values: list[Any]) -> bytes:
    return msgpack.packb(values, use_bin_type=True)  # type: ignore[no-any-return]


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
        state = encode_state(after, next_history(stored, after), stored.code) if after is not None else b""
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
        hist = next_history(s, after)
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


# --- the stored state ------------------------------------------------------------------------------------
# A game is stored as msgpack ``[1, code, heights, drawn, discard, moves, undos, history]`` where
# ``history`` is 3 characters per undo step: the 0-based column a card left (``-`` for a draw) and the
# discard showing before it (``--`` for none). It is decoded through ``Game.from_state`` (which validates);
# a move extends the history text instead of re-serialising the whole game (``to_state`` + JSON cost
# ~30 us a move). JSON states written before this format are still read.
STATE_FORMAT = 1
NO_CARD = "--"


def _step_text(step: Step) -> str:
    return ("-" if step.column is None else str(step.column)) + (
        NO_CARD if step.discard is None else step.discard.code
    )


def history_text(game: Game) -> str:
    return "".join([_step_text(step) for step in game.history])


def next_history(stored: Stored, after: Game) -> str:
    """The history text of ``after``, one action after ``stored.game``, from ``stored.hist``."""
    before = stored.game
    hist = stored.hist if len(stored.hist) == 3 * len(before.history) else history_text(before)
    keep = 3 * len(after.history)
    if after.moves > before.moves:  # tap or draw: one step pushed (the oldest may fall off)
        hist = (hist + _step_text(after.history[-1]))[-keep:] if keep else ""
    else:  # undo: the last step popped
        hist = hist[:keep]
    return hist if len(hist) == keep else history_text(after)


def encode_state(game: Game, hist: str, code: str = "") -> bytes:
    discard = game.discard
    return pack_list(
        [
            STATE_FORMAT,
            code or str(game.code),
            game.heights,
            game.drawn,
            None if discard is None else discard.code,
            game.moves,
            game.undos,
            hist if len(hist) == 3 * len(game.history) else history_text(game),
            *([True] if game.draws_final else []),  # ranked play: draws are final (engine Game.draws_final)
        ]
    )


def decode_state(raw: bytes) -> Game:
    if raw[:1] == b"{":  # the JSON of Game.to_state (older servers)
        return Game.from_state(json.loads(raw))
    _fmt, code, heights, drawn, discard, moves, undos, hist, *final = unpack(raw)
    history = [
        [
            -1 if hist[i] == "-" else int(hist[i]),
            None if hist[i + 1 : i + 3] == NO_CARD else hist[i + 1 : i + 3],
        ]
        for i in range(0, len(hist), 3)
    ]
    return Game.from_state(
        {
            "code": code,
            "heights": heights,
            "drawn": drawn,
            "discard": discard,
            "moves": moves,
            "undos": undos,
            "history": history,
            "draws_final": bool(final and final[0] is True),
        }
    )


# --- the hot path's batching -----------------------------------------------------------------------------
BATCH_RETRY = Retry(ExponentialBackoff(cap=0.2, base=0.02), 2)
"""A lost connection is retried twice, quickly; then the callers get ``ConnectionError`` (``unavailable``)."""

_Job = tuple[list[tuple[Any, ...]], "asyncio.Future[Any]"]


def batch_client(url: str, connections: int, timeout: float) -> aioredis.Redis:
    """The batcher's own redis-py client: a small pool of its own (``Settings.batch_connections``), short
    retries, no socket timeout (the batcher times each batch: ``Settings.batch_timeout_s``)."""
    return aioredis.Redis.from_url(
        url,
        max_connections=connections,
        retry=BATCH_RETRY,
        socket_timeout=None,
        socket_connect_timeout=timeout,
    )


def settings_batcher(settings: Settings) -> Batcher:
    """The batcher of ``settings``: its own client on ``settings.redis_url``."""
    connections, timeout = settings.batch_connections, settings.batch_timeout_s
    client = batch_client(settings.redis_url or "", connections, timeout)
    replicas = settings.redis_wait_replicas or 0  # a Redis Cluster's batcher: redis_conn.batcher
    return Batcher(client, connections, timeout, replicas, settings.redis_wait_timeout_ms)


class Batcher:
    """Commands issued during one event-loop iteration go to Redis in one write on one of the batcher's own
    redis-py connections (what a ``transaction=False`` pipeline sends, without the pipeline object and the
    pool checkout); each caller gets its own reply or error. At thousands of moves per second this saves a
    round trip per command; at low load, where most batches hold one command, the per-batch overhead.
    ``await batcher.call("ZREM", key, member)``."""

    def __init__(
        self,
        client: aioredis.Redis,
        connections: int,
        timeout: float,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 0,
    ) -> None:
        self.client = client
        self.connections = connections
        self.timeout = timeout
        """Seconds a batch may take (write and every reply) before its callers get a Redis timeout; one
        timeout scope per batch instead of redis-py's socket timeout (a task per write and a scope per
        reply)."""
        self.wait_replicas = wait_replicas
        """When > 0, every batch ends with ``WAIT wait_replicas wait_timeout_ms``: its writes are answered
        only once that many replicas have them; if fewer confirm in time, the callers of writes get
        ``NotReplicated`` (a ``ConnectionError``: ``unavailable``, the client resends the same seq)."""
        self.wait_timeout_ms = wait_timeout_ms
        self._queue: list[_Job] = []
        self._scheduled = False
        self._running: set[asyncio.Task[None]] = set()
        self._scripts: dict[str, str] = {}
        self._idle: list[AbstractConnection] = []
        """The batcher's connections not in use: made by the client's pool but held here (at most
        ``connections``, one per batch in flight), so a batch pays no pool checkout, readiness probe or
        pipeline object."""

    def _enqueue(self, commands: list[tuple[Any, ...]]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.append((commands, future))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return future

    def _flush(self) -> None:
        self._scheduled = False
        if self._queue and len(self._running) < self.connections:
            batch, self._queue = self._queue, []
            task = asyncio.get_running_loop().create_task(self._run(batch))
            self._running.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if self._queue and not self._scheduled:
            self._flush()

    async def _run(self, batch: list[_Job]) -> None:
        conn = self._idle.pop() if self._idle else redis_wire.connection(self.client)
        packed: list[Any] = []
        good: list[_Job] = []
        for job in batch:  # a command that cannot be encoded fails its own caller, not the whole batch
            try:
                packed += redis_wire.pack(conn, job[0])
            except Exception as exc:
                if not job[1].done():
                    job[1].set_exception(exc)
                continue
            good.append(job)
        batch = good
        commands = [args for commands, _future in batch for args in commands]
        if not commands:
            self._idle.append(conn)
            return
        if self.wait_replicas:
            wait = ("WAIT", self.wait_replicas, self.wait_timeout_ms)
            commands.append(wait)
            packed += redis_wire.pack(conn, [wait])
        try:
            replies = await redis_wire.with_retry(conn, lambda: self._exchange(conn, commands, packed))
        except BaseException as exc:
            # whatever was on the wire is unknown now: the next batch on this connection reconnects
            with contextlib.suppress(Exception):
                await redis_wire.drop(conn)
            for _commands, future in batch:
                if not future.done():
                    future.set_exception(_copy(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        finally:
            self._idle.append(conn)
        shortfall: NotReplicated | None = None
        if self.wait_replicas:
            acked = replies.pop()
            if not isinstance(acked, int) or acked < self.wait_replicas:
                shortfall = NotReplicated(
                    f"{acked} of {self.wait_replicas} replicas confirmed within {self.wait_timeout_ms} ms"
                )
        at = 0
        for commands, future in batch:
            mine = replies[at : at + len(commands)]
            at += len(commands)
            if future.done():
                continue
            error = next((r for r in mine if isinstance(r, Exception)), None)
            if error is not None:  # first: a MOVED from a former master is no replication shortfall
                future.set_exception(error)
            elif shortfall is not None and any(args[0] not in READ_ONLY for args in commands):
                future.set_exception(NotReplicated(*shortfall.args))
            else:
                future.set_result(mine[-1])

    async def _exchange(
        self, conn: AbstractConnection, commands: list[tuple[Any, ...]], packed: list[Any]
    ) -> list[Any]:
        """One write of the batch, then each reply (``redis_wire.exchange``), timed as a whole."""
        return await redis_wire.exchange(self.client, conn, commands, packed, self.timeout)

    async def call(self, *args: Any) -> Any:
        return await self._enqueue([args])

    async def transaction(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """``MULTI``, the commands, ``EXEC``, back to back in one batch; returns EXEC's replies."""
        return list(await self._enqueue([("MULTI",), *commands, ("EXEC",)]))

    def script(self, body: str) -> str:
        """Register a Lua script; returns its SHA1 for ``evalsha``."""
        sha = hashlib.sha1(body.encode()).hexdigest()
        self._scripts[sha] = body
        return sha

    async def evalsha(self, sha: str, keys: list[str], args: list[Any]) -> Any:
        """Run a registered script by its SHA; loads it the first time Redis does not know it."""
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            await self.call("SCRIPT", "LOAD", self._scripts[sha])
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)

    async def aclose(self) -> None:
        if self._running:
            await asyncio.wait(list(self._running), timeout=CLOSE_WAIT)
        for conn in self._idle:
            with contextlib.suppress(Exception):
                await redis_wire.close(conn)
        await self.client.aclose()


CLOSE_WAIT = 2.0  # seconds aclose waits for batches in flight
READ_ONLY = frozenset(
    {"GET", "EXISTS", "HGET", "HMGET", "HGETALL", "LINDEX", "LRANGE", "ZRANGE", "ZREVRANGE", "PING"}
    | {"MULTI", "EXEC"}  # a transaction of reads only
)
"""Commands whose callers need no replica's confirmation (the batch's WAIT concerns the others)."""


class NotReplicated(RedisConnectionError):
    """A write reached its master but no replica confirmed it in time (``WAIT``): not acknowledged, since a
    failover could lose it. The caller answers ``unavailable``; a resent seq gets the stored answer."""


def _copy(exc: BaseException) -> BaseException:
    """One exception per waiting caller; anything but a Redis error becomes a ``ConnectionError``."""
    if isinstance(exc, RedisError):
        return type(exc)(*exc.args)
    return RedisConnectionError(f"Redis batch failed: {exc!r}")
