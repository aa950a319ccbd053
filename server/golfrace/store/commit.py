"""The commit: one Lua script (``COMMIT``) that records a move, or only the answer to a client's ``seq``,
as one compare-and-set. The server loads ``(state, v)``, runs the engine, and the script applies the result
only if ``v`` is unchanged and this ``seq`` was never answered (otherwise ``conflict``: the server reloads
and tries again; ``dup`` with the earlier answer; ``stale``), and for a race seat only if the race gate lets
the move through (``Gate``); it writes state, version, log, diff buffer and answer, sets the TTLs, and
publishes the diff (and a race's move event, ``Also``) prefixed with this process's origin, so that the
channel order is the version order. Here too: the script's arguments (``CommitArgs``, whose fields define
their order and the names the script reads them by; built by ``commit_args``, packed by ``pack_args``), its
outcome (``Commit``, ``Outcome``) and the publish command it uses.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, NamedTuple

import msgpack
from redis.asyncio.cluster import RedisCluster

from golfrace.engine import Game, Status
from golfrace.settings import Settings
from golfrace.store.game_codec import encode_state, next_history
from golfrace.store.keys import channel, game_key, gate_out
from golfrace.store.stored_game import Stored


class CommitArgs(NamedTuple):
    """The commit script's arguments, in the order it reads them: ``COMMIT`` names each one as a Lua local
    from these fields (``lua_args``), so their order is defined here once. Packed by ``pack_args``."""

    version: int
    """The version the move was made from (``Stored.v``): the commit applies only at it."""
    stream: str
    """The seq space of the connection (``Session.stream``)."""
    seq: int
    answer: bytes
    """The answer to record for ``seq`` (packed)."""
    kind: Literal["move", "answer"]
    """``move``: store state, log and diff, and publish; ``answer``: record the answer only."""
    state: bytes
    diff: bytes
    log_entry: str
    resync_buffer: int
    """How many diffs the buffer keeps."""
    ttl: int
    """Of the game's four keys: the idle or the finished game's."""
    channel: str
    status: str
    """The game's status after the move."""
    now: int
    seq_window: int
    """How many answers a seq space keeps."""
    seq_spaces: int
    """How many seq spaces a player keeps in one game."""
    origin: bytes
    publish: str
    """``PUBLISH`` or ``SPUBLISH`` (``publish_command``)."""
    durable: Literal["1", ""]
    """``1``: a ``dup`` writes its answer again (the batch's ``WAIT`` covers it)."""
    undo: Literal["1", ""]
    """``1``: the action is an undo (the race gate may forbid it)."""
    out_field: str
    """The race gate's field that says the seat is out (``out:<seat>``), or empty: no gate."""
    also_channel: str
    also_raw: bytes
    rev: str
    """The race record's revision the move was described from, or empty: not checked."""


def lua_args(fields: tuple[str, ...]) -> str:
    """The script's first line: one Lua local per argument, named as the field, from its one packed
    ``ARGV[1]`` (Lua 5.1's ``unpack`` spreads the array in order)."""
    return f"local {', '.join(fields)} = unpack(cmsgpack.unpack(ARGV[1]))\n"


COMMIT_BODY = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {'nogame'} end
seq = tonumber(seq)
local seqkey = stream .. '#' .. string.format('%d', seq)
local earlier = redis.call('HGET', KEYS[4], seqkey)
if earlier then
  -- a write, so that the batch's WAIT covers the first answer too (it may be on another connection)
  if durable == '1' then redis.call('HSET', KEYS[4], seqkey, earlier) end
  return {'dup', earlier}
end
local topraw = redis.call('HGET', KEYS[4], stream)
if topraw == 'x' then return {'stale'} end
local top = tonumber(topraw or '0')
if seq <= top then return {'stale'} end
if KEYS[5] then
  local g = redis.call('HMGET', KEYS[5], 'starts_at', 'deadline', 'ended', 'undo', out_field, 'rev')
  local at = tonumber(now)
  local deadline = tonumber(g[2] or '0')
  local refusal = nil
  if not g[1] then refusal = 'race_not_started'
  elseif g[3] == '1' or (deadline > 0 and at >= deadline) then refusal = 'race_over'
  elseif at < tonumber(g[1]) then refusal = 'race_not_started'
  elseif g[5] or redis.call('HGET', KEYS[1], 'status') ~= 'playing' then refusal = 'game_ended'
  elseif undo == '1' and g[4] ~= '1' then refusal = 'undo_disabled'
  end
  if refusal then return {'gate', refusal} end
  -- the race the server described the move with is not the stored one: read it again
  if rev ~= '' and g[6] and g[6] ~= rev then return {'regate'} end
end
if v ~= version then return {'conflict', v} end
if kind == 'move' then
  redis.call('HSET', KEYS[1], 'state', state, 'v', tonumber(v) + 1, 'status', status, 'updated', now)
  redis.call('RPUSH', KEYS[2], log_entry)
  redis.call('RPUSH', KEYS[3], diff)
  redis.call('LTRIM', KEYS[3], -tonumber(resync_buffer), -1)
  redis.call(publish, channel, origin .. diff)
  if also_channel ~= '' then redis.call(publish, also_channel, origin .. also_raw) end
end
local window = tonumber(seq_window)
if not topraw then
  -- a seq space new to this game: its player keeps the last seq_spaces; an older one's answers go, and its
  -- mark 'x' answers its later seqs 'stale' (never applied as new)
  local listkey = '@' .. string.match(stream, '^[^/]*')
  local spaces = {}
  for s in string.gmatch(redis.call('HGET', KEYS[4], listkey) or '', '%S+') do spaces[#spaces + 1] = s end
  spaces[#spaces + 1] = stream
  while #spaces > tonumber(seq_spaces) do
    local old = table.remove(spaces, 1)
    local otop = tonumber(redis.call('HGET', KEYS[4], old) or '0') or 0
    for n = math.max(otop - window + 1, 1), otop do
      redis.call('HDEL', KEYS[4], old .. '#' .. string.format('%d', n))
    end
    redis.call('HSET', KEYS[4], old, 'x')
  end
  redis.call('HSET', KEYS[4], listkey, table.concat(spaces, ' '))
end
redis.call('HSET', KEYS[4], stream, string.format('%d', seq), seqkey, answer)
for old = math.max(top - window + 1, 1), math.min(top, seq - window) do
  redis.call('HDEL', KEYS[4], stream .. '#' .. string.format('%d', old))
end
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ttl) end
return {'ok'}
"""
"""The script after its arguments' line: it reads each argument by its name in ``CommitArgs``."""
COMMIT = lua_args(CommitArgs._fields) + COMMIT_BODY


ORIGIN_MARK = b"\x00"  # never the first byte of a msgpack map
ORIGIN_LEN = 9


def new_origin() -> bytes:
    """The prefix of what one process publishes from its commits (``ORIGIN_MARK`` and 8 random bytes): the
    hub skips its own echo (delivered locally already) and strips the prefix from other processes'."""
    return ORIGIN_MARK + secrets.token_bytes(ORIGIN_LEN - 1)


def publish_command(redis: Any) -> str:
    """The publish command for ``redis``: ``SPUBLISH`` on a Redis Cluster, whose classic ``PUBLISH`` goes to
    every node; ``PUBLISH`` on a single Redis (which may be older than 7.0, the first with ``SPUBLISH``)."""
    return "SPUBLISH" if isinstance(redis, RedisCluster) else "PUBLISH"


def pack_args(args: Sequence[Any]) -> bytes:
    """A script's arguments as one msgpack array of strings, which the script unpacks with Redis's
    ``cmsgpack`` (one argument to encode instead of fifteen: redis-py encodes each in Python, ~1 us a piece).
    Old-style raw strings (``use_bin_type=False``), which every Redis's ``cmsgpack`` reads."""
    return msgpack.packb(  # type: ignore[no-any-return]
        [str(a) if isinstance(a, int) else a for a in args], use_bin_type=False
    )


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


class Outcome(StrEnum):
    """What the commit script answered (its reply's first element)."""

    OK = "ok"
    """Recorded (and for a move: stored and published)."""
    DUP = "dup"
    """This seq was answered before: ``Commit.answer`` is that answer."""
    STALE = "stale"
    """The seq is older than the last answered (or its seq space was dropped)."""
    CONFLICT = "conflict"
    """The game is no longer at the version the move was made from: load it again and retry."""
    NOGAME = "nogame"
    """The game is not stored (expired)."""
    GATE = "gate"
    """A race seat's move the race refuses (``Commit.refusal`` names the code): nothing was recorded."""
    REGATE = "regate"
    """The race changed since the move's event was made from it: nothing was recorded."""


_OUTCOMES = {outcome.value.encode(): outcome for outcome in Outcome}


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit's ``Outcome``, with the earlier answer of a ``dup`` and the refusal of a ``gate``."""

    outcome: Outcome
    answer: bytes | None = None
    diff: bytes = b""
    """The diff as packed for Redis (for local delivery without packing it again)."""
    refusal: str = ""

    @classmethod
    def from_reply(cls, reply: list[bytes], diff: bytes) -> Commit:
        """The outcome from the script's reply (``diff``: as packed for the call)."""
        outcome = _OUTCOMES[reply[0]]
        if outcome is Outcome.GATE:
            return cls(outcome, refusal=reply[1].decode())
        return cls(outcome, reply[1] if outcome is Outcome.DUP else None, diff=diff)


def commit_args(
    stored: Stored,
    stream: str,
    seq: int,
    answer: bytes,
    after: Game | None,
    diff: bytes,
    log_entry: str,
    gate: Gate | None,
    also: Also | None,
    undo: bool,
    *,
    settings: Settings,
    now: int,
    origin: bytes,
    publish: str,
    durable: bool,
) -> tuple[list[str], bytes]:
    """The script's keys and its one packed argument for a commit of ``stored`` (see ``Store.commit``),
    in ``CommitArgs``."""
    key = game_key(stored.id)
    status = after.status.value if after is not None else ""
    state = b""
    if after is not None:
        state = encode_state(after, next_history(stored.game, stored.hist, after), stored.code)
    finished = (after or stored.game).status is not Status.PLAYING  # answers keep a finished TTL
    ttl = settings.finished_game_ttl if finished else settings.idle_game_ttl
    args = CommitArgs(
        version=stored.v,
        stream=stream,
        seq=seq,
        answer=answer,
        kind="move" if after is not None else "answer",
        state=state,
        diff=diff,
        log_entry=log_entry,
        resync_buffer=settings.resync_buffer,
        ttl=ttl,
        channel=channel(stored.id),
        status=status,
        now=now,
        seq_window=settings.seq_window,
        seq_spaces=settings.seq_spaces_per_game,
        origin=origin,
        publish=publish,
        durable="1" if durable else "",
        undo="1" if undo else "",
        out_field=gate_out(gate.seat) if gate is not None else "",
        also_channel=also.channel if also is not None else "",
        also_raw=also.raw if also is not None else b"",
        rev="" if gate is None or gate.rev is None else str(gate.rev),
    )
    keys = [key, key + ":log", key + ":diffs", key + ":seq"]
    if gate is not None:
        keys.append(gate.key)
    return keys, pack_args(args)
