"""Course races in Redis: one JSON record a race (``keys.course_race``), written by a compare-and-set on its
revision (``CAS``), so two racers' holes, a join and the start never overwrite each other."""

from __future__ import annotations

import json

from golfrace.store import course_keys as keys
from golfrace.store.games import RedisClient

from .racing import CourseRace

CAS = """
local cur = redis.call('GET', KEYS[1])
local rev = 0
if cur then rev = tonumber(cjson.decode(cur)['rev']) end
if rev ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
"""
"""KEYS[1] the race; ARGV the revision read (0: none), the new record, TTL. Returns 1 if written."""


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class RaceBook:
    def __init__(self, redis: RedisClient, ttl_s: int) -> None:
        self.redis = redis
        self.ttl_s = ttl_s
        self._cas = redis.register_script(CAS)

    async def load(self, race_id: str) -> CourseRace | None:
        raw = await self.redis.get(keys.course_race(race_id))
        return None if raw is None else CourseRace.from_json(json.loads(_text(raw)))

    async def write(self, before: CourseRace | None, after: CourseRace) -> CourseRace | None:
        """``after`` stored if the record is still ``before`` (None: no record yet); the stored race, or
        None when another write came first."""
        rev = 0 if before is None else before.rev
        stored = CourseRace.from_json({**after.to_json(), "rev": rev + 1})
        done = await self._cas(
            keys=[keys.course_race(after.id)], args=[rev, json.dumps(stored.to_json()), self.ttl_s]
        )
        return stored if int(done) else None
