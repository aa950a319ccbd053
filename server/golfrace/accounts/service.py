"""The account service: one ``Accounts`` per server process, in ``ctx.extras["accounts"]``, over
``AccountStore``, ``Throttle``, ``Passwords`` and ``History``. It knows who a session is, signs up and in with
a username and password, and keeps the sessions: it opens them, lists them and signs them out (closing the
websockets they opened, on every instance). Its parts: ``ceremonies.py`` (passkey sign-up, sign-in and adding
one; proving again who one is) and ``profile.py`` (the account's own data: its profile, its changes, its
deletion); HTTP lives in ``routes.py``."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from golfrace.settings.accounts import AccountSettings
from golfrace.store import lookalike
from golfrace.store.history import History
from golfrace.wire.protocol import CLOSE_SIGNED_OUT

from . import sessions
from .ceremonies import Ceremonies
from .devices import describe
from .errors import AccountError
from .names import check_not_another, check_username, clean_display, fold
from .passwords import Passwords, check_password, normalise
from .profile import Profile
from .store import Account, AccountStore
from .throttle import Throttle, quota_error

if TYPE_CHECKING:
    from golfrace.live.services import Context

log = logging.getLogger("golfrace.accounts")
SIGNOUT_CHANNEL = "accounts:signout"
"""Pub/sub channel on which a sign-out reaches every instance: ``{"player", "sessions": [stored hash…]}``
(hashes of tokens, not tokens)."""
GUESTS = ""
"""In a sign-out's session hashes: the player's connections that said hello without a session."""


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
        self.history = History(ctx.redis, settings, ctx.store.batch)
        self.ceremonies = Ceremonies(self)
        self.profile = Profile(self)

    # --- identity ---------------------------------------------------------------------------------------
    async def new_player(self, token: object) -> str:
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

    async def open_session(self, account: Account, agent: str) -> SignedIn:
        # an account made before fair play 19.6 gets its username's look-alike keys at its next sign-in
        await lookalike.claim(self.ctx.redis, account.username, account.player)
        token = sessions.new_token(account.player)
        parsed = sessions.parse(token)
        assert parsed is not None  # made by new_token
        await self.store.add_session(account.player, parsed[1], agent, await describe(agent))
        return SignedIn(account, token)

    async def loaded(self, player: str) -> Account:
        account = await self.store.load(player)
        if account is None:
            raise AccountError("not_signed_in", "the account is gone")
        return account

    # --- sign-up ----------------------------------------------------------------------------------------
    async def check_quota(self, net: str) -> None:
        """``too_many_signups`` if the network may make no more accounts (a sign-up itself takes one of its
        quota: ``Throttle.signup``)."""
        if not await self.throttle.signups_left(net):
            raise quota_error(self.settings)

    def check_new(self, username: object, display: object) -> tuple[str, str]:
        name = check_username(username)
        return name, clean_display(display if display is not None else "", self.settings.display_max)

    async def check_free(self, name: str, net: str) -> None:
        """``username_taken`` if an account has ``name``: the answer tells that a name exists, so the check
        counts like a failed sign-in for the network, and is given back when the name was free."""
        async with self.throttle.attempt(None, net) as attempt:
            if await self.store.owner_of(name) is not None:
                raise AccountError("username_taken", "this username is taken")
            attempt.succeeded()

    async def create(self, player: str, username: str, display: str, pw: str | None, net: str) -> Account:
        """The account (the caller holds one of the network's sign-ups: ``Throttle.signup``)."""
        if not await self.store.claim_username(username, player):
            raise AccountError("username_taken", "this username is taken")
        redis = self.ctx.redis
        if not await lookalike.claim(redis, username, player):  # fair play 19.6: paypaI beside paypal
            await self.store.release_username(username, player)
            raise AccountError("username_taken", "this username looks like another account's")
        try:
            await check_not_another(redis, display, player)
        except AccountError:
            await lookalike.release(redis, username, player)
            await self.store.release_username(username, player)
            raise
        if not await self.store.create(player, username, display, pw):
            await lookalike.release(redis, username, player)
            await self.store.release_username(username, player)
            raise AccountError("already_signed_in", "this player has an account already")
        await self.history.keep(player)
        # the player's guest connections (no session: whoever holds the old token) go; a page of this
        # browser reconnects with its new cookie and is the account
        await self.close_connections(player, {GUESTS})
        return await self.loaded(player)

    async def sign_up_password(
        self, username: object, password: object, display: object, token: object, net: str, agent: str
    ) -> SignedIn:
        name, shown = self.check_new(username, display)
        secret = check_password(password, name, self.settings)
        async with self.throttle.signup(net):  # taken first: a burst cannot pass the quota
            await self.check_free(name, net)
            hashed = await self.passwords.hash(secret)
            account = await self.create(await self.new_player(token), name, shown, hashed, net)
        return await self.open_session(account, agent)

    # --- sign-in ------------------------------------------------------------------------------------------
    async def sign_in_password(self, username: object, password: object, net: str, agent: str) -> SignedIn:
        name = username if isinstance(username, str) else ""
        folded = fold(name[:64])
        subject = "user:" + folded  # throttled whether or not an account has the name
        async with self.throttle.attempt(subject, net) as attempt:
            secret = password if isinstance(password, str) else ""
            secret = secret[: self.settings.password_max * 4]
            player = await self.store.owner_of(folded) if 0 < len(folded) <= 20 else None
            account = await self.store.load(player) if player is not None else None
            ok = await self.passwords.verify(account.pw if account else None, normalise(secret))
            if not ok or account is None:
                params = {"retry_ms": attempt.delay} if attempt.delay else {}
                raise AccountError("bad_credentials", "this username and password do not match", **params)
            attempt.succeeded()
        if account.pw is not None and self.passwords.needs_rehash(account.pw):
            with contextlib.suppress(Exception):
                rehashed = await self.passwords.hash(normalise(secret))
                await self.store.set_fields(account.player, pw=rehashed)
        return await self.open_session(account, agent)

    # --- sessions -----------------------------------------------------------------------------------------
    async def list_sessions(self, player: str, current: str) -> list[dict[str, Any]]:
        """The account's sessions, the one asking first, then the most recently seen."""
        listed = [
            {
                "id": info.id,
                "created": info.created,
                "seen": info.seen,
                "agent": info.agent,
                "device": info.device if info.device is not None else await describe(info.agent),
                "current": h == current,
            }
            for h, info in await self.store.list_sessions(player)
        ]
        return sorted(listed, key=lambda s: (not s["current"], -s["seen"]))

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
            if live.player == player and (live.account_session or GUESTS) in hashes:
                live.close(CLOSE_SIGNED_OUT)

    def deliver(self, envelope: Any) -> None:
        """A sign-out published by an instance (this one included): close the local connections."""
        message = envelope.message
        player, hashes = message.get("player"), message.get("sessions")
        if isinstance(player, str) and isinstance(hashes, list):
            self.close_local(player, {h for h in hashes if isinstance(h, str)})
