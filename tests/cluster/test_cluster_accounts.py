"""Accounts on a real Redis Cluster behind three instances: a passkey ceremony begun on one instance and
finished on another, the session opening websockets on all three, a sign-out closing every one of them
(the sign-out travels by pub/sub), and a deletion whose keys are gone from every shard."""

from __future__ import annotations

import secrets

import httpx

from golfrace.accounts.sessions import COOKIE
from golfrace.store import account_keys as keys
from golfrace.store.connection import cluster_client
from golfrace.wire.protocol import CLOSE_SIGNED_OUT

from ..accounts.conftest import ws_client
from ..accounts.soft_authenticator import SoftAuthenticator
from .conftest import Deployment, T


async def test_an_account_across_instances_and_shards(deploy: Deployment) -> None:
    first, second, third = deploy.servers
    name = "Cl" + secrets.token_hex(4)
    auth = SoftAuthenticator(third.site)
    async with (
        httpx.AsyncClient(base_url=first.site, timeout=T) as on_first,
        httpx.AsyncClient(base_url=third.site, timeout=T) as on_third,
    ):
        start = (await on_first.post("/api/account/passkey/signup/options", json={"username": name})).json()
        credential = auth.create(start["options"])  # answered to the page of the third instance
        r = await on_third.post(
            "/api/account/passkey/signup",
            json={"challenge_id": start["challenge_id"], "credential": credential},
        )
        assert r.status_code == 201, r.text
        player = r.json()["account"]["player"]
        session = on_third.cookies[COOKIE]
        sockets = [await ws_client(server, session=session) for server in deploy.servers]
        deploy.clients.extend(sockets)
        assert {s.player for s in sockets} == {player}
        async with httpx.AsyncClient(base_url=second.site, timeout=T, cookies={COOKIE: session}) as on_second:
            assert (await on_second.get("/api/account/profile")).json()["account"]["username"] == name
            signed_out = await on_second.post("/api/account/signout", json={"all": True})
            assert signed_out.json() == {"signed_out": 1}
        for s in sockets:  # closed on every instance, not only the one that signed out
            assert await s.wait_closed(T) == CLOSE_SIGNED_OUT
        # sign in again with the passkey (options on the second instance, answer on the third) and delete
        async with httpx.AsyncClient(base_url=second.site, timeout=T) as on_second:
            start = (await on_second.post("/api/account/passkey/signin/options", json={})).json()
        answer = auth.get(start["options"])
        r = await on_third.post(
            "/api/account/passkey/signin", json={"challenge_id": start["challenge_id"], "credential": answer}
        )
        assert r.status_code == 200, r.text
        # deleting asks the passkey again (options on the first instance, answered to the third's page)
        async with httpx.AsyncClient(base_url=first.site, timeout=T, cookies=on_third.cookies) as same:
            start = (await same.post("/api/account/reauth/options", json={})).json()
        proof = {
            "confirm": name,
            "challenge_id": start["challenge_id"],
            "credential": auth.get(start["options"]),
        }
        assert (await on_third.post("/api/account/delete", json=proof)).status_code == 200
    redis = cluster_client(deploy.cluster.url, 4)
    try:
        for key in (
            keys.account(player),
            keys.passkeys(player),
            keys.sessions(player),
            keys.username(name.lower()),
        ):
            assert not await redis.exists(key), key
    finally:
        await redis.aclose()
