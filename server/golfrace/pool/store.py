"""The pool in Redis, shared by every instance (and every master of a Cluster).

Keys (one Cluster slot per shard, so a pool of 100k seekers is spread over the cluster's masters):

- ``pool:{<rules>|<queue>|<band>}`` hash player → the seeker as JSON (``pairing.Seeker``): a shard, one per
  rule set, queue (``ranked``, ``casual``, ``flagged``) and rating band (``band_width`` points);
- ``pool:shards:{<rules>}`` set of the shard names in use for a rule set (a wave reads these);
- ``pool:p:{<player>}`` the shard a player seeks in (one search at a time; a new one replaces it), with a
  TTL of ``seeker_stale_s``, moved on by every stamp;
- ``pool:lock:{<rules>}`` the instance running the rule set's wave now (``SET NX PX``).

Every key has a TTL (a stale seeker, a dead instance's lock, an empty shard all expire on their own).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import asdict

from golfrace.settings.pool import PoolSettings
from golfrace.store import race_keys
from golfrace.store.games import RedisClient

from .pairing import Seeker

CLAIM = """
for i = 1, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return 0 end
end
for i = 1, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
return 1
"""
"""Take the listed seekers out of one shard: all of them, or none if one has left meanwhile."""
CLAIM_BATCH = 32
"""Shards claimed from at once in one wave."""

CLAIM_GROUPS = """
local out = {}
local i = 1
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  local all = 1
  for j = i + 1, i + n do
    if redis.call('HEXISTS', KEYS[1], ARGV[j]) == 0 then all = 0 end
  end
  if all == 1 then
    for j = i + 1, i + n do redis.call('HDEL', KEYS[1], ARGV[j]) end
  end
  out[#out + 1] = all
  i = i + n + 1
end
return out
"""
"""Several groups out of one shard in one call: each group whole, or not at all (one key: a Cluster slot)."""


shard_key = race_keys.pool_shard
shards_key = race_keys.pool_shards
player_key = race_keys.pool_player
lock_key = race_keys.pool_lock


def seeker_json(seeker: Seeker) -> str:
    return json.dumps(asdict(seeker), sort_keys=True)


def seeker_of(raw: bytes | str) -> Seeker:
    data = json.loads(raw)
    return Seeker(
        str(data["player"]),
        int(data["rating"]),
        str(data["network"]),
        str(data["queue"]),
        int(data["joined_at"]),
        str(data.get("name", "")),
        str(data.get("instance", "")),
        int(data.get("stamp", 0)),
    )


class PoolStore:
    def __init__(self, redis: RedisClient, settings: PoolSettings) -> None:
        self.redis = redis
        self.settings = settings
        self._claim = redis.register_script(CLAIM)
        self._claim_groups = redis.register_script(CLAIM_GROUPS)

    @property
    def ttl_ms(self) -> int:
        return int(self.settings.seeker_stale_s * 1000) * 2

    def shard(self, rules: str, seeker: Seeker) -> str:
        band = seeker.rating // self.settings.band_width if seeker.queue != "casual" else 0
        return f"{rules}|{seeker.queue}|{band}"

    async def put(self, rules: str, seeker: Seeker) -> str:
        """The player seeks (in place of any earlier search of theirs)."""
        old = await self.redis.get(player_key(seeker.player))
        shard = self.shard(rules, seeker)
        pipe = self.redis.pipeline(transaction=False)  # one round trip (keys of several slots: no script)
        if old is not None:
            pipe.hdel(shard_key(old.decode() if isinstance(old, bytes) else str(old)), seeker.player)
        pipe.hset(shard_key(shard), seeker.player, seeker_json(seeker))
        pipe.pexpire(shard_key(shard), self.ttl_ms * 10)
        pipe.sadd(shards_key(rules), shard)
        pipe.pexpire(shards_key(rules), self.ttl_ms * 10)
        pipe.set(player_key(seeker.player), shard, px=self.ttl_ms)
        await pipe.execute()
        return shard

    async def stamp(self, entries: Iterable[tuple[str, Seeker]]) -> None:
        """Confirm this instance's seekers (shard, seeker with a new stamp); one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        count = 0
        for shard, seeker in entries:
            pipe.hset(shard_key(shard), seeker.player, seeker_json(seeker))
            pipe.pexpire(shard_key(shard), self.ttl_ms * 10)
            pipe.set(player_key(seeker.player), shard, px=self.ttl_ms)
            count += 1
        if count:
            await pipe.execute()

    async def remove(self, player: str) -> bool:
        """Take the player out of the pool at once. True if they were in it."""
        shard = await self.redis.get(player_key(player))
        if shard is None:
            return False
        name = shard.decode() if isinstance(shard, bytes) else str(shard)
        removed = await self.redis.hdel(shard_key(name), player)
        await self.redis.delete(player_key(player))
        return bool(removed)

    async def seeking(self, player: str) -> bool:
        return bool(await self.redis.exists(player_key(player)))

    async def shards(self, rules: str) -> list[str]:
        raw = await self.redis.smembers(shards_key(rules))
        return sorted(s.decode() if isinstance(s, bytes) else str(s) for s in raw)

    async def read(self, rules: str) -> dict[str, list[Seeker]]:
        """Every shard of a rule set → its seekers."""
        out: dict[str, list[Seeker]] = {}
        names = await self.shards(rules)
        pipe = self.redis.pipeline(transaction=False)
        for shard in names:
            pipe.hvals(shard_key(shard))
        for shard, entries in zip(names, await pipe.execute() if names else [], strict=True):
            if not entries:
                await self.redis.srem(shards_key(rules), shard)
                continue
            out[shard] = [seeker_of(e) for e in entries]
        return out

    async def count(self, rules: str) -> int:
        total = 0
        for shard in await self.shards(rules):
            total += int(await self.redis.hlen(shard_key(shard)))
        return total

    async def claim(self, shard: str, players: list[str]) -> bool:
        return bool(await self._claim(keys=[shard_key(shard)], args=players))

    async def claim_many(self, claims: list[tuple[str, list[str]]]) -> list[bool]:
        """Groups, each within one shard, claimed with one call per shard (``CLAIM_GROUPS``), shards side by
        side (``CLAIM_BATCH`` at once; a cluster client refuses scripts in a pipeline). In ``claims``' order:
        whether each group was taken whole."""
        by_shard: dict[str, list[int]] = {}
        for n, (shard, _) in enumerate(claims):
            by_shard.setdefault(shard, []).append(n)
        out = [False] * len(claims)

        async def one(shard: str, indexes: list[int]) -> None:
            args: list[str | int] = []
            for n in indexes:
                args += [len(claims[n][1]), *claims[n][1]]
            taken = await self._claim_groups(keys=[shard_key(shard)], args=args)
            for n, ok in zip(indexes, taken, strict=True):
                out[n] = bool(int(ok))

        shards = list(by_shard.items())
        for start in range(0, len(shards), CLAIM_BATCH):
            await asyncio.gather(*(one(shard, idx) for shard, idx in shards[start : start + CLAIM_BATCH]))
        return out

    async def give_back(self, shard: str, seekers: list[Seeker]) -> None:
        """Seekers claimed for a group that could not be formed go back to their shard."""
        if seekers:
            await self.redis.hset(shard_key(shard), mapping={s.player: seeker_json(s) for s in seekers})

    async def drop(self, shard: str, players: list[str]) -> None:
        if players:
            await self.redis.hdel(shard_key(shard), *players)

    async def lead(self, rules: str, instance: str, ms: int) -> bool:
        """This instance runs the rule set's next wave (nobody else does for ``ms``)."""
        return bool(await self.redis.set(lock_key(rules), instance, nx=True, px=ms))
