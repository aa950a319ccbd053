"""Friends on a real Redis Cluster behind three instances: Ann on one instance follows Bob, whose two pages
are on the other two; her challenge reaches both (the account's notice channel is a shard channel), his
accept on the third instance starts one race both join, and every friends key and script keeps to one slot
(the deployment fails on any CROSSSLOT in the servers' logs)."""

from __future__ import annotations

import secrets
from typing import Any

import httpx

from golfrace.accounts.sessions import COOKIE
from golfrace_client.client import Client

from ..accounts.conftest import PASSWORD, ws_client
from .conftest import Deployment, T


async def _sign_up(base: str) -> tuple[str, str]:
    name = "Cf" + secrets.token_hex(4)
    async with httpx.AsyncClient(base_url=base, timeout=T) as http:
        r = await http.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        return name, http.cookies[COOKIE]


async def _ask(client: Client, msg: dict[str, Any], answer: str) -> dict[str, Any]:
    rid = secrets.token_hex(4)
    await client.send({**msg, "rid": rid})
    return await client.expect(None, T, where=lambda m: m.get("rid") == rid and m["t"] in (answer, "error"))


async def test_a_challenge_across_instances_and_shards(deploy: Deployment) -> None:
    first, second, third = deploy.servers
    ann_name, ann_session = await _sign_up(first.http)
    bob_name, bob_session = await _sign_up(second.http)
    ann = await ws_client(first, session=ann_session)
    bob2 = await ws_client(second, session=bob_session)
    bob3 = await ws_client(third, session=bob_session)
    deploy.clients.extend([ann, bob2, bob3])
    for page in (ann, bob2, bob3):
        assert (await _ask(page, {"t": "friends"}, "friends"))["t"] == "friends"
    listing = await _ask(ann, {"t": "friend_follow", "name": bob_name}, "friends")
    assert [(f["username"], f["status"]) for f in listing["following"]] == [(bob_name, "online")]
    sent = await _ask(ann, {"t": "friend_challenge", "name": bob_name}, "challenge")
    assert sent["t"] == "challenge", sent
    cid = sent["challenge"]
    for page in (bob2, bob3):
        await page.expect("challenge", T, where=lambda m: m.get("challenge") == cid)
    end = await _ask(bob3, {"t": "challenge_answer", "challenge": cid, "accept": True}, "challenge_end")
    assert end["outcome"] == "accepted", end
    for page in (ann, bob2):
        got = await page.expect("challenge_end", T, where=lambda m: m.get("challenge") == cid)
        assert got["race"] == end["race"]
    seats = set()
    for page in (ann, bob3):
        view = await _ask(page, {"t": "race_join", "race": end["race"]}, "race")
        seats.add(view["you"]["seat"])
    assert seats == {1, 2}
    board = await _ask(bob2, {"t": "friends_daily"}, "friends_daily")
    assert board["t"] == "friends_daily" and board["entries"] == []
    blocked = await _ask(bob2, {"t": "friend_block", "name": ann_name}, "friends")
    assert blocked["blocked"] == [{"username": ann_name, "name": ann_name}]
