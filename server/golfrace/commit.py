"""The commit: one Lua script (``COMMIT``) that records a move, or only the answer to a client's ``seq``,
as one compare-and-set. The server loads ``(state, v)``, runs the engine, and the script applies the result
only if ``v`` is unchanged and this ``seq`` was never answered (otherwise ``conflict``: the server reloads
and tries again; ``dup`` with the earlier answer; ``stale``), and for a race seat only if the race gate lets
the move through (``Gate``); it writes state, version, log, diff buffer and answer, sets the TTLs, and
publishes the diff (and a race's move event, ``Also``) prefixed with this process's origin, so that the
channel order is the version order. Here too: the script's arguments in its order (``commit_args``, packed
by ``pack_args``), its outcome (``Commit``) and the publish command it uses.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import msgpack
from redis.asyncio.cluster import RedisCluster

from .engine import Game, Status
from .game_codec import encode_state, next_history
from .keys import channel, game_key
from .settings import Settings
from .stored import Stored

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


def new_origin() -> bytes:
    """The prefix of what one process publishes from its commits (``ORIGIN_MARK`` and 8 random bytes): the
    hub skips its own echo (delivered locally already) and strips the prefix from other processes'."""
    return ORIGIN_MARK + secrets.token_bytes(ORIGIN_LEN - 1)


def publish_command(redis: Any) -> str:
    """The publish command for ``redis``: ``SPUBLISH`` on a Redis Cluster, whose classic ``PUBLISH`` goes to
    every node; ``PUBLISH`` on a single Redis (which may be older than 7.0, the first with ``SPUBLISH``)."""
    return "SPUBLISH" if isinstance(redis, RedisCluster) else "PUBLISH"


def pack_args(args: list[Any]) -> bytes:
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

    @classmethod
    def from_reply(cls, reply: list[bytes], diff: bytes) -> Commit:
        """The outcome from the script's reply (``diff``: as packed for the call)."""
        outcome = reply[0].decode()
        if outcome == "gate":
            return cls(outcome, refusal=reply[1].decode())
        return cls(outcome, reply[1] if outcome == "dup" else None, diff=diff)


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
    each argument at the place ``COMMIT`` reads it from."""
    key = game_key(stored.id)
    status = after.status.value if after is not None else ""
    state = b""
    if after is not None:
        state = encode_state(after, next_history(stored.game, stored.hist, after), stored.code)
    finished = (after or stored.game).status is not Status.PLAYING  # answers keep a finished TTL
    ttl = settings.finished_game_ttl if finished else settings.idle_game_ttl
    args: list[Any] = [
        str(stored.v),
        stream,
        seq,
        answer,
        "move" if after is not None else "answer",
        state,
        diff,
        log_entry,
        settings.resync_buffer,
        ttl,
        channel(stored.id),
        status,
        now,
        settings.seq_window,
        origin,
        publish,
        "1" if durable else "",
        "undo" if undo else "",
        f"out:{gate.seat}" if gate is not None else "",
        also.channel if also is not None else "",
        also.raw if also is not None else b"",
        "" if gate is None or gate.rev is None else str(gate.rev),
    ]
    keys = [key, key + ":log", key + ":diffs", key + ":seq"]
    if gate is not None:
        keys.append(gate.key)
    return keys, pack_args(args)
