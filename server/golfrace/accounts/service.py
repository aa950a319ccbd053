"""The account operations, over ``AccountStore``, ``Throttle``, ``Passwords`` and ``History``; HTTP lives in
``routes.py``. One ``Accounts`` per server process, in ``ctx.extras["accounts"]``."""

from __future__ import annotations

import contextlib
import logging
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import passkeys, sessions
from .errors import AccountError
from .history import History
from .names import check_username, clean_display, fold
from .passwords import Passwords, check_password, normalise
from .settings import AccountSettings
from .store import Account, AccountStore, now_ms
from .throttle import Throttle

if TYPE_CHECKING:
    from ..context import Context

log = logging.getLogger("golfrace.accounts")
CLOSE_SIGNED_OUT = 4401
"""Close code of a websocket whose session was signed out (it reconnects as a new anonymous player)."""
SIGNOUT_CHANNEL = "accounts:signout"
"""Pub/sub channel on which a sign-out reaches every instance: ``{"player", "sessions": [stored hash…]}``
(hashes of tokens, not tokens)."""
GUESTS = ""
"""In a sign-out's session hashes: the player's connections that said hello without a session."""
DELETED_PREFIX = "deleted-"
PLAYER_ID = re.compile(r"p[0-9a-f]{16}")

ANONYMISE = """
local mem = redis.call('HGET', KEYS[2], ARGV[1])
if not mem then return 0 end
local score = redis.call('ZSCORE', KEYS[1], mem)
local blob = redis.call('HGET', KEYS[3], mem)
redis.call('ZREM', KEYS[1], mem)
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], mem)
if score and blob then
  local entry = cjson.decode(blob)
  entry['player'] = ARGV[2]
  entry['name'] = ''
  entry['deleted'] = true
  local ghost = string.sub(mem, 1, string.find(mem, '|', 1, true)) .. ARGV[2]
  redis.call('ZADD', KEYS[1], score, ghost)
  redis.call('HSET', KEYS[3], ghost, cjson.encode(entry))
end
return 1
"""


@dataclass(frozen=True, slots=True)
class Reauth:
    """What a request brings to prove again who it is: the password, or a passkey assertion of a challenge
    made by ``reauth_options`` (its id and the browser's answer); ``party`` checks the assertion."""

    party: passkeys.Party
    password: object = None
    challenge_id: object = None
    credential: Any = None


@dataclass(frozen=True, slots=True)
class SignedIn:
    account: Account
    session: str
    """The new session token: goes to this browser's cookie only."""


class Accounts:
    def __init__(self, ctx: Context, settings: AccountSettings) -> None:
        self.ctx = ctx
        self.settings = settings
        self.store = AccountStore(ctx.redis, settings)
        self.throttle = Throttle(ctx.redis, settings)
        self.passwords = Passwords(settings)
        self.history = History(ctx.redis, settings)
        self._anonymise = ctx.redis.register_script(ANONYMISE)

    # --- identity ---------------------------------------------------------------------------------------
    async def _new_player(self, token: object) -> str:
        """The player id a new account takes: the anonymous token's (its games, bests, streak and history
        come along) unless that id is an account already; else a fresh one."""
        player = self.ctx.tokens.verify(token) if isinstance(token, str) and token else None
        if player is not None and not await self.store.exists(player):
            return player
        return self.ctx.tokens.issue()[0]

    async def session_player(self, token: object) -> tuple[str, str] | None:
        """(player id, session hash) of a live session of an existing account."""
        parsed = sessions.parse(token)
        if parsed is None:
            return None
        player, hashed = parsed
        if not await self.store.check_session(player, hashed):
            return None
        if not await self.store.exists(player):
            return None
        return player, hashed

    async def is_account(self, player: str) -> bool:
        return await self.store.exists(player)

    async def _open_session(self, account: Account, agent: str) -> SignedIn:
        token = sessions.new_token(account.player)
        parsed = sessions.parse(token)
        assert parsed is not None  # made by new_token
        await self.store.add_session(account.player, parsed[1], agent)
        return SignedIn(account, token)

    async def _loaded(self, player: str) -> Account:
        account = await self.store.load(player)
        if account is None:
            raise AccountError("not_signed_in", "the account is gone")
        return account

    # --- sign-up ----------------------------------------------------------------------------------------
    async def _check_quota(self, net: str) -> None:
        if not await self.throttle.signups_left(net):
            raise AccountError(
                "too_many_signups",
                f"at most {self.settings.signups_per_ip} new accounts per address a day",
                retry_ms=self.settings.signup_window_s * 1000,
            )

    def check_new(self, username: object, display: object) -> tuple[str, str]:
        name = check_username(username)
        return name, clean_display(display if display is not None else "", self.settings.display_max)

    async def _create(self, player: str, username: str, display: str, pw: str | None, net: str) -> Account:
        if not await self.store.claim_username(username, player):
            raise AccountError("username_taken", "this username is taken")
        if not await self.store.create(player, username, display, pw):
            await self.store.release_username(username, player)
            raise AccountError("already_signed_in", "this player has an account already")
        await self.throttle.signed_up(net)
        await self.history.keep(player)
        # the player's guest connections (no session: whoever holds the old token) go; a page of this
        # browser reconnects with its new cookie and is the account
        await self.close_connections(player, {GUESTS})
        return await self._loaded(player)

    async def sign_up_password(
        self, username: object, password: object, display: object, token: object, net: str, agent: str
    ) -> SignedIn:
        name, shown = self.check_new(username, display)
        secret = check_password(password, name, self.settings)
        await self._check_quota(net)
        if await self.store.owner_of(name) is not None:
            raise AccountError("username_taken", "this username is taken")
        hashed = await self.passwords.hash(secret)
        account = await self._create(await self._new_player(token), name, shown, hashed, net)
        return await self._open_session(account, agent)

    async def passkey_signup_options(
        self, party: passkeys.Party, username: object, display: object, token: object, net: str
    ) -> dict[str, Any]:
        name, shown = self.check_new(username, display)
        await self._check_quota(net)
        if await self.store.owner_of(name) is not None:
            raise AccountError("username_taken", "this username is taken")
        player = await self._new_player(token)
        options, challenge = passkeys.registration_options(party, player, name, shown, [])
        data = {
            "kind": "signup",
            "challenge": challenge,
            "player": player,
            "username": name,
            "display": shown,
        }
        return {"challenge_id": await self._new_challenge(net, data), "options": options}

    async def passkey_add_options(
        self, party: passkeys.Party, player: str, proof: Reauth, net: str
    ) -> dict[str, Any]:
        """Registration options for one more passkey, after ``reauthenticate`` (a session holder's own passkey
        would otherwise confirm everything after)."""
        account = await self._loaded(player)
        existing = await self.store.passkey_ids(player)
        if len(existing) >= self.settings.max_passkeys:
            raise AccountError("too_many_passkeys", f"at most {self.settings.max_passkeys} passkeys")
        await self.reauthenticate(account, proof, net)
        options, challenge = passkeys.registration_options(
            party, player, account.username, account.display, existing
        )
        data = {"kind": "add", "challenge": challenge, "player": player}
        return {"challenge_id": await self._new_challenge(net, data), "options": options}

    async def _new_challenge(self, net: str, data: dict[str, Any]) -> str:
        """Keep a passkey ceremony's challenge (at most ``challenges_per_minute`` per network); its id."""
        if not await self.throttle.challenge_allowed(net):
            raise AccountError(
                "too_many_attempts", "too many passkey requests; wait a minute", retry_ms=60_000
            )
        challenge_id = secrets.token_urlsafe(18)
        await self.store.put_challenge(challenge_id, data)
        return challenge_id

    async def _challenge(self, challenge_id: object, kind: str) -> dict[str, Any]:
        data = await self.store.take_challenge(challenge_id) if isinstance(challenge_id, str) else None
        if data is None or data.get("kind") != kind:
            raise AccountError("bad_challenge", "this passkey request expired or was used; start again")
        return data

    async def passkey_signup(
        self, party: passkeys.Party, challenge_id: object, credential: Any, net: str, agent: str
    ) -> SignedIn:
        data = await self._challenge(challenge_id, "signup")
        new = passkeys.verify_registration(party, credential, data["challenge"])
        await self._check_quota(net)
        account = await self._create(data["player"], data["username"], data["display"], None, net)
        await self.store.add_passkey(account.player, new.credential_id, new.public_key, new.sign_count)
        return await self._open_session(await self._loaded(account.player), agent)

    async def passkey_add(
        self, party: passkeys.Party, player: str, challenge_id: object, credential: Any
    ) -> Account:
        data = await self._challenge(challenge_id, "add")
        if data["player"] != player:
            raise AccountError("bad_challenge", "this passkey request belongs to another session")
        new = passkeys.verify_registration(party, credential, data["challenge"])
        await self.store.add_passkey(player, new.credential_id, new.public_key, new.sign_count)
        return await self._loaded(player)

    # --- sign-in ------------------------------------------------------------------------------------------
    async def _refuse_if_waiting(self, subject: str, net: str) -> None:
        wait = await self.throttle.wait_ms(subject, net)
        if wait > 0:
            raise AccountError("too_many_attempts", "too many failed sign-ins; wait and retry", retry_ms=wait)

    async def sign_in_password(self, username: object, password: object, net: str, agent: str) -> SignedIn:
        name = username if isinstance(username, str) else ""
        folded = fold(name[:64])
        subject = "user:" + folded  # throttled whether or not an account has the name
        await self._refuse_if_waiting(subject, net)
        secret = password if isinstance(password, str) else ""
        secret = secret[: self.settings.password_max * 4]
        player = await self.store.owner_of(folded) if 0 < len(folded) <= 20 else None
        account = await self.store.load(player) if player is not None else None
        ok = await self.passwords.verify(account.pw if account else None, normalise(secret))
        if not ok or account is None:
            wait = await self.throttle.failed(subject, net)
            params = {"retry_ms": wait} if wait else {}
            raise AccountError("bad_credentials", "this username and password do not match", **params)
        await self.throttle.succeeded(subject)
        if account.pw is not None and self.passwords.needs_rehash(account.pw):
            with contextlib.suppress(Exception):
                rehashed = await self.passwords.hash(normalise(secret))
                await self.store.set_fields(account.player, pw=rehashed)
        return await self._open_session(account, agent)

    async def passkey_signin_options(self, party: passkeys.Party, net: str) -> dict[str, Any]:
        options, challenge = passkeys.authentication_options(party)
        data = {"kind": "signin", "challenge": challenge}
        return {"challenge_id": await self._new_challenge(net, data), "options": options}

    async def passkey_signin(
        self, party: passkeys.Party, challenge_id: object, credential: Any, net: str, agent: str
    ) -> SignedIn:
        data = await self._challenge(challenge_id, "signin")
        player = await self._check_assertion(party, credential, data["challenge"], None, net)
        return await self._open_session(await self._loaded(player), agent)

    async def _check_assertion(
        self, party: passkeys.Party, credential: Any, challenge: str, expected: str | None, net: str
    ) -> str:
        """The player whose stored passkey made this valid assertion of ``challenge`` (and, with
        ``expected``, only that player's); else ``bad_passkey``, counted by the sign-in throttle."""
        player, credential_id = passkeys.claimed_user(credential)
        subject = "pk:" + player[:20]  # a user handle, not a username: its own counts
        await self._refuse_if_waiting(subject, net)
        mine = keys_ok(player) and (expected is None or player == expected)
        entry = await self.store.passkey(player, credential_id) if mine else None
        if entry is None:
            await self.throttle.failed(subject, net)
            raise AccountError("bad_passkey", "this passkey is not one of an account here")
        try:
            count = passkeys.verify_authentication(
                party, credential, challenge, entry["public_key"], int(entry["sign_count"])
            )
        except AccountError:
            await self.throttle.failed(subject, net)
            raise
        await self.store.used_passkey(player, credential_id, entry, count)
        return player

    # --- sessions -----------------------------------------------------------------------------------------
    async def list_sessions(self, player: str, current: str) -> list[dict[str, Any]]:
        return [
            {
                "id": info.id,
                "created": info.created,
                "seen": info.seen,
                "agent": info.agent,
                "current": h == current,
            }
            for h, info in await self.store.list_sessions(player)
        ]

    async def sign_out(self, player: str, which: list[str] | None, keep: str | None = None) -> int:
        """Sign out the sessions whose id is in ``which`` (None: all), except ``keep`` (a stored hash)."""
        listed = await self.store.list_sessions(player)
        drop = [h for h, info in listed if (which is None or info.id in which) and h != keep]
        await self.store.drop_sessions(player, drop)
        await self.close_connections(player, set(drop))
        return len(drop)

    async def close_connections(self, player: str, hashes: set[str]) -> None:
        """Close the websockets opened with one of these sessions: here at once, on other instances through
        ``SIGNOUT_CHANNEL`` (best effort: a connection missed there becomes a guest when it reconnects)."""
        if not hashes:
            return
        self.close_local(player, hashes)
        try:
            await self.ctx.hub.publish(SIGNOUT_CHANNEL, {"player": player, "sessions": sorted(hashes)})
        except Exception as exc:
            log.warning("sign-out not published to other instances: %s", type(exc).__name__)

    def close_local(self, player: str, hashes: set[str]) -> None:
        for live in list(self.ctx.sessions):
            if live.player == player and live.extras.get("account_session", GUESTS) in hashes:
                live.close(CLOSE_SIGNED_OUT)

    def deliver(self, envelope: Any) -> None:
        """A sign-out published by an instance (this one included): close the local connections."""
        message = envelope.message
        player, hashes = message.get("player"), message.get("sessions")
        if isinstance(player, str) and isinstance(hashes, list):
            self.close_local(player, {h for h in hashes if isinstance(h, str)})

    # --- the account's own data -----------------------------------------------------------------------
    async def change_password(
        self, player: str, current_hash: str, proof: Reauth, new: object, net: str
    ) -> Account:
        """A new password: the current one (``proof.password``), or for a passkey account setting its
        first one, a passkey assertion (``reauthenticate``); every other session is signed out."""
        account = await self._loaded(player)
        secret = check_password(new, account.username, self.settings)
        await self.reauthenticate(account, proof, net)
        await self.store.set_fields(player, pw=await self.passwords.hash(secret), pw_changed=now_ms())
        await self.sign_out(player, None, keep=current_hash)
        return await self._loaded(player)

    async def set_display(self, player: str, display: object) -> Account:
        shown = clean_display(display, self.settings.display_max)
        await self.store.set_fields(player, display=shown)
        return await self._loaded(player)

    async def rename(self, player: str, username: object) -> Account:
        account = await self._loaded(player)
        name = check_username(username)
        if fold(name) == fold(account.username):
            await self.store.set_fields(player, username=name)  # only the spelling changes
            return await self._loaded(player)
        if account.renamed and now_ms() < account.renamed + self.settings.rename_every_s * 1000:
            at = account.renamed + self.settings.rename_every_s * 1000
            raise AccountError("rename_too_soon", "one username change a week", retry_ms=at - now_ms())
        if not await self.store.claim_username(name, player):
            raise AccountError("username_taken", "this username is taken")
        await self.store.set_fields(player, username=name, renamed=now_ms())
        await self.store.release_username(account.username, player)
        return await self._loaded(player)

    async def profile(self, player: str, recent: int = 20) -> dict[str, Any]:
        account = await self._loaded(player)
        games = await self.history.recent(player, recent)
        streak: dict[str, int] = {"current": 0, "best": 0}
        races = self.ctx.extras.get("races")
        if races is not None:
            with contextlib.suppress(Exception):
                from ..races.daily import day_of

                s = await races.service.daily.streak(player)
                streak = {"current": s.current(day_of(now_ms())), "best": s.best}
        return {
            "account": account.public(self.settings),
            "stats": await self.history.stats(player),
            "streak": streak,
            "recent": [_summary(g) for g in games],
            "open": await self.ctx.store.player_games(player),
        }

    async def reauth_options(self, party: passkeys.Party, player: str, net: str) -> dict[str, Any]:
        """A passkey assertion request for a signed-in account proving itself again (``reauthenticate``):
        its own passkeys only; the challenge is bound to the account and used once."""
        existing = await self.store.passkey_ids(player)
        if not existing:
            raise AccountError("bad_passkey", "this account has no passkey")
        options, challenge = passkeys.authentication_options(party, existing)
        data = {"kind": "reauth", "challenge": challenge, "player": player}
        return {"challenge_id": await self._new_challenge(net, data), "options": options}

    async def reauthenticate(self, account: Account, proof: Reauth, net: str) -> None:
        """The signed-in person proves again that they are the account (a session alone, a borrowed phone
        or a stolen cookie, is not enough) before what would let a session holder keep or destroy it:
        deleting it, changing or setting its password, adding a passkey. A fresh assertion of one of its
        passkeys (a challenge of ``reauth_options``), or its password. Failures count like failed sign-ins
        (``Throttle``: a password for the account's username, a passkey for its player) and answer their
        sign-in codes."""
        if proof.challenge_id is not None or proof.credential is not None:
            data = await self._challenge(proof.challenge_id, "reauth")
            if data.get("player") != account.player:
                raise AccountError("bad_challenge", "this passkey request belongs to another account")
            await self._check_assertion(proof.party, proof.credential, data["challenge"], account.player, net)
            return
        if account.pw is None or proof.password is None:
            method = "password" if account.pw is not None else "passkey"
            raise AccountError("reauth_required", f"confirm with the account's {method}", method=method)
        subject = "user:" + fold(account.username)
        await self._refuse_if_waiting(subject, net)
        secret = proof.password if isinstance(proof.password, str) else ""
        if not await self.passwords.verify(account.pw, normalise(secret[: self.settings.password_max * 4])):
            wait = await self.throttle.failed(subject, net)
            params = {"retry_ms": wait} if wait else {}
            raise AccountError("bad_credentials", "the password does not match", **params)
        await self.throttle.succeeded(subject)

    async def delete(self, player: str, confirm: object, proof: Reauth, net: str) -> None:
        """The account and its personal data go; its public leaderboard entries become a deleted player's.
        Needs the username typed again and ``reauthenticate``."""
        account = await self._loaded(player)
        if not isinstance(confirm, str) or fold(confirm) != fold(account.username):
            raise AccountError("bad_request", "confirm with the account's username", field="confirm")
        await self.reauthenticate(account, proof, net)
        ghost = DELETED_PREFIX + secrets.token_hex(6)
        for board in await self.store.boards_of(player):
            base = f"lb:{{{board}}}"
            await self._anonymise(keys=[base + ":z", base + ":p", base + ":e"], args=[player, ghost])
        games = await self.history.forget(player)
        redis = self.ctx.redis
        days = sorted({g.daily for g in games if g.daily})
        for day in days:
            await redis.hdel(f"daily:{{{day}}}:done", player)
        base = f"lb:{{pb:{player}}}"
        await redis.delete(base + ":z", base + ":p", base + ":e")
        await redis.delete(f"streak:{{{player}}}")
        await redis.delete(f"stats:{{{player}}}:e", f"stats:{{{player}}}:z")  # the stats page's games
        await redis.delete(f"player:{{{player}}}", f"player:{{{player}}}:games")
        listed = await self.store.list_sessions(player)
        await self.store.remove(player, account.username)
        await self.close_connections(player, {h for h, _ in listed})


def _summary(game: Any) -> dict[str, Any]:
    out = {
        "game": game.game,
        "mode": game.mode,
        "kind": game.kind,
        "rules": game.rules,
        "status": game.status,
        "score": game.score,
        "moves": game.moves,
        "elapsed": game.elapsed,
        "finished_at": game.finished_at,
        "ranked": game.ranked,
        "race": game.race,
        "daily": game.daily,
    }
    return out


def keys_ok(player: str) -> bool:
    """Whether ``player`` has the shape of a player id (a user handle from a browser is untrusted)."""
    return PLAYER_ID.fullmatch(player) is not None
