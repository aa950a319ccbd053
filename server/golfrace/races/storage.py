"""A race in Redis: its record, its gate and its seats' games, read together and written by one script.

Keys, all under the race's hash tag (one Redis Cluster slot for a race and everything of it):

- ``race:{<id>}``        the race as JSON (``Race.to_data``), TTL ``race_ttl_s``
- ``race:{<id>}:gate``   what the seats' commits check (``keys.gate_key``, ``Race.gate``)
- ``game:{<id>}-<seat>`` each racer's game, an ordinary stored game (``keys.game_key``)
- ``race:{<id>}:wh``, ``race:{<id>}:here``: watcher counts and lobby presence (``presence.py``)
- channel ``race:{<id>}``: the race's events, published (``SPUBLISH`` on a Redis Cluster) by the same script
  as the write (and the seats' move events, published by their commits), so every instance sees them in
  commit order.

A write is a compare-and-set in one Lua script (``WRITE``): the record must still be the one read and every
seat still at the version read (a seat's move between the read and the write makes it try again), then the
record, the gate and any new seat games are written and the event published — no WATCH/MULTI, nothing
outside the one slot.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from golfrace.store import race_keys
from golfrace.store.commit import pack_args
from golfrace.store.games import RedisClient, Store
from golfrace.store.keys import game_key, gate_key, seat_id
from golfrace.store.stored_game import Stored

from .race import Race
from .race_data import race_from_data, race_to_data
from .racer import Seat, Seats

WRITE = """
local ARGV = cmsgpack.unpack(ARGV[1])
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '' then
  if current then return 'exists' end
elseif not current then return 'gone'
elseif current ~= ARGV[1] then return 'conflict' end
for i, want in ipairs(ARGV[6]) do
  local v = redis.call('HGET', KEYS[2 + i], 'v')
  if (v or '') ~= want then return 'conflict' end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
if #ARGV[5] > 0 then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], unpack(ARGV[5]))
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
for i, fields in ipairs(ARGV[7]) do
  if #fields > 0 then
    redis.call('HSET', KEYS[2 + i], unpack(fields))
    redis.call('EXPIRE', KEYS[2 + i], ARGV[8])
  end
end
if ARGV[9] ~= '' then redis.call(ARGV[10], ARGV[4], ARGV[9]) end
return 'ok'
"""

DELETE = """
local current = redis.call('GET', KEYS[1])
if not current then return 'gone' end
if current ~= ARGV[1] then return 'conflict' end
redis.call('DEL', unpack(KEYS))
if ARGV[3] ~= '' then redis.call(ARGV[4], ARGV[2], ARGV[3]) end
return 'ok'
"""


race_key = race_keys.race
race_channel = race_keys.race_channel


@dataclass(frozen=True, slots=True)
class Loaded:
    """A race as read: the stored text (what a write compares), the race and its seats."""

    raw: bytes
    race: Race
    seats: Seats
    versions: Mapping[int, int | None]
    """Seat → the version read (None: no game stored), which a write checks."""


class RaceStore:
    def __init__(self, redis: RedisClient, store: Store, race_ttl_s: int) -> None:
        self.redis = redis
        self.store = store
        self.race_ttl_s = race_ttl_s
        # through the store's batcher, like the moves (one write per event-loop iteration, no pool checkout)
        self._write = store.batch.script(WRITE)
        self._delete = store.batch.script(DELETE)

    async def read(self, race_id: str, seats_hint: Sequence[int] | None = None) -> Loaded | None:
        """The race and its seats. ``seats_hint``: the seat numbers the race is expected to have (a race
        read before): read in the same round trip as the record; seats it turns out to have besides are
        read after."""
        key = race_key(race_id)
        if not seats_hint:
            raw = await self.store.batch.call("GET", key)
            extra: list[tuple[Stored | None, int | None]] = []
        else:
            raw, extra = await self.store.load_seats(
                [seat_id(race_id, n) for n in seats_hint], also=("GET", key)
            )
        if raw is None:
            return None
        race = race_from_data(json.loads(raw))
        seats, versions = await self.seats(race, dict(zip(seats_hint or (), extra, strict=True)))
        return Loaded(raw if isinstance(raw, bytes) else raw.encode(), race, seats, versions)

    async def exists(self, race_id: str) -> bool:
        return bool(await self.store.batch.call("EXISTS", race_key(race_id)))

    async def read_race(self, race_id: str) -> Race | None:
        """The race record alone, without its seats' games (one GET)."""
        raw = await self.store.batch.call("GET", race_key(race_id))
        return None if raw is None else race_from_data(json.loads(raw))

    async def seats(
        self, race: Race, known: Mapping[int, tuple[Stored | None, int | None]] | None = None
    ) -> tuple[dict[int, Seat], dict[int, int | None]]:
        """The racers' games (none before the start); ``known``: seats read together with the record."""
        if race.starts_at is None:
            return {}, {}
        known = known or {}
        numbers = [r.seat for r in race.racers]
        missing = [n for n in numbers if n not in known]
        found = dict(known)
        if missing:
            _, loaded = await self.store.load_seats([seat_id(race.id, n) for n in missing])
            found.update(zip(missing, loaded, strict=True))
        seats: dict[int, Seat] = {}
        versions: dict[int, int | None] = {}
        for n in numbers:
            stored, last = found[n]
            versions[n] = None if stored is None else stored.v
            if stored is not None:
                seats[n] = Seat(stored.game, stored.v, last)
        return seats, versions

    async def delete(self, before: Loaded, event: bytes = b"") -> str:
        """Drop a lobby nobody is in any more (its record, gate, watcher and presence keys), if unchanged
        since ``before`` was read; ``ok``, ``conflict`` or ``gone``."""
        race_id = before.race.id
        keys = [race_key(race_id), gate_key(race_id), race_key(race_id) + ":wh", race_key(race_id) + ":here"]
        args: list[bytes | str] = [before.raw, race_channel(race_id), event, self.store.publish_command]
        reply = await self.store.batch.evalsha(self._delete, keys, args)
        return reply.decode() if isinstance(reply, bytes) else str(reply)

    async def write(
        self,
        before: Loaded | None,
        after: Race,
        event: bytes = b"",
        new_seats: Mapping[int, dict[str, Any]] | None = None,
    ) -> str:
        """``ok``; ``conflict`` (the race or a seat changed since ``before`` was read: read again and retry),
        ``gone`` (the race expired) or ``exists`` (``before`` None: a race with this id exists already)."""
        new_seats = new_seats or {}
        versions = dict(before.versions) if before is not None else {}
        numbers = sorted(set(versions) | set(new_seats))
        keys = [race_key(after.id), gate_key(after.id)] + [game_key(seat_id(after.id, n)) for n in numbers]
        gate = [str(part) for item in after.gate().items() for part in item]
        expect = ["" if versions.get(n) is None else str(versions[n]) for n in numbers]
        creates = [
            [_text(part) for item in new_seats[n].items() for part in item] if n in new_seats else []
            for n in numbers
        ]
        args = [
            before.raw if before is not None else "",
            json.dumps(race_to_data(after)),
            self.race_ttl_s,
            race_channel(after.id),
            gate,
            expect,
            creates,
            self.store.settings.idle_game_ttl,
            event,
            self.store.publish_command,  # SPUBLISH on a Redis Cluster (sharded, as the hub listens)
        ]
        reply = await self.store.batch.evalsha(self._write, keys, [pack_args(args)])
        return reply.decode() if isinstance(reply, bytes) else str(reply)


def _text(part: Any) -> str | bytes:
    return part if isinstance(part, bytes | str) else str(part)
