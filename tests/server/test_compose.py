"""Docker cannot run here: check docker-compose.yml and the Dockerfile against the app's settings instead."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from urllib.parse import urlparse

import yaml

from golfrace.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_compose_matches_settings() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    redis, server = compose["services"]["redis"], compose["services"]["server"]

    assert redis["image"].split(":")[0] == "redis"  # the official image
    assert "--appendonly" in redis["command"] and "yes" in redis["command"]
    volume = redis["volumes"][0].split(":")
    assert volume[1] == "/data" and volume[0] in compose["volumes"]

    assert server["build"] == "."
    env = {k: str(v) for k, v in server["environment"].items()}
    known = {f"GOLFRACE_{f.name.upper()}" for f in fields(Settings)} | {"REDIS_URL"}
    assert set(env) <= known, set(env) - known
    settings = Settings.from_env(env)
    url = urlparse(settings.redis_url or "")
    assert url.scheme == "redis" and url.hostname == "redis" and url.port == 6379
    assert settings.host == "0.0.0.0"
    assert f"{settings.port}:{settings.port}" in server["ports"]
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    check = " ".join(server["healthcheck"]["test"])
    assert f"127.0.0.1:{settings.port}/healthz" in check


def test_dockerfile_runs_the_server() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "FROM python:3.11" in text
    assert 'CMD ["golfrace", "serve"]' in text
    assert "EXPOSE 8000" in text and "GOLFRACE_PORT=8000" in text
    assert "/healthz" in text and "pip install" in text


def test_compose_prometheus_may_scrape_metrics() -> None:
    """Fair play 19.9: /metrics answers GOLFRACE_METRICS_ALLOW only, so the compose Prometheus has a fixed
    address that the server's setting lists, outside the range the other containers get theirs from."""
    import ipaddress

    from golfrace.live import limits

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    server, prometheus = compose["services"]["server"], compose["services"]["prometheus"]
    address = prometheus["networks"]["default"]["ipv4_address"]
    settings = Settings.from_env({k: str(v) for k, v in server["environment"].items()})
    allowed = limits.networks(settings.metrics_allow, "GOLFRACE_METRICS_ALLOW")
    assert limits.listed(address, allowed) and limits.listed("127.0.0.1", allowed)
    assert not limits.listed("172.30.57.1", allowed)  # the network's gateway: a published port's peer
    (ipam,) = compose["networks"]["default"]["ipam"]["config"]
    assert ipaddress.ip_address(address) in ipaddress.ip_network(ipam["subnet"])
    assert ipaddress.ip_address(address) not in ipaddress.ip_network(ipam["ip_range"])
    mount = next(v for v in prometheus["volumes"] if v.endswith("/etc/prometheus/prometheus.yml:ro"))
    scrape = yaml.safe_load((ROOT / mount.split(":")[0]).read_text())
    (job,) = scrape["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == [f"server:{settings.port}"]
    assert prometheus["ports"] == ["127.0.0.1:9090:9090"]  # Prometheus itself not on the open network
