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
