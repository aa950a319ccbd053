"""Who is there: the live watcher count of a race over every instance, and the racers present in a lobby.

Keys: ``race:{<id>}:wh`` (a hash with one field per server instance, ``"<watchers>:<stamped ms>"``; a share
not re-stamped for ``watcher_stale_s`` is an instance that is gone and no longer counts), and
``race:{<id>}:here`` (the racers with a connection following the race: field ``"<player>|<instance>"``, value
the stamp in ms, re-stamped like the watcher shares). A lobby racer with no fresh stamp ``lobby_grace_s``
after their last connection left is taken out of the lobby: by the instance the connection closed on, or,
when that instance died with it, by any instance following the lobby (``Absence``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from golfrace.settings.races import RaceSettings
from golfrace.store.games import RedisClient
from golfrace.wire.protocol import pack

from .storage import race_channel, race_key

Clock = Callable[[], int]


def watchers_key(race_id: str) -> str:
    """A hash of per-instance shares (``:wh``: the old ``:w`` was a plain counter, a different Redis type)."""
    return race_key(race_id) + ":wh"


def presence_key(race_id: str) -> str:
    return race_key(race_id) + ":here"


def present(shares: Mapping[Any, bytes | str], player: str, now: int, stale_ms: int) -> bool:
    """Whether ``player`` has a presence stamp (field ``"<player>|<instance>"``) within ``stale_ms``."""
    for field, stamp in shares.items():
        who = (field.decode() if isinstance(field, bytes) else str(field)).rpartition("|")[0]
        try:
            fresh = now - int(stamp) <= stale_ms
        except ValueError:
            continue
        if who == player and fresh:
            return True
    return False


def last_stamp(shares: Mapping[Any, bytes | str], player: str) -> int | None:
    """The latest presence stamp (ms) of ``player`` on any instance (fields ``"<player>|<instance>"``)."""
    latest: int | None = None
    for field, stamp in shares.items():
        who = (field.decode() if isinstance(field, bytes) else str(field)).rpartition("|")[0]
        try:
            at = int(stamp)
        except ValueError:
            continue
        if who == player and (latest is None or at > latest):
            latest = at
    return latest


def live_watchers(shares: Mapping[Any, bytes | str], now: int, stale_ms: int) -> int:
    """The watcher total from the instances' shares (``"<n>:<stamped ms>"``) stamped within ``stale_ms``."""
    total = 0
    for raw in shares.values():
        try:
            n, _, stamped = (raw.decode() if isinstance(raw, bytes) else raw).partition(":")
            if now - int(stamped) <= stale_ms:
                total += max(0, int(n))
        except ValueError:
            continue
    return total


class Presence:
    def __init__(
        self, redis: RedisClient, settings: RaceSettings, clock: Clock, instance: str, batch: Any
    ) -> None:
        self.redis = redis
        self.batch = batch
        """The store's batcher (``batcher.Batcher``): the reads and stamps of every race write and join."""
        self.settings = settings
        self.clock = clock
        self.instance = instance
        """This process's field in the watcher-count and presence hashes."""
        self._local_watchers: dict[str, int] = {}
        """Race id → watchers connected to this instance."""
        self._shown_watchers: dict[str, int] = {}
        """Race id → the last watcher total this instance published or saw, for races followed here."""
        self._absent: dict[tuple[str, str], int] = {}
        """(race id, player) → since when this instance sees no fresh presence stamp of that lobby racer."""

    @property
    def stale_ms(self) -> int:
        return int(self.settings.watcher_stale_s * 1000)

    # --- watchers -----------------------------------------------------------------------------------------
    async def watchers(self, race_id: str) -> int:
        return self._live(_pairs(await self.batch.call("HGETALL", watchers_key(race_id))))

    def _live(self, shares: Mapping[Any, bytes | str]) -> int:
        return live_watchers(shares, self.clock(), self.stale_ms)

    async def add_watcher(self, race_id: str, delta: int) -> int:
        """A watcher connected to (``delta=1``) or left (``-1``) this instance; publishes the new total."""
        n = max(0, self._local_watchers.get(race_id, 0) + delta)
        if n:
            self._local_watchers[race_id] = n
        else:
            self._local_watchers.pop(race_id, None)
        async with self.redis.pipeline(transaction=True) as pipe:
            self._stamp(pipe, race_id, n)
            pipe.hgetall(watchers_key(race_id))
            total = self._live((await pipe.execute())[-1])
        await self._publish_watchers(race_id, total)
        return total

    def _stamp(self, pipe: Any, race_id: str, n: int) -> None:
        key = watchers_key(race_id)
        if n:
            pipe.hset(key, self.instance, f"{n}:{self.clock()}")
        else:
            pipe.hdel(key, self.instance)
        pipe.expire(key, self.settings.race_ttl_s)

    async def _publish_watchers(self, race_id: str, total: int) -> None:
        self._shown_watchers[race_id] = total
        await self.redis.publish(race_channel(race_id), pack({"k": "watchers", "n": total}))

    def saw_watchers(self, race_id: str, total: int) -> None:
        """A watcher total that reached this instance in an event."""
        self._shown_watchers[race_id] = total

    async def refresh_watchers(self, followed: set[str]) -> None:
        """Every ``watcher_refresh_s`` (the race wire's sweeper): re-stamp this instance's shares, and publish
        a total that changed without an event (an instance that died with watchers on it)."""
        races = sorted(followed | set(self._local_watchers))
        for gone in set(self._shown_watchers) - set(races):
            del self._shown_watchers[gone]
        if not races:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id in races:
                if race_id in self._local_watchers:
                    self._stamp(pipe, race_id, self._local_watchers[race_id])
                pipe.hgetall(watchers_key(race_id))
            replies = await pipe.execute()
        totals = iter(r for r in replies if isinstance(r, dict))
        for race_id, total in zip(races, (self._live(t) for t in totals), strict=True):
            shown = self._shown_watchers.get(race_id)
            if shown is None:
                self._shown_watchers[race_id] = total
            elif shown != total:
                await self._publish_watchers(race_id, total)

    # --- racers in lobbies ----------------------------------------------------------------------------
    async def here(self, race_id: str, player: str, present_now: bool) -> None:
        """A racer's first connection following the race on this instance came (True) or the last left."""
        key, field = presence_key(race_id), f"{player}|{self.instance}"
        stamp = ("HSET", key, field, self.clock()) if present_now else ("HDEL", key, field)
        await self.batch.transaction([stamp, ("EXPIRE", key, self.settings.race_ttl_s)])

    async def restamp_here(self, racers: set[tuple[str, str]]) -> None:
        """Every ``watcher_refresh_s``: re-stamp the (race, player) pairs connected to this instance."""
        if not racers:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id, player in sorted(racers):
                pipe.hset(presence_key(race_id), f"{player}|{self.instance}", self.clock())
            await pipe.execute()

    async def is_present(self, race_id: str, player: str) -> bool:
        shares = await self.redis.hgetall(presence_key(race_id))
        return present(shares, player, self.clock(), self.stale_ms)

    @property
    def silent_ms(self) -> int:
        """A lobby racer whose latest stamp is this old is gone (their instance died): ``lobby_grace_s`` less
        one ``watcher_refresh_s`` (the stamp was up to one refresh old when the instance died, and this check
        runs once a refresh), so they leave within ``lobby_grace_s`` of the death; never less than
        ``watcher_stale_s`` (a live instance's stamp is never that old)."""
        s = self.settings
        return int(max(s.lobby_grace_s - s.watcher_refresh_s, s.watcher_stale_s) * 1000)

    async def gone_for_grace(self, race_id: str, players: list[str]) -> list[str]:
        """Of a lobby's racers, those gone from every instance (checked each refresh): their latest stamp is
        ``silent_ms`` old (their connections' instance died without a word: counted from that stamp, not from
        when this instance first saw it stale, issue 20.18), or they have no stamp and this instance has seen
        none for ``lobby_grace_s``."""
        shares = await self.redis.hgetall(presence_key(race_id))
        now = self.clock()
        out = []
        for player in players:
            key = (race_id, player)
            last = last_stamp(shares, player)
            if last is not None:
                self._absent.pop(key, None)
                if now - last >= self.silent_ms:
                    out.append(player)
                continue
            since = self._absent.setdefault(key, now)
            if now - since >= self.settings.lobby_grace_s * 1000:
                out.append(player)
        return out

    def forget_lobby(self, race_id: str) -> None:
        for key in [k for k in self._absent if k[0] == race_id]:
            del self._absent[key]


def _pairs(reply: Any) -> Mapping[Any, Any]:
    """``HGETALL`` as the batcher returns it (the flat RESP2 array) as a mapping."""
    if isinstance(reply, Mapping):
        return reply
    return dict(zip(reply[::2], reply[1::2], strict=True))
