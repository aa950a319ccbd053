"""The passkey ceremonies of ``Accounts`` (``accounts.ceremonies``): signing up with a passkey, signing in
with one, adding one more, and proving again who one is before a change that could keep or destroy the
account (``reauthenticate``: a fresh assertion of one of its passkeys, or its password). Each ceremony is
two requests: its options (a challenge kept in Redis, at most ``challenges_per_minute`` per network, taken
once) and the browser's answer, checked by ``passkeys.py``; failed assertions count like failed sign-ins."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from golfrace.wire.ids import PLAYER_ID

from . import passkeys
from .errors import AccountError
from .names import fold
from .passwords import normalise
from .store import Account

if TYPE_CHECKING:
    from .service import Accounts, SignedIn


@dataclass(frozen=True, slots=True)
class Reauth:
    """What a request brings to prove again who it is: the password, or a passkey assertion of a challenge
    made by ``reauth_options`` (its id and the browser's answer); ``party`` checks the assertion."""

    party: passkeys.Party
    password: object = None
    challenge_id: object = None
    credential: Any = None


class Ceremonies:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.settings = accounts.settings
        self.store = accounts.store
        self.throttle = accounts.throttle

    # --- sign-up and adding a passkey -----------------------------------------------------------------
    async def signup_options(
        self, party: passkeys.Party, username: object, display: object, token: object, net: str
    ) -> dict[str, Any]:
        name, shown = self.accounts.check_new(username, display)
        await self.accounts.check_quota(net)
        await self.accounts.check_free(name, net)
        player = await self.accounts.new_player(token)
        options, challenge = passkeys.registration_options(party, player, name, shown, [])
        data = {
            "kind": "signup",
            "challenge": challenge,
            "player": player,
            "username": name,
            "display": shown,
        }
        return {"challenge_id": await self._new_challenge(net, data), "options": options}

    async def add_options(
        self, party: passkeys.Party, player: str, proof: Reauth, net: str
    ) -> dict[str, Any]:
        """Registration options for one more passkey, after ``reauthenticate`` (a session holder's own passkey
        would otherwise confirm everything after)."""
        account = await self.accounts.loaded(player)
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

    async def signup(
        self, party: passkeys.Party, challenge_id: object, credential: Any, net: str, agent: str
    ) -> SignedIn:
        data = await self._challenge(challenge_id, "signup")
        new = passkeys.verify_registration(party, credential, data["challenge"])
        async with self.throttle.signup(net):
            account = await self.accounts.create(data["player"], data["username"], data["display"], None, net)
            await self.store.add_passkey(account.player, new.credential_id, new.public_key, new.sign_count)
        return await self.accounts.open_session(await self.accounts.loaded(account.player), agent)

    async def add(self, party: passkeys.Party, player: str, challenge_id: object, credential: Any) -> Account:
        data = await self._challenge(challenge_id, "add")
        if data["player"] != player:
            raise AccountError("bad_challenge", "this passkey request belongs to another session")
        new = passkeys.verify_registration(party, credential, data["challenge"])
        await self.store.add_passkey(player, new.credential_id, new.public_key, new.sign_count)
        return await self.accounts.loaded(player)

    # --- sign-in ------------------------------------------------------------------------------------------
    async def signin_options(self, party: passkeys.Party, net: str) -> dict[str, Any]:
        options, challenge = passkeys.authentication_options(party)
        data = {"kind": "signin", "challenge": challenge}
        return {"challenge_id": await self._new_challenge(net, data), "options": options}

    async def signin(
        self, party: passkeys.Party, challenge_id: object, credential: Any, net: str, agent: str
    ) -> SignedIn:
        data = await self._challenge(challenge_id, "signin")
        player = await self._check_assertion(party, credential, data["challenge"], None, net)
        return await self.accounts.open_session(await self.accounts.loaded(player), agent)

    async def _check_assertion(
        self, party: passkeys.Party, credential: Any, challenge: str, expected: str | None, net: str
    ) -> str:
        """The player whose stored passkey made this valid assertion of ``challenge`` (and, with
        ``expected``, only that player's); else ``bad_passkey``, counted by the sign-in throttle."""
        player, credential_id = passkeys.claimed_user(credential)
        subject = "pk:" + player[:20]  # a user handle, not a username: its own counts
        async with self.throttle.attempt(subject, net) as attempt:
            mine = keys_ok(player) and (expected is None or player == expected)
            entry = await self.store.passkey(player, credential_id) if mine else None
            if entry is None:
                raise AccountError("bad_passkey", "this passkey is not one of an account here")
            count = passkeys.verify_authentication(
                party, credential, challenge, entry["public_key"], int(entry["sign_count"])
            )
            attempt.succeeded()
        await self.store.used_passkey(player, credential_id, entry, count)
        return player

    # --- proving it again ---------------------------------------------------------------------------------
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
        async with self.throttle.attempt(subject, net) as attempt:
            secret = proof.password if isinstance(proof.password, str) else ""
            passwords = self.accounts.passwords
            if not await passwords.verify(account.pw, normalise(secret[: self.settings.password_max * 4])):
                params = {"retry_ms": attempt.delay} if attempt.delay else {}
                raise AccountError("bad_credentials", "the password does not match", **params)
            attempt.succeeded()


def keys_ok(player: str) -> bool:
    """Whether ``player`` has the shape of a player id (a user handle from a browser is untrusted)."""
    return PLAYER_ID.fullmatch(player) is not None
