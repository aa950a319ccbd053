"""Passkeys over real HTTP: the options the server asks for, a full sign-up and sign-in with a software
authenticator (real keys and signatures), and every way an answer is refused."""

from __future__ import annotations

from typing import Any

import httpx
import redis.asyncio as aioredis

from golfrace.accounts.sessions import COOKIE
from golfrace.store import account_keys as keys
from golfrace_testkit.servers import RunningServer

from .conftest import new_name, ws_client
from .soft_authenticator import SoftAuthenticator


async def _post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> httpx.Response:
    return await http.post(f"/api/account{path}", json=body)


async def _sign_up(
    http: httpx.AsyncClient, auth: SoftAuthenticator, name: str, **extra: Any
) -> httpx.Response:
    start = (await _post(http, "/passkey/signup/options", {"username": name, **extra})).json()
    credential = auth.create(start["options"])
    return await _post(
        http, "/passkey/signup", {"challenge_id": start["challenge_id"], "credential": credential}
    )


async def test_options_ask_for_a_discoverable_verified_passkey_of_this_host(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    guest = await ws_client(acct_server)
    r = await _post(
        http, "/passkey/signup/options", {"username": new_name(), "display": "Kay", "token": guest.token}
    )
    assert r.status_code == 200, r.text
    options = r.json()["options"]
    assert options["rp"] == {"id": "localhost", "name": "Golf Race"}
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    assert options["attestation"] == "none" and options["user"]["displayName"] == "Kay"
    # the user handle is the guest's player id: the account will take it
    from webauthn.helpers import base64url_to_bytes

    assert base64url_to_bytes(options["user"]["id"]).decode() == guest.player
    await guest.close()


async def test_sign_up_then_sign_in_with_a_passkey(
    http: httpx.AsyncClient, acct_server: RunningServer, rds: aioredis.Redis
) -> None:
    auth = SoftAuthenticator(acct_server.site)
    name = new_name("Pk")
    r = await _sign_up(http, auth, name, display="Pia")
    assert r.status_code == 201, r.text
    account = r.json()["account"]
    assert account["passkeys"] == 1 and account["password"] is False
    stored = await rds.hgetall(keys.passkeys(account["player"]))
    from webauthn.helpers import bytes_to_base64url

    assert list(stored) == [bytes_to_base64url(auth.credential_id).encode()]
    assert COOKIE not in r.text and "public_key" not in r.text  # the key stays on the server
    http.cookies.clear()
    start = (await _post(http, "/passkey/signin/options", {})).json()
    assert start["options"]["allowCredentials"] == [] and start["options"]["userVerification"] == "required"
    answer = auth.get(start["options"])
    r = await _post(http, "/passkey/signin", {"challenge_id": start["challenge_id"], "credential": answer})
    assert r.status_code == 200, r.text
    client = await ws_client(acct_server, session=http.cookies[COOKIE])
    assert client.player == account["player"]
    await client.close()
    # the challenge was taken once: the same answer again is refused
    r = await _post(http, "/passkey/signin", {"challenge_id": start["challenge_id"], "credential": answer})
    assert r.status_code == 400 and r.json()["error"] == "bad_challenge"


async def test_answers_are_refused_for_another_origin_no_verification_or_a_foreign_key(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    auth = SoftAuthenticator(acct_server.site)
    start = (await _post(http, "/passkey/signup/options", {"username": new_name()})).json()
    bad = auth.create(start["options"], origin="https://evil.example")
    r = await _post(http, "/passkey/signup", {"challenge_id": start["challenge_id"], "credential": bad})
    assert r.status_code == 400 and r.json()["error"] == "bad_passkey"
    start = (await _post(http, "/passkey/signup/options", {"username": new_name()})).json()
    unverified = auth.create(start["options"], verified=False)
    r = await _post(
        http, "/passkey/signup", {"challenge_id": start["challenge_id"], "credential": unverified}
    )
    assert r.json()["error"] == "bad_passkey"
    start = (await _post(http, "/passkey/signup/options", {"username": new_name()})).json()
    r = await _post(http, "/passkey/signup", {"challenge_id": start["challenge_id"], "credential": {"x": 1}})
    assert r.json()["error"] == "bad_passkey"
    # a sign-in challenge is no sign-up challenge
    signin = (await _post(http, "/passkey/signin/options", {})).json()
    r = await _post(http, "/passkey/signup", {"challenge_id": signin["challenge_id"], "credential": bad})
    assert r.json()["error"] == "bad_challenge"
    # a key the account never registered (same user handle, other key) cannot sign in
    name = new_name()
    assert (await _sign_up(http, auth, name)).status_code == 201
    http.cookies.clear()
    thief = SoftAuthenticator(
        acct_server.site, credential_id=auth.credential_id, user_handle=auth.user_handle
    )
    start = (await _post(http, "/passkey/signin/options", {})).json()
    r = await _post(
        http,
        "/passkey/signin",
        {"challenge_id": start["challenge_id"], "credential": thief.get(start["options"])},
    )
    assert r.status_code == 400 and r.json()["error"] == "bad_passkey" and COOKIE not in http.cookies
    start = (await _post(http, "/passkey/signin/options", {})).json()
    garbage = {"rawId": "AAAA", "response": {"userHandle": "not base64!"}}
    r = await _post(http, "/passkey/signin", {"challenge_id": start["challenge_id"], "credential": garbage})
    assert r.json()["error"] == "bad_passkey"


async def test_a_signed_in_account_adds_a_passkey_and_the_username_is_checked_first(
    http: httpx.AsyncClient, acct_server: RunningServer
) -> None:
    name = new_name("Two")
    first = SoftAuthenticator(acct_server.site)
    assert (await _sign_up(http, first, name)).status_code == 201
    r = await _post(http, "/passkey/add/options", {})  # the session alone is not enough
    assert r.status_code == 401 and r.json()["error"] == "reauth_required"
    again = (await _post(http, "/reauth/options", {})).json()  # the account's own passkey, asked again
    proof = {"challenge_id": again["challenge_id"], "credential": first.get(again["options"])}
    start = (await _post(http, "/passkey/add/options", proof)).json()
    assert len(start["options"]["excludeCredentials"]) == 1
    second = SoftAuthenticator(acct_server.site)
    r = await _post(
        http,
        "/passkey/add",
        {"challenge_id": start["challenge_id"], "credential": second.create(start["options"])},
    )
    assert r.status_code == 200 and r.json()["account"]["passkeys"] == 2
    http.cookies.clear()
    r = await _post(http, "/passkey/signup/options", {"username": name.upper()})
    assert r.status_code == 409 and r.json()["error"] == "username_taken"
    r = await _post(http, "/passkey/add/options", {})
    assert r.status_code == 401 and r.json()["error"] == "not_signed_in"


async def test_on_an_ip_address_a_passkey_ceremony_is_refused_with_the_address_to_use(
    acct_server: RunningServer,
) -> None:
    """Issue 20.4: WebAuthn needs a domain name; on ``http://127.0.0.1:PORT`` (what ``make run`` used to
    print) a passkey could never be made, and the page said "could not be checked, try again". The server
    says why, and which address works; a password still works there."""
    async with httpx.AsyncClient(base_url=acct_server.http, timeout=10) as on_ip:
        for path, body in (
            ("/passkey/signup/options", {"username": new_name()}),
            ("/passkey/signin/options", {}),
            ("/passkey/signup", {"challenge_id": "x", "credential": {}}),
            ("/passkey/signin", {"challenge_id": "x", "credential": {}}),
        ):
            r = await _post(on_ip, path, body)
            assert r.status_code == 400, (path, r.text)
            assert r.json()["error"] == "passkey_needs_domain", (path, r.text)
            assert r.json()["params"]["use"] == f"http://localhost:{acct_server.settings.port}"
        r = await _post(on_ip, "/signup", {"username": new_name(), "password": "a long and rare phrase"})
        assert r.status_code == 201, r.text
    async with httpx.AsyncClient(base_url=acct_server.site, timeout=10) as by_name:
        assert (await _post(by_name, "/passkey/signin/options", {})).status_code == 200
