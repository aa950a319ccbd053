"""Friends on one instance: the follow and block lists, presence, challenges and the friends' daily board.

What an account learns of another (``docs/friends.md``): of an account it follows, its public name and
username, whether it has a page open now and, when it races, the race's id, phase, rules and whether it is
ranked (what the public list of live races shows of any started race) — never a code, a card or a player id;
of a lobby only that it is in one (a lobby's id is its invitation), of a daily attempt only that it plays
one. An account that blocked you is offline to you and takes no challenge from you, told exactly as an
offline friend is, so a block cannot be told from a closed tab. The friends' board holds only what the
public daily board holds.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from golfrace.live.limits import TOKEN_BUCKET
from golfrace.settings.friends import FriendSettings
from golfrace.store import friend_keys as keys
from golfrace.store.games import RedisClient
from golfrace.store.keys import limit_bucket

from .errors import FriendError
from .ports import AccountDirectory, Person, RaceDirectory

log = logging.getLogger("golfrace.friends")
Clock = Callable[[], int]
RACES_SHOWN = 4
"""Races stamped per connection (the latest a connection joins and did not leave)."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Friends:
    def __init__(
        self,
        redis: RedisClient,
        settings: FriendSettings,
        accounts: AccountDirectory,
        races: RaceDirectory,
        publish: Callable[[str, dict[str, Any]], Any],
        clock: Clock,
    ) -> None:
        self.redis = redis
        self.settings = settings
        self.accounts = accounts
        self.races = races
        self.publish = publish
        """``hub.publish``: a notice to every instance's subscribers of a channel."""
        self.clock = clock
        self.instance = secrets.token_hex(6)
        self._bucket = redis.register_script(TOKEN_BUCKET)

    # --- limits ------------------------------------------------------------------------------------------
    async def charge(self, kind: str, player: str, net: str) -> None:
        """One token of ``kind`` (``follow`` or ``challenge``) from the account's bucket and the network's, or
        ``rate_limited``. The account's goes first: one account's burst does not empty its network's."""
        s = self.settings
        burst, per_hour = getattr(s, f"{kind}_burst"), getattr(s, f"{kind}_per_hour")
        net_burst, net_per_hour = getattr(s, f"{kind}_net_burst"), getattr(s, f"{kind}_net_per_hour")
        for subject, b, rate in (("acct:" + player, burst, per_hour), (net, net_burst, net_per_hour)):
            key = limit_bucket("friend_" + kind, subject)
            wait = int(await self._bucket(keys=[key], args=[b, repr(rate / 3_600_000)]))
            if wait:
                raise FriendError(
                    "rate_limited",
                    f"too many {kind} requests; retry in {wait / 1000:.1f} s",
                    kind=kind,
                    retry_ms=wait,
                )

    # --- following and blocking --------------------------------------------------------------------------
    async def _other(self, me: str, username: str) -> Person:
        person = await self.accounts.find(username)
        if person is None:
            raise FriendError("no_such_player", "no account has this username")
        if person.player == me:
            raise FriendError("own_account", "that is your own account")
        return person

    async def follow(self, me: str, person: Person) -> None:
        if person.player == me:
            raise FriendError("own_account", "that is your own account")
        key = keys.following(me)
        if (
            not await self.redis.sismember(key, person.player)
            and await self.redis.scard(key) >= self.settings.following_max
        ):
            raise FriendError(
                "too_many_friends", f"at most {self.settings.following_max} follows", limit="following"
            )
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(key, person.player)
            pipe.srem(keys.blocked(me), person.player)  # following someone lifts one's own block of them
            await pipe.execute()

    async def follow_name(self, me: str, username: str) -> Person:
        person = await self._other(me, username)
        await self.follow(me, person)
        return person

    async def follow_seat(self, me: str, race_id: str, seat: int) -> Person:
        """Follow the account seated at ``seat`` of a finished race (its results are public)."""
        holder = await self.races.seat_holder(race_id, seat)
        person = await self.accounts.person(holder) if holder else None
        if person is None:
            raise FriendError("no_such_player", "that seat holds no account (or its race is still on)")
        await self.follow(me, person)
        return person

    async def unfollow(self, me: str, username: str) -> None:
        person = await self.accounts.find(username)
        if person is not None:
            await self.redis.srem(keys.following(me), person.player)

    async def block(self, me: str, username: str) -> None:
        person = await self._other(me, username)
        key = keys.blocked(me)
        if (
            not await self.redis.sismember(key, person.player)
            and await self.redis.scard(key) >= self.settings.blocked_max
        ):
            raise FriendError(
                "too_many_friends", f"at most {self.settings.blocked_max} blocks", limit="blocked"
            )
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(key, person.player)
            pipe.srem(keys.following(me), person.player)  # blocking hides them: no longer followed
            await pipe.execute()
        await self._drop_pending(person.player, me)  # their challenge waiting for me goes

    async def unblock(self, me: str, username: str) -> None:
        person = await self.accounts.find(username)
        if person is not None:
            await self.redis.srem(keys.blocked(me), person.player)

    async def blocks(self, who: str, whom: str) -> bool:
        return bool(await self.redis.sismember(keys.blocked(who), whom))

    async def _members(self, key: str) -> list[str]:
        return sorted(_text(m) for m in await self.redis.smembers(key))

    # --- presence ----------------------------------------------------------------------------------------
    def _field(self, connection: int) -> str:
        return f"{self.instance}|{connection}"

    async def stamp(self, player: str, connection: int, races: list[str]) -> None:
        await self.restamp([(player, connection, races)], [])

    async def restamp(self, live: list[tuple[str, int, list[str]]], gone: list[tuple[str, int]]) -> None:
        """One round of the sweep in one pipeline: stamp the ``live`` connections (with the races each is
        in), take the ``gone`` ones off."""
        if not live and not gone:
            return
        now, ttl = self.clock(), int(self.settings.presence_stale_s * 2) + 1
        async with self.redis.pipeline(transaction=False) as pipe:
            for player, connection, races in live:
                key = keys.online(player)
                pipe.hset(key, self._field(connection), f"{now}|{','.join(races[-RACES_SHOWN:])}")
                pipe.expire(key, ttl)
            for player, connection in gone:
                pipe.hdel(keys.online(player), self._field(connection))
            await pipe.execute()

    async def gone(self, player: str, connection: int) -> None:
        await self.restamp([], [(player, connection)])

    async def presence(self, player: str) -> tuple[bool, list[str]]:
        """Whether ``player`` has a connection stamped lately, and the races its connections are in."""
        shares = await self.redis.hgetall(keys.online(player))
        now, stale = self.clock(), self.settings.presence_stale_s * 1000
        online, races = False, []
        for raw in shares.values():
            stamp, _, joined = _text(raw).partition("|")
            try:
                fresh = now - int(stamp) <= stale
            except ValueError:
                continue
            if fresh:
                online = True
                races += [r for r in joined.split(",") if r and r not in races]
        return online, races

    async def status(self, viewer: str, friend: str) -> dict[str, Any]:
        """What ``viewer`` may know of ``friend``'s presence now: offline, online, or in a lobby, a daily
        attempt or a race (with the race's id only when it has started and is no daily attempt)."""
        if await self.blocks(friend, viewer):
            return {"status": "offline", "race": None}
        online, races = await self.presence(friend)
        if not online:
            return {"status": "offline", "race": None}
        best: dict[str, Any] = {"status": "online", "race": None}
        for race_id in races:
            seen = await self.races.seen(race_id, friend)
            if seen is None:
                continue
            if seen.daily:
                best = {"status": "daily", "race": None}
            elif seen.phase == "lobby":
                if best["status"] == "online":
                    best = {"status": "lobby", "race": None}
            else:
                race = {"race": seen.race, "phase": seen.phase, "rules": seen.rules, "ranked": seen.ranked}
                return {"status": "racing", "race": race}
        return best

    # --- the list ------------------------------------------------------------------------------------------
    async def listing(self, me: str) -> dict[str, Any]:
        following = []
        for player in await self._members(keys.following(me)):
            person = await self.accounts.person(player)
            if person is None:  # a deleted account: forgotten
                await self.redis.srem(keys.following(me), player)
                continue
            following.append({**person.public(), **await self.status(me, player)})
        following.sort(key=lambda f: (f["status"] == "offline", f["name"].casefold(), f["username"]))
        blocked = []
        for player in await self._members(keys.blocked(me)):
            person = await self.accounts.person(player)
            if person is not None:
                blocked.append(person.public())
        blocked.sort(key=lambda f: f["username"].casefold())
        return {"following": following, "blocked": blocked, "now": self.clock()}

    # --- challenges --------------------------------------------------------------------------------------
    async def challenge(self, me: Person, username: str, rules: str) -> dict[str, Any]:
        """A challenge from ``me`` to an account ``me`` follows; a second one while the first waits is the
        first again (no second notice)."""
        target = await self._other(me.player, username)
        if not await self.redis.sismember(keys.following(me.player), target.player):
            raise FriendError("not_friend", "follow this player first")
        if await self.blocks(target.player, me.player) or not (await self.presence(target.player))[0]:
            raise FriendError("friend_offline", "this player has no page open now")
        ttl = self.settings.challenge_ttl_s
        expires_at = self.clock() + ttl * 1000
        data: dict[str, Any] = {
            "from": me.player,
            "to": target.player,
            "rules": rules,
            "expires_at": expires_at,
        }
        pair = keys.pending(me.player, target.player)
        for _ in range(3):
            challenge_id = secrets.token_urlsafe(12)
            # the challenge is written before the pair points at it: a request losing the race for the pair
            # always finds the winner's challenge whole
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hset(keys.challenge(challenge_id), mapping={k: str(v) for k, v in data.items()})
                pipe.expire(keys.challenge(challenge_id), ttl)
                await pipe.execute()
            if await self.redis.set(pair, challenge_id, nx=True, ex=ttl):
                for player in (me.player, target.player):
                    await self._wait_on(player, challenge_id, expires_at)
                notice = await self._notice(challenge_id, data)
                await self.publish(keys.notices(target.player), notice)
                await self.publish(keys.notices(me.player), notice)
                return notice
            await self.redis.delete(keys.challenge(challenge_id))
            existing = await self.redis.get(pair)
            found = await self._load(_text(existing)) if existing is not None else None
            if found is not None:
                return await self._notice(_text(existing), found)
        raise FriendError("challenge_gone", "the challenge waiting for this player changed; retry")

    async def _wait_on(self, player: str, challenge_id: str, expires_at: int) -> None:
        key = keys.waiting(player)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", self.clock())
            pipe.zadd(key, {challenge_id: expires_at})
            pipe.expire(key, self.settings.challenge_ttl_s + 1)
            await pipe.execute()

    async def pending(self, player: str) -> list[dict[str, Any]]:
        """The notices of the challenges ``player`` sent or got that still wait (for a page opened since)."""
        ids = await self.redis.zrangebyscore(keys.waiting(player), self.clock(), "+inf")
        out = []
        for raw in ids:
            data = await self._load(_text(raw))
            if data is not None and player in (data["from"], data["to"]):
                out.append(await self._notice(_text(raw), data))
        return out

    async def _load(self, challenge_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hgetall(keys.challenge(challenge_id))
        if not raw:
            return None
        data: dict[str, Any] = {_text(k): _text(v) for k, v in raw.items()}
        data["expires_at"] = int(data.get("expires_at", 0))
        return data

    async def _notice(self, challenge_id: str, data: dict[str, Any]) -> dict[str, Any]:
        sender = await self.accounts.person(data["from"])
        target = await self.accounts.person(data["to"])
        return {
            "t": "challenge",
            "challenge": challenge_id,
            "from": sender.public() if sender else None,
            "to": target.public() if target else None,
            "rules": data["rules"],
            "expires_at": data["expires_at"],
            "now": self.clock(),
        }

    async def answer(self, me: Person, challenge_id: str, accept: bool) -> dict[str, Any]:
        """Accept (the challenged only) or decline / withdraw (either side) a challenge. The first answer
        takes it (``DEL``), so tabs answering at once start one race."""
        data = await self._load(challenge_id)
        if data is None or me.player not in (data["from"], data["to"]):
            raise FriendError("challenge_gone", "this challenge is over")
        if accept and me.player != data["to"]:
            raise FriendError("challenge_gone", "only the challenged player accepts")
        if not await self.redis.delete(keys.challenge(challenge_id)):
            raise FriendError("challenge_gone", "this challenge is over")
        await self._drop_pending(data["from"], data["to"], challenge_id)
        for player in (data["from"], data["to"]):
            await self.redis.zrem(keys.waiting(player), challenge_id)
        race = None
        if not accept:
            outcome = "declined" if me.player == data["to"] else "withdrawn"
        elif not (await self.presence(data["from"]))[0]:
            outcome = "expired"  # the challenger closed every page: no race that one of two would miss
        else:
            sender = await self.accounts.person(data["from"])
            if sender is None:
                outcome = "expired"
            else:
                race = await self.races.start_race(sender, me, data["rules"])
                outcome = "accepted"
        end = {"t": "challenge_end", "challenge": challenge_id, "outcome": outcome, "race": race}
        for player in (data["from"], data["to"]):
            await self.publish(keys.notices(player), end)
        if outcome == "expired" and accept:
            raise FriendError("friend_offline", "the challenger has no page open now")
        return end

    async def _drop_pending(self, sender: str, target: str, challenge_id: str | None = None) -> None:
        pair = keys.pending(sender, target)
        current = await self.redis.get(pair)
        if current is None:
            return
        if challenge_id is None:  # a block: the pending challenge itself goes too
            await self.redis.delete(keys.challenge(_text(current)))
        if challenge_id is None or _text(current) == challenge_id:
            await self.redis.delete(pair)

    # --- the friends' daily board ------------------------------------------------------------------------
    async def daily_board(self, me: str) -> dict[str, Any]:
        """Today's public daily board, cut down to the accounts ``me`` follows and ``me``: an attempt still
        on, held for review or too late is on no public board, so it is not here either."""
        day = self.races.today()
        entries = []
        for player in [me, *await self._members(keys.following(me))]:
            found = await self.races.daily_entry(day, player)
            if found is None:
                continue
            person = await self.accounts.person(player)
            if person is None:
                continue
            entry = found["entry"]
            entries.append(
                {
                    "rank": int(found["rank"]),
                    **person.public(),
                    "score": entry["score"],
                    "elapsed": entry["elapsed"],
                    "moves": entry["moves"],
                    "you": player == me,
                }
            )
        entries.sort(key=lambda e: e["rank"])
        return {"date": day, "entries": entries}
