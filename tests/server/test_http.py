"""HTTP endpoints: health, metrics, catalogs, the web client; and `golfrace bot` against a live server."""

from __future__ import annotations

import asyncio
import sys

import httpx
import pytest

from golfrace.engine.i18n import catalog

pytestmark = pytest.mark.timeout(60)


async def test_healthz_metrics_catalogs_and_root(server, make_client) -> None:
    client = await make_client()
    view = await client.new()
    await client.act(view.game, **view.legal()[0])
    async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
        health = await http.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        text = (await http.get("/metrics")).text
        for name in (
            "golfrace_connections",
            "golfrace_messages_in_total",
            "golfrace_moves_total",
            "golfrace_redis_seconds_bucket",
            "golfrace_redis_ping_seconds",
        ):
            assert name in text
        he = await http.get("/catalogs/he.json")
        assert he.status_code == 200 and he.json() == catalog("he")
        missing = await http.get("/catalogs/xx.json")
        assert missing.status_code == 404 and missing.json()["error"] == "bad_locale"
        root = await http.get("/")
        assert root.status_code == 200 and "text/html" in root.headers["content-type"]


async def test_healthz_reports_redis_down(settings, redis_server) -> None:
    from golfrace.store.embedded import start_test_server
    from golfrace_testkit.servers import running_server

    spare = start_test_server(redis_server.data_dir / "spare")
    try:
        async with (
            running_server(settings.with_(port=0, redis_url=spare.url)) as running,
            httpx.AsyncClient(base_url=running.http, timeout=10) as http,
        ):
            assert (await http.get("/healthz")).status_code == 200
            await asyncio.to_thread(spare.stop)
            down = await http.get("/healthz")
            assert down.status_code == 503
            body = down.json()
            assert body["error"] == "unavailable" and body["status"] == "unavailable" and body["redis"]
    finally:
        spare.stop()


async def test_bot_command_plays_to_the_end(server) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "golfrace", "bot", server.ws, "--games", "2", "--seed", "1",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert len(lines) == 2 and all(" won " in line or " stuck " in line for line in lines)
    assert all("GO1-E-" in line for line in lines)  # the code is revealed once the game is over


async def test_bot_waits_out_the_rate_limit_before_a_new_game(server, settings) -> None:
    from golfrace_client.bot import play_game
    from golfrace_client.client import Client
    from golfrace_testkit.servers import running_server

    from .helpers import WIN_CODE

    async with Client(server.ws, keep_frames=False) as client:
        first = await asyncio.wait_for(play_game(client, code=WIN_CODE, seed=1), 30)
    burst = 3 + first.moves  # hello, new, the acts and the close of one game: the next `new` finds it empty
    limited = settings.with_(port=0, rate=4.0, burst=burst, flood_close_after=10_000)
    async with running_server(limited) as slow, Client(slow.ws, keep_frames=False) as client:
        again = await asyncio.wait_for(play_game(client, code=WIN_CODE, seed=1), 30)
        assert again.moves == first.moves
        # the next game: its `new` and one move are enough
        after = await asyncio.wait_for(play_game(client, code=WIN_CODE, seed=1, max_actions=1), 30)
        assert (after.status, after.moves) == ("playing", 1)


async def test_the_web_client_goes_out_compressed(server) -> None:
    async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
        root = await http.get("/", headers={"accept-encoding": "gzip"})
        scripts = [part.split('"')[0] for part in root.text.split('src="')[1:]]
        assert scripts, "index.html names its script"
        script = await http.get("/" + scripts[0].lstrip("/"), headers={"accept-encoding": "gzip"})
        assert script.status_code == 200
        assert script.headers.get("content-encoding") == "gzip"
        assert script.num_bytes_downloaded < len(script.content) / 2  # bytes on the wire vs decoded
        plain = await http.get("/healthz", headers={"accept-encoding": "gzip"})
        assert "content-encoding" not in plain.headers  # below GZIP_MIN_BYTES


async def test_metrics_answer_metrics_allow_only(settings) -> None:
    """Fair play 19.9: /metrics is served to GOLFRACE_METRICS_ALLOW only (loopback by default); behind a
    trusted proxy the client it forwards for counts, not the proxy on loopback."""
    from golfrace_testkit.servers import running_server

    async def status(server, **headers: str) -> tuple[int, str]:
        async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
            answer = await http.get("/metrics", headers=headers)
            return answer.status_code, answer.text

    outside = {"X-Forwarded-For": "203.0.113.7"}
    async with running_server(settings.with_(port=0)) as server:  # the default: loopback
        assert (await status(server))[0] == 200
        assert (await status(server, **outside))[0] == 200  # no trusted proxy: the header is anyone's
    async with running_server(settings.with_(port=0, trusted_proxies=1)) as server:
        code, body = await status(server, **outside)  # a proxy on loopback forwarding an outsider
        assert code == 403 and httpx.Response(403, text=body).json()["error"] == "forbidden"
        assert (await status(server, **{"X-Forwarded-For": "127.0.0.1"}))[0] == 200
    allow = "198.51.100.0/24, 2001:db8::1"
    async with running_server(settings.with_(port=0, metrics_allow=allow)) as server:
        assert (await status(server))[0] == 403  # loopback no longer listed
        assert "golfrace_" not in (await status(server))[1]
    async with running_server(settings.with_(port=0, metrics_allow="")) as server:
        assert (await status(server))[0] == 403  # nobody


def test_a_bad_metrics_allow_stops_the_server(settings) -> None:
    from golfrace.http.app import create_app

    with pytest.raises(ValueError, match="GOLFRACE_METRICS_ALLOW"):
        create_app(settings.with_(metrics_allow="127.0.0.1,localhost"))
