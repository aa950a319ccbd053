"""Docker cannot run here, so check that the image's client stage has every input the client build reads, and
the compose file's cluster profile against the settings and deploy/haproxy.cfg."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from golfrace.settings import Settings
from golfrace.settings.env import scalar_fields
from golfrace.store.connection import ClusterUrl, is_cluster, wait_replicas
from golfrace_testkit.balancer import local_config

ROOT = Path(__file__).resolve().parents[1]


def _client_stage() -> str:
    text = (ROOT / "Dockerfile").read_text()
    return text[text.index("AS client") : text.index("FROM python")]


def test_client_stage_copies_what_the_build_reads() -> None:
    build = (ROOT / "client_web" / "build.mjs").read_text()
    sources = "\n".join(p.read_text() for p in (ROOT / "client_web" / "src").rglob("*.js"))
    stage = _client_stage()
    assert 'join(here, "..", "docs")' in build and "COPY docs/ docs/" in stage
    imports = set(re.findall(r'from "((?:\.\./)+server/[^"]+)"', sources))
    assert imports, "the client is expected to bundle the engine catalogs"
    for path in imports:
        folder = path.lstrip("./").rsplit("/", 1)[0] + "/"
        assert f"COPY {folder} {folder}" in stage, folder
    assert "npm ci" in stage and "npm run --silent build" in stage


def test_dockerignore_keeps_local_builds_out() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for entry in (".venv", "client_web/node_modules", "client_web/dist", "var"):
        assert entry in ignored


# --- the compose file's "cluster" profile (Docker cannot run here: read it against the settings) ---------
def _compose() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "docker-compose.yml").read_text()))


def _profile(compose: dict[str, Any], prefix: str) -> dict[str, dict[str, Any]]:
    return {
        name: svc
        for name, svc in compose["services"].items()
        if name.startswith(prefix) and "cluster" in svc.get("profiles", ())
    }


def test_cluster_profile_has_three_masters_with_a_replica_each() -> None:
    compose = _compose()
    nodes = _profile(compose, "redis-node-")
    assert sorted(nodes) == [f"redis-node-{n}" for n in range(1, 7)]
    conf = (ROOT / "deploy" / "redis-cluster.conf").read_text().split("\n")
    options = dict(line.split(None, 1) for line in conf if line.strip() and not line.startswith("#"))
    assert options["cluster-enabled"] == "yes" and options["appendonly"] == "yes"
    assert options["port"] == "6379" and int(options["cluster-node-timeout"]) <= 15_000
    for name, node in nodes.items():
        assert (
            node["image"].split(":")[0] == "redis" and node["image"].split(":")[1] >= "7"
        )  # sharded pub/sub
        assert node["command"][:2] == ["redis-server", "/usr/local/etc/redis/redis.conf"]
        assert node["command"][2:] == ["--cluster-announce-hostname", name]
        mounts = [v.split(":") for v in node["volumes"]]
        assert ["./deploy/redis-cluster.conf", "/usr/local/etc/redis/redis.conf", "ro"] in mounts
        data = next(m for m in mounts if m[1] == "/data")
        assert data[0] in compose["volumes"] and data[0] == name  # a volume of its own per node
    init = compose["services"]["redis-cluster-init"]
    script = " ".join(init["command"])
    assert "redis-cli --cluster create" in script and "--cluster-replicas 1" in script
    assert "for n in 1 2 3 4 5 6" in script and init["restart"] == "no"
    assert set(init["depends_on"]) == set(nodes)
    assert all(d["condition"] == "service_healthy" for d in init["depends_on"].values())


def test_cluster_profile_servers_match_the_settings() -> None:
    compose = _compose()
    nodes = _profile(compose, "redis-node-")
    servers = _profile(compose, "server")
    assert sorted(servers) == ["server1", "server2", "server3"]
    known = {f"GOLFRACE_{name.upper()}" for name in scalar_fields(Settings)} | {"REDIS_URL"}
    for server in servers.values():
        assert server["build"] == "." and "ports" not in server  # reached through HAProxy only
        env = {k: str(v) for k, v in server["environment"].items()}
        assert set(env) <= known, set(env) - known
        settings = Settings.from_env(env)
        assert is_cluster(settings.redis_url) and wait_replicas(settings) == 1
        parsed = ClusterUrl.parse(settings.redis_url or "")
        assert {host for host, _port in parsed.nodes} <= set(nodes) and {p for _h, p in parsed.nodes} == {
            6379
        }
        assert settings.host == "0.0.0.0" and settings.trusted_proxies == 1
        assert f"127.0.0.1:{settings.port}/healthz" in " ".join(server["healthcheck"]["test"])
        assert server["depends_on"]["redis-cluster-init"]["condition"] == "service_completed_successfully"


def test_cluster_profile_haproxy_fronts_the_servers() -> None:
    compose = _compose()
    haproxy = compose["services"]["haproxy"]
    assert haproxy["image"].split(":")[0] == "haproxy" and "cluster" in haproxy["profiles"]
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in haproxy["volumes"]
    config = (ROOT / "deploy" / "haproxy.cfg").read_text()
    port = Settings.from_env(compose["services"]["server1"]["environment"]).port
    bind = re.search(r"(?m)^\s*bind\s+:(\d+)\s*$", config)
    assert bind is not None and haproxy["ports"] == [f"8080:{bind[1]}"]
    servers = re.findall(r"(?m)^\s*server\s+(\S+)\s+(\S+):(\d+)", config)
    assert [(name, host, int(p)) for name, host, p in servers] == [
        (f"server{n}", f"server{n}", port) for n in (1, 2, 3)
    ]
    assert re.search(r"(?m)^\s*option httpchk GET /readyz$", config)
    assert re.search(r"(?m)^\s*http-check expect status 200$", config)
    assert re.search(r"(?m)^\s*default-server check ", config)
    assert re.search(r"(?m)^\s*timeout tunnel \d+[smh]$", config)  # websockets outlive the HTTP timeouts
    assert re.search(r"(?m)^\s*option forwardfor$", config)
    assert set(haproxy["depends_on"]) == {"server1", "server2", "server3"}
    maxconn = int(re.findall(r"(?m)^\s*maxconn (\d+)", config)[0])
    assert haproxy["ulimits"]["nofile"] >= 2 * maxconn


def test_the_local_haproxy_config_is_the_deployed_one_on_loopback() -> None:
    text = local_config(8123, [9001, 9002, 9003])
    assert "bind 127.0.0.1:8123" in text and "bind :" not in text
    assert re.findall(r"(?m)^\s*server (\S+) (\S+)$", text) == [
        ("server1", "127.0.0.1:9001"),
        ("server2", "127.0.0.1:9002"),
        ("server3", "127.0.0.1:9003"),
    ]
    deployed = (ROOT / "deploy" / "haproxy.cfg").read_text()
    for line in ("option httpchk GET /readyz", "timeout tunnel", "option redispatch", "balance leastconn"):
        assert line in deployed and line in text
