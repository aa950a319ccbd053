"""Fair play (issue 11.8): per-network token buckets for new identities, games, lobbies, races and daily
attempts, kept in Redis across instances; the client's IP behind trusted proxies only; the ``/ws`` Origin
check (close 4003). Real servers on a Redis of their own (the shared test Redis has generous limits)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
import yaml
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from golfrace.live.limits import GENEROUS, client_ip, network, origin_allowed
from golfrace.settings import Settings
from golfrace.store.embedded import ALLOWED_POLICIES, RedisServer, RedisServerError, start_test_server
from golfrace.wire.protocol import CLOSE_BAD_ORIGIN
from golfrace_client.client import Client
from golfrace_testkit.servers import RunningServer, running_server

from ..own_server import private_redis

T = 5.0


# --- pure parts ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ip", "net"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),  # the same /64: one bucket
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("[2001:db8::1]", "2001:db8::/64"),
        ("::ffff:198.51.100.2", "198.51.100.2"),  # IPv4-mapped counts as its IPv4 address
        ("not an address", "not an address"),
        ("", "unknown"),
    ],
)
def test_network_counts_ipv4_per_address_and_ipv6_per_64(ip: str, net: str) -> None:
    assert network(ip) == net


@pytest.mark.parametrize(
    ("peer", "xff", "trusted", "ip"),
    [
        ("10.0.0.1", [], 0, "10.0.0.1"),
        ("10.0.0.1", ["6.6.6.6"], 0, "10.0.0.1"),  # no trusted proxy: the header is anyone's to write
        ("10.0.0.1", ["203.0.113.7"], 1, "203.0.113.7"),
        ("10.0.0.1", ["6.6.6.6, 203.0.113.7"], 1, "203.0.113.7"),  # the client's own entry is not believed
        ("10.0.0.1", ["6.6.6.6", "203.0.113.7"], 1, "203.0.113.7"),  # two headers read as one list
        ("10.0.0.2", ["6.6.6.6, 203.0.113.7, 10.0.0.1"], 2, "203.0.113.7"),
        ("10.0.0.1", [], 1, "10.0.0.1"),  # a proxy that wrote nothing: the peer
        ("10.0.0.1", ["203.0.113.7"], 3, "203.0.113.7"),  # fewer hops than proxies: the leftmost
    ],
)
def test_client_ip_through_trusted_proxies_only(peer: str, xff: list[str], trusted: int, ip: str) -> None:
    assert client_ip(peer, xff, trusted) == ip


def h(**headers: str) -> list[tuple[bytes, bytes]]:
    return [(k.encode(), v.encode()) for k, v in headers.items()]


@pytest.mark.parametrize(
    ("headers", "allowed", "ok"),
    [
        (h(host="golf.example:8000"), "", True),  # no Origin: not a browser
        (h(host="golf.example:8000", origin="http://golf.example:8000"), "", True),
        (h(host="golf.example:8000", origin="HTTPS://Golf.Example:8000"), "", True),
        (h(host="golf.example:8000", origin="https://evil.example"), "", False),
        (h(host="golf.example:8000", origin="http://golf.example:9000"), "", False),
        (h(host="golf.example:8000", origin="null"), "", False),
        (h(host="10.0.0.5", origin="https://golf.example"), "https://golf.example", True),  # behind a proxy
        (h(host="10.0.0.5", origin="https://golf.example/"), "https://golf.example, https://b.example", True),
        (h(host="10.0.0.5", origin="http://golf.example"), "https://golf.example", False),  # scheme counts
        (h(host="10.0.0.5", origin="https://evil.example"), "*", True),
    ],
)
def test_origin_allow_list(headers: list[tuple[bytes, bytes]], allowed: str, ok: bool) -> None:
    assert origin_allowed(headers, allowed) is ok


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-lru", "volatile-ttl", "volatile-lfu"])
def test_the_embedded_redis_never_runs_a_policy_that_evicts(tmp_path: Path, policy: str) -> None:
    with pytest.raises(RedisServerError):  # sessions, daily claims and boards have TTLs (issue 19.5)
        RedisServer(tmp_path, policy=policy)


async def test_the_redis_runs_with_maxmemory_and_noeviction(tmp_path: Path) -> None:
    server = start_test_server(tmp_path)
    try:
        redis = aioredis.Redis.from_url(server.url)
        config = await asyncio.wait_for(redis.config_get("maxmemory*"), T)
        assert int(config["maxmemory"]) == 256 * 1024 * 1024
        assert config["maxmemory-policy"] == Settings().redis_maxmemory_policy == "noeviction"
        await redis.aclose()
    finally:
        server.stop()


def test_the_compose_and_cluster_redis_run_with_maxmemory_and_noeviction() -> None:
    root = Path(__file__).resolve().parents[2]
    compose = yaml.safe_load((root / "docker-compose.yml").read_text())
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--maxmemory") + 1].endswith("mb")
    assert command[command.index("--maxmemory-policy") + 1] in ALLOWED_POLICIES == ("noeviction",)
    conf = dict(
        line.split(None, 1) for line in (root / "deploy" / "redis-cluster.conf").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )  # fmt: skip
    assert conf["maxmemory-policy"] == "noeviction" and conf["maxmemory"].endswith("mb")


# --- over real websockets -----------------------------------------------------------------------------------
@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis(tmp_path) as server:
        yield server


@pytest.fixture
def limited(settings: Settings, own_redis: RedisServer) -> Settings:
    """The shared settings with tight buckets (2 at once, then one a second) on a Redis of their own."""
    tight = {key: 2 if key.endswith("_burst") else 3600.0 for key in GENEROUS if "_sid_" not in key}
    # (a new seq space costs a token of its own bucket too: tests/server/test_seq_spaces.py)
    return settings.with_(port=0, redis_url=own_redis.url, **tight)


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        await client.close()


async def connected(server: RunningServer, made: list[Client], **kwargs: Any) -> Client:
    client = Client(server.ws, **kwargs)
    made.append(client)
    await client.connect(T)
    return client


async def refused(client: Client, message: dict[str, Any]) -> dict[str, Any]:
    await client.send(message)
    error = await client.expect("error", T)
    assert error["code"] == "rate_limited", error
    return dict(error["params"])


async def test_new_identities_are_limited_per_network_but_a_token_is_not(limited, clients) -> None:
    async with running_server(limited) as server:
        first = await connected(server, clients)
        await first.hello(T)
        await (await connected(server, clients)).hello(T)
        third = await connected(server, clients)
        params = await refused(third, {"t": "hello", "lang": "en"})
        assert params["kind"] == "identity" and 0 < params["retry_ms"] <= 1000
        again = await connected(server, clients, token=first.token)  # a known player comes back freely
        assert (await again.hello(T))["player"] == first.player
        await asyncio.sleep(params["retry_ms"] / 1000 + 0.05)  # the server said when a token is there
        assert (await third.hello(T))["player"] not in (first.player, None)


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ({"t": "new"}, "game"),
        ({"t": "race_new"}, "lobby"),
        ({"t": "daily_play"}, "daily"),
    ],
)
async def test_objects_are_limited_per_network(limited, clients, message, kind) -> None:
    async with running_server(limited) as server:
        client = await connected(server, clients)
        await client.hello(T)
        answers = {"game": "snapshot", "lobby": "race", "daily": "race"}
        for _ in range(2):
            await client.send(message)
            await client.expect(answers[kind], T)
        params = await refused(client, message)
        assert params["kind"] == kind and params["retry_ms"] > 0


async def test_race_starts_are_limited(limited, clients) -> None:
    async with running_server(limited.with_(limit_lobby_burst=10)) as server:
        host = await connected(server, clients)
        await host.hello(T)
        races = []
        for _ in range(3):
            await host.send({"t": "race_new", "seats": 1})
            races.append((await host.expect("race", T))["race"])
        for race_id in races[:2]:
            await host.send({"t": "race_start", "race": race_id})
            await host.expect("race", T, where=lambda m, r=race_id: m["race"] == r and m["phase"] != "lobby")
        params = await refused(host, {"t": "race_start", "race": races[2]})
        assert params["kind"] == "race"


async def test_the_buckets_hold_across_instances(limited, clients) -> None:
    async with running_server(limited) as a, running_server(limited) as b:
        await (await connected(a, clients)).hello(T)
        await (await connected(b, clients)).hello(T)
        await refused(await connected(a, clients), {"t": "hello"})
        await refused(await connected(b, clients), {"t": "hello"})


async def test_forwarded_for_counts_only_through_trusted_proxies(limited, clients) -> None:
    async with running_server(limited.with_(trusted_proxies=1)) as server:
        for n in range(3):  # three clients behind the proxy, each with its own address: all welcome
            client = await connected(server, clients, headers={"X-Forwarded-For": f"203.0.113.{n}"})
            await client.hello(T)
        spoof = await connected(server, clients, headers={"X-Forwarded-For": "1.2.3.4, 203.0.113.0"})
        await spoof.hello(T)  # 203.0.113.0's second
        await refused(
            await connected(server, clients, headers={"X-Forwarded-For": "5.6.7.8, 203.0.113.0"}),
            {"t": "hello"},
        )
    async with running_server(
        limited.with_(trusted_proxies=0)
    ) as server:  # no proxy: the header means nothing
        for n in range(2):
            await (await connected(server, clients, headers={"X-Forwarded-For": f"198.51.100.{n}"})).hello(T)
        await refused(
            await connected(server, clients, headers={"X-Forwarded-For": "198.51.100.9"}), {"t": "hello"}
        )


async def test_a_bucket_key_has_a_hash_tag_and_a_ttl(limited, own_redis, clients) -> None:
    async with running_server(limited) as server:
        await (await connected(server, clients)).hello(T)
    redis = aioredis.Redis.from_url(own_redis.url)
    keys = [k async for k in redis.scan_iter("limit:*")]
    assert sorted(keys) == [b"limit:{identity|127.0.0.1}", b"limit:{sid|127.0.0.1}"]
    assert 0 < await redis.pttl(keys[0]) <= 1000 + 1000  # full again after one token at 1/s, plus a margin
    await redis.aclose()


async def origin_close(server: RunningServer, origin: str | None) -> int | None:
    """Open /ws with ``origin`` and send hello: None if welcomed, else the close code."""
    headers = {} if origin is None else {"Origin": origin}
    async with connect(server.ws, additional_headers=headers, open_timeout=T) as ws:
        try:
            await ws.send('{"t": "hello"}')
            reply = await asyncio.wait_for(ws.recv(), T)
        except ConnectionClosed:
            return ws.close_code
        assert '"welcome"' in str(reply)
        return None


async def test_ws_checks_the_origin(settings, clients) -> None:
    async with running_server(settings.with_(port=0)) as server:
        port = server.settings.port
        assert await origin_close(server, None) is None  # not a browser
        assert await origin_close(server, f"http://127.0.0.1:{port}") is None  # the page of this server
        assert await origin_close(server, "https://evil.example") == CLOSE_BAD_ORIGIN == 4003
        assert await origin_close(server, f"http://127.0.0.1:{port + 1}") == 4003
    async with running_server(settings.with_(port=0, allowed_origins="https://golf.example")) as server:
        assert await origin_close(server, "https://golf.example") is None
        assert await origin_close(server, f"http://127.0.0.1:{server.settings.port}") == 4003
