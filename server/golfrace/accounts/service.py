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

from . import sessions
from .ceremonies import Ceremonies
from .errors import AccountError
from .history import History
from .names import check_username, clean_display, fold
from .passwords import Passwords, check_password, normalise
from .profile import Profile
from .settings import AccountSettings
from .store import Account, AccountStore
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
        token = sessions.new_token(account.player)
        parsed = sessions.parse(token)
        assert parsed is not None  # made by new_token
        await self.store.add_session(account.player, parsed[1], agent)
        return SignedIn(account, token)

    async def loaded(self, player: str) -> Account:
        account = await self.store.load(player)
        if account is None:
            raise AccountError("not_signed_in", "the account is gone")
        return account

    # --- sign-up ----------------------------------------------------------------------------------------
    async def check_quota(self, net: str) -> None:
        if not await self.throttle.signups_left(net):
            raise AccountError(
                "too_many_signups",
                f"at most {self.settings.signups_per_ip} new accounts per address a day",
                retry_ms=self.settings.signup_window_s * 1000,
            )

    def check_new(self, username: object, display: object) -> tuple[str, str]:
        name = check_username(username)
        return name, clean_display(display if display is not None else "", self.settings.display_max)

    async def create(self, player: str, username: str, display: str, pw: str | None, net: str) -> Account:
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
        return await self.loaded(player)

    async def sign_up_password(
        self, username: object, password: object, display: object, token: object, net: str, agent: str
    ) -> SignedIn:
        name, shown = self.check_new(username, display)
        secret = check_password(password, name, self.settings)
        await self.check_quota(net)
        if await self.store.owner_of(name) is not None:
            raise AccountError("username_taken", "this username is taken")
        hashed = await self.passwords.hash(secret)
        account = await self.create(await self.new_player(token), name, shown, hashed, net)
        return await self.open_session(account, agent)

    # --- sign-in ------------------------------------------------------------------------------------------
    async def refuse_if_waiting(self, subject: str, net: str) -> None:
        wait = await self.throttle.wait_ms(subject, net)
        if wait > 0:
            raise AccountError("too_many_attempts", "too many failed sign-ins; wait and retry", retry_ms=wait)

    async def sign_in_password(self, username: object, password: object, net: str, agent: str) -> SignedIn:
        name = username if isinstance(username, str) else ""
        folded = fold(name[:64])
        subject = "user:" + folded  # throttled whether or not an account has the name
        await self.refuse_if_waiting(subject, net)
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
        return await self.open_session(account, agent)

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
