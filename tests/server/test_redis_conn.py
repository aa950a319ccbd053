"""REDIS_URL for a Redis Cluster: parsing, bad input with a stable code, and which mode each URL selects."""

from __future__ import annotations

import pytest

from golfrace.http.app import create_app
from golfrace.settings import Settings
from golfrace.store.connection import ClusterUrl, RedisUrlError, is_cluster, wait_replicas


def test_a_cluster_url_lists_its_startup_nodes() -> None:
    parsed = ClusterUrl.parse("redis+cluster://10.0.0.1:7000,redis-node-2:7001, [::1]:7002")
    assert parsed.nodes == (("10.0.0.1", 7000), ("redis-node-2", 7001), ("::1", 7002))
    assert parsed.username is None and parsed.password is None and not parsed.tls
    secure = ClusterUrl.parse("rediss+cluster://golf:s%40cret@a:6379,b:6380/0")
    assert secure.nodes == (("a", 6379), ("b", 6380)) and secure.tls
    assert (secure.username, secure.password) == ("golf", "s@cret")
    assert ClusterUrl.parse("redis+cluster://:pw@a:1").password == "pw"


@pytest.mark.parametrize(
    "url",
    [
        "redis+cluster://",
        "redis+cluster://a",  # no port
        "redis+cluster://a:6379,",  # an empty node
        "redis+cluster://a:http",
        "redis+cluster://a:99999",
        "redis://a:6379",  # not a cluster URL
    ],
)
def test_a_bad_cluster_url_is_refused_with_its_code(url: str) -> None:
    with pytest.raises(RedisUrlError) as caught:
        ClusterUrl.parse(url)
    assert caught.value.code == "bad_redis_url"


def test_the_url_chooses_the_mode_and_the_replicas_an_ack_waits_for() -> None:
    assert is_cluster("redis+cluster://a:1") and is_cluster("rediss+cluster://a:1")
    assert not is_cluster("redis://a:1/0") and not is_cluster("unix:///tmp/r.sock") and not is_cluster(None)
    assert wait_replicas(Settings(redis_url="redis+cluster://a:1")) == 1
    assert wait_replicas(Settings(redis_url="redis://a:1/0")) == 0
    assert wait_replicas(Settings(redis_url="redis+cluster://a:1", redis_wait_replicas=0)) == 0
    assert wait_replicas(Settings(redis_url="redis://a:1/0", redis_wait_replicas=2)) == 2
    assert Settings.from_env({"REDIS_URL": "redis+cluster://a:1,b:2"}).redis_url == "redis+cluster://a:1,b:2"


def test_a_server_with_a_bad_cluster_url_does_not_start() -> None:
    with pytest.raises(RedisUrlError, match="host:port"):
        create_app(Settings(redis_url="redis+cluster://a:1,b"))


def test_serve_with_a_bad_cluster_url_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from golfrace.cli import main

    assert main(["serve", "--port", "0", "--redis", "redis+cluster://a:1,b"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad_redis_url" in err and "'b'" in err
