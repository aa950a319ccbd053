"""Deleting an account needs more than a signed-in session (a borrowed phone, a stolen cookie): the
account's password, or a fresh assertion of one of its own passkeys; so does what would let a session holder
make that proof themselves (setting or changing the password, adding a passkey). Written as the attacks
first (real HTTP, real Redis, real signatures from the software authenticator)."""

from __future__ import annotations

from typing import Any

import httpx
import redis.asyncio as aioredis
from webauthn.helpers import bytes_to_base64url

from golfrace.accounts.sessions import COOKIE
from golfrace.store import account_keys as keys
from golfrace_testkit.servers import RunningServer

from .conftest import PASSWORD, TIMEOUT, new_name, sign_up
from .soft_authenticator import SoftAuthenticator


async def _post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> httpx.Response:
    return await http.post(f"/api/account{path}", json=body)


async def _thief(server: RunningServer, victim: httpx.AsyncClient) -> httpx.AsyncClient:
    """Another browser holding only a copy of the victim's session cookie."""
    client = httpx.AsyncClient(base_url=server.site, timeout=TIMEOUT)
    client.cookies.set(COOKIE, victim.cookies[COOKIE])
    return client


async def _passkey_account(http: httpx.AsyncClient, auth: SoftAuthenticator) -> dict[str, Any]:
    start = (await _post(http, "/passkey/signup/options", {"username": new_name("Pkd")})).json()
    r = await _post(
        http,
        "/passkey/signup",
        {"challenge_id": start["challenge_id"], "credential": auth.create(start["options"])},
    )
    assert r.status_code == 201, r.text
    account: dict[str, Any] = r.json()["account"]
    return account


async def test_a_stolen_session_cannot_delete_a_password_account(
    http: httpx.AsyncClient, acct_server: RunningServer, rds: aioredis.Redis
) -> None:
    name = new_name("Vic")
    player = (await sign_up(http, name))["account"]["player"]
    async with await _thief(acct_server, http) as thief:
        assert (await thief.get("/api/account/profile")).status_code == 200  # the cookie works
        bare = await _post(thief, "/delete", {"confirm": name})
        assert bare.status_code == 401 and bare.json()["error"] == "reauth_required"
        assert bare.json()["params"] == {"method": "password"}
        guesses = [
            await _post(thief, "/delete", {"confirm": name, "password": f"guess {i}"}) for i in range(4)
        ]
        assert [g.json()["error"] for g in guesses] == ["bad_credentials"] * 4
        assert guesses[-1].json()["params"]["retry_ms"] > 0  # the sign-in throttle counts these guesses
        assert PASSWORD not in str([g.text for g in guesses])
        blocked = await _post(thief, "/delete", {"confirm": name, "password": PASSWORD})
        assert blocked.status_code == 429 and blocked.json()["error"] == "too_many_attempts"
        # the same count as a sign-in with this name: guessing here does not dodge the sign-in limit
        signin = await _post(thief, "/signin", {"username": name, "password": PASSWORD})
        assert signin.json()["error"] == "too_many_attempts"
        assert await rds.exists(keys.account(player))  # nothing was deleted
        assert (await http.get("/api/account/profile")).status_code == 200
    for key in [k async for k in rds.scan_iter(match="thr:*")]:
        await rds.delete(key)  # the wait over (as the throttle's own tests wait for it)
    r = await _post(http, "/delete", {"confirm": name, "password": PASSWORD})
    assert r.status_code == 200 and r.json() == {"deleted": True}
    assert not await rds.exists(keys.account(player))


async def test_a_passkey_account_is_deleted_only_with_a_fresh_assertion_of_its_own_passkey(
    http: httpx.AsyncClient, acct_server: RunningServer, rds: aioredis.Redis
) -> None:
    auth = SoftAuthenticator(acct_server.site)
    account = await _passkey_account(http, auth)
    name, player = account["username"], account["player"]
    other_auth = SoftAuthenticator(acct_server.site)
    async with httpx.AsyncClient(base_url=acct_server.site, timeout=TIMEOUT) as other_http:
        other = await _passkey_account(other_http, other_auth)
        # the attacker's own passkey cannot confirm the victim's deletion
        async with await _thief(acct_server, http) as thief:
            bare = await _post(thief, "/delete", {"confirm": name})
            assert bare.status_code == 401 and bare.json()["params"] == {"method": "passkey"}
            guess = await _post(thief, "/delete", {"confirm": name, "password": PASSWORD})
            assert guess.json()["error"] == "reauth_required"  # a passkey account has no password to guess
            start = (await _post(thief, "/reauth/options", {})).json()
            allowed = [c["id"] for c in start["options"]["allowCredentials"]]
            assert allowed == [
                bytes_to_base64url(auth.credential_id)
            ]  # only the account's own passkeys are asked for
            forged = other_auth.get(start["options"])
            r = await _post(
                thief,
                "/delete",
                {"confirm": name, "challenge_id": start["challenge_id"], "credential": forged},
            )
            assert r.status_code == 400 and r.json()["error"] == "bad_passkey"
            # a challenge made for another account (or for signing in) does not confirm this one
            theirs = (await _post(other_http, "/reauth/options", {})).json()
            answer = auth.get(theirs["options"])
            r = await _post(
                thief,
                "/delete",
                {"confirm": name, "challenge_id": theirs["challenge_id"], "credential": answer},
            )
            assert r.json()["error"] == "bad_challenge"
            signin = (await _post(thief, "/passkey/signin/options", {})).json()
            answer = auth.get(signin["options"])
            r = await _post(
                thief,
                "/delete",
                {"confirm": name, "challenge_id": signin["challenge_id"], "credential": answer},
            )
            assert r.json()["error"] == "bad_challenge"
        assert await rds.exists(keys.account(player)) and await rds.exists(keys.account(other["player"]))
    # the owner, with the passkey: once
    start = (await _post(http, "/reauth/options", {})).json()
    answer = auth.get(start["options"])
    body = {"confirm": name, "challenge_id": start["challenge_id"], "credential": answer}
    r = await _post(http, "/delete", body)
    assert r.status_code == 200 and r.json() == {"deleted": True}
    assert not await rds.exists(keys.account(player)) and not await rds.exists(keys.passkeys(player))


async def test_a_stolen_session_cannot_give_itself_a_proof(
    http: httpx.AsyncClient, acct_server: RunningServer, rds: aioredis.Redis
) -> None:
    """Without this, a thief would set a password on a passkey account, or add their own passkey, or guess
    the current password unthrottled through a change of password, and then delete with that."""
    auth = SoftAuthenticator(acct_server.site)
    account = await _passkey_account(http, auth)
    player = account["player"]
    async with await _thief(acct_server, http) as thief:
        r = await _post(thief, "/password", {"password": "the thief's new password"})
        assert r.status_code == 401 and r.json()["error"] == "reauth_required"
        r = await _post(thief, "/passkey/add/options", {})
        assert r.status_code == 401 and r.json()["error"] == "reauth_required"
    assert (await rds.hget(keys.account(player), "pw")) is None
    assert len(await rds.hkeys(keys.passkeys(player))) == 1
    # the owner sets a first password with a fresh passkey assertion
    start = (await _post(http, "/reauth/options", {})).json()
    proof = {"challenge_id": start["challenge_id"], "credential": auth.get(start["options"])}
    r = await _post(http, "/password", {**proof, "password": "a first password here"})
    assert r.status_code == 200 and r.json()["account"]["password"] is True
    # a password account: guessing the current one through a change of password is throttled like a sign-in
    name = new_name("Chg")
    await sign_up(http, name)
    async with await _thief(acct_server, http) as thief:
        tries = [
            await _post(thief, "/password", {"current": f"guess {i}", "password": "x" * 12}) for i in range(4)
        ]
        assert [t.json()["error"] for t in tries] == ["bad_credentials"] * 4
        assert tries[-1].json()["params"]["retry_ms"] > 0
        blocked = await _post(
            thief, "/password", {"current": PASSWORD, "password": "the thief's new password"}
        )
        assert blocked.status_code == 429 and blocked.json()["error"] == "too_many_attempts"
        r = await _post(thief, "/passkey/add/options", {"password": "guess 5"})
        assert r.json()["error"] == "too_many_attempts"  # the same count
    http.cookies.clear()
    r = await _post(http, "/signin", {"username": name, "password": PASSWORD})
    assert r.json()["error"] == "too_many_attempts"  # the sign-in sees the guesses too; the password held
