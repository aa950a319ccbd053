"""Accounts, credentials and sessions in Redis (keys: ``keys.py``). Every method touches one slot."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from golfrace.settings.accounts import AccountSettings
from golfrace.store import account_keys as keys
from golfrace.store import lookalike

from .names import fold
from .sessions import ID_LEN

CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def now_ms() -> int:
    return int(time.time() * 1000)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class Account:
    player: str
    username: str
    display: str
    created: int
    renamed: int
    pw: str | None
    passkeys: int

    def public(self, settings: AccountSettings) -> dict[str, Any]:
        """What the account's own browser may see (never the hash, nor a credential's key)."""
        return {
            "player": self.player,
            "username": self.username,
            "display": self.display or self.username,
            "created": self.created,
            "password": self.pw is not None,
            "passkeys": self.passkeys,
            "rename_at": self.renamed + settings.rename_every_s * 1000 if self.renamed else 0,
        }


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    created: int
    seen: int
    agent: str
    device: dict[str, str | None] | None = None
    """Parsed from the whole User-Agent when the session opened (``devices.py``); None for older ones."""


class AccountStore:
    def __init__(self, redis: Any, settings: AccountSettings) -> None:
        self.redis = redis
        self.settings = settings
        self._create = redis.register_script(CREATE)
        self._release = redis.register_script(RELEASE)

    # --- accounts -----------------------------------------------------------------------------------------
    async def claim_username(self, username: str, player: str) -> bool:
        return bool(await self.redis.set(keys.username(fold(username)), player, nx=True))

    async def release_username(self, username: str, player: str) -> None:
        await self._release(keys=[keys.username(fold(username))], args=[player])

    async def owner_of(self, username: str) -> str | None:
        raw = await self.redis.get(keys.username(fold(username)))
        return None if raw is None else _text(raw)

    async def create(self, player: str, username: str, display: str, pw: str | None) -> bool:
        now = now_ms()
        fields: list[Any] = ["username", username, "display", display, "created", now, "renamed", 0]
        if pw is not None:
            fields += ["pw", pw, "pw_changed", now]
        return bool(await self._create(keys=[keys.account(player)], args=fields))

    async def exists(self, player: str) -> bool:
        return bool(await self.redis.exists(keys.account(player)))

    async def load(self, player: str) -> Account | None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(keys.account(player))
            pipe.hlen(keys.passkeys(player))
            raw, n = await pipe.execute()
        if not raw:
            return None
        data = {_text(k): _text(v) for k, v in raw.items()}
        return Account(
            player,
            data.get("username", ""),
            data.get("display", ""),
            int(data.get("created", 0)),
            int(data.get("renamed", 0)),
            data.get("pw"),
            int(n),
        )

    async def set_fields(self, player: str, **fields: Any) -> None:
        await self.redis.hset(keys.account(player), mapping=fields)

    async def remove(self, player: str, username: str) -> None:
        """The account, its credentials, sessions and board index; its username is free again."""
        await self.redis.delete(
            keys.account(player), keys.sessions(player), keys.passkeys(player), keys.boards(player)
        )
        await self.release_username(username, player)
        await lookalike.release(self.redis, username, player)

    # --- sessions -----------------------------------------------------------------------------------------
    async def add_session(
        self, player: str, hashed: str, agent: str, device: dict[str, Any] | None = None
    ) -> None:
        now = now_ms()
        entry = json.dumps({"created": now, "seen": now, "agent": agent[:120], "device": device})
        key = keys.sessions(player)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, hashed, entry)
            pipe.expire(key, self.settings.session_max_s)
            await pipe.execute()
        listed = await self._sessions(player)
        if len(listed) > self.settings.max_sessions:
            oldest = sorted(listed.items(), key=lambda item: item[1].seen)
            drop = [h for h, _ in oldest[: len(listed) - self.settings.max_sessions]]
            await self.redis.hdel(key, *drop)

    def _alive(self, info: SessionInfo, now: int) -> bool:
        s = self.settings
        return now - info.seen <= s.session_ttl_s * 1000 and now - info.created <= s.session_max_s * 1000

    async def _sessions(self, player: str) -> dict[str, SessionInfo]:
        raw = await self.redis.hgetall(keys.sessions(player))
        now = now_ms()
        out, dead = {}, []
        for field, blob in raw.items():
            h, data = _text(field), json.loads(blob)
            device = data.get("device")
            info = SessionInfo(
                h[:ID_LEN],
                int(data["created"]),
                int(data["seen"]),
                str(data.get("agent", "")),
                device if isinstance(device, dict) else None,
            )
            if self._alive(info, now):
                out[h] = info
            else:
                dead.append(h)
        if dead:
            await self.redis.hdel(keys.sessions(player), *dead)
        return out

    async def check_session(self, player: str, hashed: str) -> bool:
        """Whether the session is alive; moves its last use on (at most every ``session_touch_s``)."""
        key = keys.sessions(player)
        blob = await self.redis.hget(key, hashed)
        if blob is None:
            return False
        data = json.loads(blob)
        info = SessionInfo("", int(data["created"]), int(data["seen"]), "")
        now = now_ms()
        if not self._alive(info, now):
            await self.redis.hdel(key, hashed)
            return False
        if now - info.seen >= self.settings.session_touch_s * 1000:
            data["seen"] = now
            await self.redis.hset(key, hashed, json.dumps(data))
        return True

    async def list_sessions(self, player: str) -> list[tuple[str, SessionInfo]]:
        """(stored hash, info) of the live sessions, the most recently used first."""
        listed = await self._sessions(player)
        return sorted(listed.items(), key=lambda item: -item[1].seen)

    async def drop_sessions(self, player: str, hashes: list[str]) -> None:
        if hashes:
            await self.redis.hdel(keys.sessions(player), *hashes)

    # --- passkeys -----------------------------------------------------------------------------------------
    async def add_passkey(self, player: str, credential_id: str, public_key: str, sign_count: int) -> None:
        now = now_ms()
        entry = {"public_key": public_key, "sign_count": sign_count, "created": now, "used": now}
        await self.redis.hset(keys.passkeys(player), credential_id, json.dumps(entry))

    async def passkey(self, player: str, credential_id: str) -> dict[str, Any] | None:
        blob = await self.redis.hget(keys.passkeys(player), credential_id)
        return None if blob is None else dict(json.loads(blob))

    async def passkey_ids(self, player: str) -> list[str]:
        return [_text(k) for k in await self.redis.hkeys(keys.passkeys(player))]

    async def used_passkey(self, player: str, credential_id: str, entry: dict[str, Any], count: int) -> None:
        await self.redis.hset(
            keys.passkeys(player), credential_id, json.dumps({**entry, "sign_count": count, "used": now_ms()})
        )

    # --- challenges ---------------------------------------------------------------------------------------
    async def put_challenge(self, challenge_id: str, data: dict[str, Any]) -> None:
        await self.redis.set(keys.challenge(challenge_id), json.dumps(data), ex=self.settings.challenge_ttl_s)

    async def take_challenge(self, challenge_id: str) -> dict[str, Any] | None:
        blob = await self.redis.getdel(keys.challenge(challenge_id))
        return None if blob is None else dict(json.loads(blob))

    # --- boards ---------------------------------------------------------------------------------------
    async def note_board(self, player: str, board: str) -> None:
        await self.redis.sadd(keys.boards(player), board)

    async def boards_of(self, player: str) -> list[str]:
        return sorted(_text(b) for b in await self.redis.smembers(keys.boards(player)))
