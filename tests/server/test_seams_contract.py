"""Contract tests of ``server/golfrace/seams/``: the exact attributes and behaviours of the installed uvicorn,
websockets and redis-py that the seams rely on, so that an incompatible release fails here, by name,
instead of somewhere in a game. ``pyproject.toml`` pins the upper bounds these ran against."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import os
import re
import shutil
import signal
import subprocess
from typing import Any

import pytest
import redis.asyncio as aioredis
import uvicorn
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection, Connection, SSLConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from uvicorn.config import WS_PROTOCOLS
from uvicorn.protocols.websockets import websockets_sansio_impl
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from golfrace.seams import redis_pubsub, redis_wire
from golfrace.seams.redis_pubsub import PubSubLink
from golfrace.seams.uvicorn_server import SANSIO_MODULE, BadTextFrameLog, Server
from golfrace.seams.uvicorn_ws import Gate, Inbox, LeanWebSocketProtocol
from golfrace.seams.ws_frames import FRAMES, frame
from golfrace.store.batcher import batch_client
from golfrace.store.embedded import free_port, terminate
from golfrace.wire.protocol import JSON
from golfrace_client.client import Client
from golfrace_testkit.cluster import cluster_binaries
from golfrace_testkit.servers import running_server

from .helpers import WIN_CODE

pytestmark = pytest.mark.timeout(30)
T = 5.0
UVICORN_SOURCE = inspect.getsource(websockets_sansio_impl)


# --- uvicorn's sans-I/O protocol ----------------------------------------------------------------------------
def test_uvicorn_uses_only_the_queue_and_event_operations_the_seam_implements() -> None:
    """The protocol replaces uvicorn's ``asyncio.Queue`` and ``asyncio.Event`` by ``Inbox`` and ``Gate``."""
    queue_ops = set(re.findall(r"self\.queue\.(\w+)", UVICORN_SOURCE))
    event_ops = set(re.findall(r"self\.writable\.(\w+)", UVICORN_SOURCE))
    assert queue_ops and queue_ops <= {n for n in dir(Inbox) if not n.startswith("_")}, queue_ops
    assert event_ops and event_ops <= {n for n in dir(Gate) if not n.startswith("_")}, event_ops


def test_uvicorn_protocol_has_the_state_the_seam_reads_and_replaces() -> None:
    init = inspect.getsource(WebSocketsSansIOProtocol.__init__)
    for attribute in (
        "self.queue",
        "self.writable",
        "self.conn",
        "self.transport",
        "self.loop",
        "self.handshake_complete",
        "self.close_sent",
        "self.disconnected",
        "self.initial_response",
    ):
        assert f"{attribute}:" in init or f"{attribute} =" in init, attribute
    connect = inspect.getsource(WebSocketsSansIOProtocol.handle_connect)
    # the scope made in handle_connect, with its extensions dict, and the request/response it keeps
    assert "self.scope" in connect and '"extensions"' in connect
    assert "self.request = event" in connect and "self.response =" in connect
    assert "self.loop.create_task(self.run_asgi())" in connect  # the app runs after handle_connect returns
    for name in ("send", "handle_connect", "pause_writing", "resume_writing"):
        assert callable(getattr(WebSocketsSansIOProtocol, name)), name
    assert issubclass(LeanWebSocketProtocol, WebSocketsSansIOProtocol)


def test_uvicorn_send_waits_for_writable_and_frames_through_websockets() -> None:
    """The fast path may skip ``send`` only because ``send`` itself does no more than wait for ``writable``
    and hand the data to websockets' ``send_binary``/``send_text`` and the transport."""
    send = inspect.getsource(WebSocketsSansIOProtocol.send)
    assert send.index("await self.writable.wait()") < send.index("self.conn.send_binary(bytes_data)")
    assert "self.conn.send_text(text_data.encode())" in send
    assert "self.transport.write(" in send


def _uvicorn_methods_calling(pattern: str) -> set[str]:
    return {
        name
        for name, fn in inspect.getmembers(WebSocketsSansIOProtocol, inspect.isfunction)
        if re.search(pattern, inspect.getsource(fn))
    }


def test_uvicorn_takes_the_connection_out_of_open_only_where_the_frames_flag_is_made_again() -> None:
    """``LeanWebSocketProtocol.frames_ok`` (``can_write_frames``) is made again when uvicorn sets
    ``close_sent`` or ``disconnected`` (properties), after ``data_received`` and after ``shutdown``. So every
    call of uvicorn's that can take websockets' connection out of ``OPEN`` (a close sent, a failure, data or
    the end of the stream received) must be in one of those, or come with ``close_sent = True``."""
    leaving = _uvicorn_methods_calling(r"self\.conn\.(send_close|fail|receive_data|receive_eof)\(")
    assert leaving == {"data_received", "shutdown", "send_receive_event_to_app", "keepalive_timeout", "send"}
    for name in ("keepalive_timeout", "send"):
        assert "self.close_sent = True" in inspect.getsource(getattr(WebSocketsSansIOProtocol, name)), name
    # send_receive_event_to_app runs only inside data_received: a frame handler of handle_events
    assert _uvicorn_methods_calling(r"self\.send_receive_event_to_app\(") == {
        "handle_text",
        "handle_bytes",
        "handle_cont",
    }
    assert _uvicorn_methods_calling(r"self\.handle_(text|bytes|cont)\(") == {"handle_events"}
    assert _uvicorn_methods_calling(r"self\.handle_events\(") == {"data_received"}
    # and the flags are only ever assigned, which the properties see
    assert not re.search(r"(setattr|__dict__)", UVICORN_SOURCE)


# --- uvicorn's Server and the protocol choice (seams/uvicorn_server.py) -------------------------------------
def test_uvicorn_server_runs_inside_capture_signals_and_keeps_the_state_the_seam_reads() -> None:
    assert "with self.capture_signals():" in inspect.getsource(uvicorn.Server.serve)
    init = inspect.getsource(uvicorn.Server.__init__)
    assert "self.started = False" in init and "self.should_exit = False" in init
    assert list(inspect.signature(uvicorn.Server.handle_exit).parameters) == ["self", "sig", "frame"]
    assert "sockets" in inspect.signature(uvicorn.Server.startup).parameters
    startup = inspect.getsource(uvicorn.Server.startup)
    assert "self.servers" in startup and "self.started = True" in startup
    assert "self.should_exit" in inspect.getsource(uvicorn.Server.handle_exit)


def test_uvicorn_names_its_sansio_protocol_and_logs_a_bad_text_frame_as_the_seam_expects() -> None:
    assert WS_PROTOCOLS["websockets-sansio"].startswith(SANSIO_MODULE + ":")
    assert importlib.util.find_spec(SANSIO_MODULE) is not None
    assert f'"{BadTextFrameLog.MESSAGE}"' in UVICORN_SOURCE  # the text the log filter rewrites


async def _hello_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _get(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
    try:
        return await reader.read()
    finally:
        writer.close()


def _config() -> uvicorn.Config:
    return uvicorn.Config(_hello_app, host="127.0.0.1", port=0, lifespan="off", log_level="warning")


async def test_a_server_without_signal_handlers_says_when_it_listens_and_where_and_stops() -> None:
    before = signal.getsignal(signal.SIGTERM)
    heard: list[Server] = []
    server = Server(_config(), signals="none", on_listening=heard.append)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(T):
            while not server.listening:
                await asyncio.sleep(0.01)
            assert heard == [server] and server.port() > 0
            assert signal.getsignal(signal.SIGTERM) is before  # none installed
            assert (await _get(server.port())).startswith(b"HTTP/1.1 200")
            server.stop()
            await task
    finally:
        task.cancel()


async def test_a_server_with_stop_signals_is_stopped_by_sigterm_and_gives_the_handlers_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    server = Server(_config(), signals="stop")
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(T):
            while not server.listening:
                await asyncio.sleep(0.01)
            assert signal.getsignal(signal.SIGTERM) == server.handle_exit  # else SIGTERM would end pytest
            os.kill(os.getpid(), signal.SIGTERM)
            await task  # stopped gracefully, the signal not raised again
    finally:
        task.cancel()
    assert signal.getsignal(signal.SIGTERM) is before


# --- websockets' framing ------------------------------------------------------------------------------------
def open_pair() -> tuple[ServerProtocol, ClientProtocol]:
    """A server and a client protocol past the opening handshake (no extensions)."""
    server = ServerProtocol()
    client = ClientProtocol(parse_uri("ws://localhost/ws"))
    client.send_request(client.connect())
    server.receive_data(b"".join(client.data_to_send()))
    (request,) = server.events_received()
    server.send_response(server.accept(request))
    client.receive_data(b"".join(server.data_to_send()))
    client.events_received()
    assert server.state is client.state is State.OPEN
    return server, client


def open_server_protocol() -> ServerProtocol:
    return open_pair()[0]


@pytest.mark.parametrize(
    "data", [b"", b"\x81\xa1t\xa4diff", b"x" * 125, b"y" * 126, b"z" * 70_000, "caf\u00e9"]
)
def test_frame_is_byte_for_byte_what_websockets_sends(data: bytes | str) -> None:
    server = open_server_protocol()
    assert server.state is State.OPEN and not server.extensions
    if isinstance(data, str):
        server.send_text(data.encode())
    else:
        server.send_binary(data)
    assert frame(data) == b"".join(server.data_to_send())


def test_frames_written_directly_interleave_with_websockets_own_frames() -> None:
    """websockets keeps no per-frame state for data frames it sends (no sequence, no continuation left
    open), so frames framed elsewhere may go between its own: a client reads them all, in order."""
    server, client = open_pair()
    out = [frame(b"one")]
    server.send_binary(b"two")
    out += server.data_to_send()
    out.append(frame("three"))
    server.send_ping(b"p")
    out += server.data_to_send()
    server.send_binary(b"four")
    out += server.data_to_send()
    client.receive_data(b"".join(out))
    frames = [(f.opcode, bytes(f.data)) for f in client.events_received()]
    assert frames == [
        (Opcode.BINARY, b"one"),
        (Opcode.BINARY, b"two"),
        (Opcode.TEXT, b"three"),
        (Opcode.PING, b"p"),
        (Opcode.BINARY, b"four"),
    ]


async def test_the_server_writes_broadcasts_framed_once_and_clients_of_both_codecs_read_them(
    settings: Any,
) -> None:
    async with running_server(settings.with_(port=0)) as server:
        player = Client(server.ws)
        watchers = [Client(server.ws), Client(server.ws, codec=JSON)]
        for c in (player, *watchers):
            await c.connect(timeout=T)
            await c.hello(timeout=T)
        try:
            view = await player.new(WIN_CODE, timeout=T)
            for w in watchers:
                await w.open(view.game, "watcher", timeout=T)
            sessions = list(server.ctx.sessions)
            assert len(sessions) == 3
            assert all(isinstance(s.writer.frames, LeanWebSocketProtocol) for s in sessions)
            for _ in range(3):
                assert (await player.act(view.game, "draw", timeout=T))["t"] == "ack"
            for c in (player, *watchers):
                got = await c.wait_version(view.game, 3, timeout=T)
                assert [d["v"] for d in got.applied] == [1, 2, 3]
            assert watchers[0].views[view.game].state == watchers[1].views[view.game].state
        finally:
            for c in (player, *watchers):
                await c.close()


def test_the_frames_extension_name_is_ours() -> None:
    assert FRAMES.startswith("golfrace.")


# --- redis-py below the pipeline API ------------------------------------------------------------------------
@pytest.fixture
async def client(redis_url: str) -> Any:
    c = batch_client(redis_url, 2, 5.0)
    yield c
    await c.aclose()


async def test_a_connection_of_the_pool_kind_that_the_pool_does_not_track(client: aioredis.Redis) -> None:
    conn = redis_wire.connection(client)
    assert isinstance(conn, Connection)
    assert isinstance(conn.retry, Retry)
    assert conn not in client.connection_pool._in_use_connections  # type: ignore[attr-defined]
    assert not conn.is_connected  # connects on first use
    try:
        replies = await redis_wire.exchange(client, conn, [("PING",)], redis_wire.pack(conn, [("PING",)]), T)
        assert replies == [True] and conn.is_connected
    finally:
        await redis_wire.drop(conn)
    assert not conn.is_connected
    idle = redis_wire.connection(client)
    ping: list[tuple[Any, ...]] = [("PING",)]
    assert await redis_wire.exchange(client, idle, ping, redis_wire.pack(idle, ping), T) == [True]
    await asyncio.wait_for(redis_wire.close(idle), T)  # the batcher's aclose
    assert not idle.is_connected


async def test_exchange_parses_as_a_pipeline_and_a_redis_error_is_that_commands_reply(
    client: aioredis.Redis,
) -> None:
    key = "golfrace:test:seams"
    commands: list[tuple[Any, ...]] = [
        ("DEL", key),
        ("SET", key, "v"),
        ("GET", key),
        ("INCR", key),
        ("HSET", key + ":h", "a", 1),
        ("HGETALL", key + ":h"),
        ("EVAL", "return {1, 'x'}", 0),
        ("DEL", key, key + ":h"),
    ]
    conn = redis_wire.connection(client)
    try:
        replies = await redis_wire.with_retry(
            conn, lambda: redis_wire.exchange(client, conn, commands, redis_wire.pack(conn, commands), T)
        )
    finally:
        await redis_wire.drop(conn)
    assert replies[:3] == [0, True, b"v"]  # SET's callback turns OK into True, as in a pipeline
    assert isinstance(replies[3], ResponseError)
    assert replies[4:] == [1, {b"a": b"1"}, [1, b"x"], 2]


async def test_exchange_runs_a_transaction_whose_queued_replies_pass_redis_pys_callbacks(
    client: aioredis.Redis,
) -> None:
    """``Batcher.transaction`` sends ``MULTI``, the commands the store queues and ``EXEC`` through
    ``exchange``: each ``QUEUED`` is parsed under its command's response callback (one of redis-py 7.x's
    fails on it: no game could be created), and ``EXEC``'s reply holds the commands' replies."""
    key = "golfrace:test:seams:tx"
    commands: list[tuple[Any, ...]] = [
        ("MULTI",),
        ("HSET", key, "a", 1),
        ("EXPIRE", key, 60),
        ("ZADD", key + ":z", 1, "g"),
        ("ZREMRANGEBYRANK", key + ":z", 0, -3),
        ("INCR", key + ":n"),
        ("EXEC",),
        ("DEL", key, key + ":z", key + ":n"),
    ]
    conn = redis_wire.connection(client)
    try:
        replies = await redis_wire.exchange(client, conn, commands, redis_wire.pack(conn, commands), T)
    finally:
        await redis_wire.drop(conn)
    assert not any(isinstance(r, Exception) for r in replies), replies
    executed = list(replies[-2])
    assert len(executed) == 5 and executed[0] == 1 and executed[-1] == 1  # HSET's … INCR's, inside EXEC's
    assert replies[-1] == 3


async def test_a_batch_packed_in_one_buffer_gets_the_replies_of_redis_py_s_own_pipeline(
    client: aioredis.Redis,
) -> None:
    """A batch packed by ``pack`` (one buffer) and read by ``exchange``: the same replies, callbacks and
    errors as redis-py's own pipeline."""
    key = "golfrace:test:seams:fast"
    commands: list[tuple[Any, ...]] = [
        ("SET", key, "v"),
        ("GET", key),
        ("INCR", key),  # an error: not an integer
        ("EXPIRE", key, 60),
        ("EXISTS", key, key + ":none"),
        ("HSET", key + ":h", "a", 1, "b", "x"),
        ("HGETALL", key + ":h"),
        ("HMGET", key + ":h", "a", "zz"),
        ("MULTI",),
        ("SET", key + ":n", 1),
        ("INCR", key),
        ("EXEC",),
        ("ZADD", key + ":z", 2, "g", 1, "f"),
        ("ZRANGEBYSCORE", key + ":z", "-inf", "+inf"),
        ("EVAL", "return {1, 'x', {2}}", 0),
        ("DEL", key, key + ":h", key + ":n", key + ":z"),
    ]
    pipe = client.pipeline(transaction=False)
    for args in commands:
        pipe.execute_command(*args)
    theirs = await pipe.execute(raise_on_error=False)
    await client.delete(key, key + ":h", key + ":n", key + ":z")
    conn = redis_wire.connection(client)
    try:
        mine = await redis_wire.exchange(client, conn, commands, redis_wire.pack(conn, commands), T)
    finally:
        await redis_wire.drop(conn)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs, strict=True):
        if isinstance(b, Exception):
            assert type(a) is type(b) and str(a) == str(b)
        elif isinstance(b, list):
            assert [type(x) for x in a] == [type(x) for x in b] and [str(x) for x in a] == [str(x) for x in b]
        else:
            assert a == b


def test_pack_refuses_an_argument_redis_py_cannot_encode(client: aioredis.Redis) -> None:
    conn = redis_wire.connection(client)
    with pytest.raises(DataError):
        redis_wire.pack(conn, [("SET", "k", {"not": "encodable"})])


async def test_a_connection_killed_by_redis_is_retried_by_redis_py(client: aioredis.Redis) -> None:
    conn = redis_wire.connection(client)
    admin = aioredis.Redis(connection_pool=client.connection_pool)
    try:
        ask: list[tuple[Any, ...]] = [("CLIENT", "ID")]
        (cid,) = await redis_wire.exchange(client, conn, ask, redis_wire.pack(conn, ask), T)
        await admin.execute_command("CLIENT", "KILL", "ID", cid)
        calls = {"n": 0}

        async def attempt() -> list[Any]:
            calls["n"] += 1
            return await redis_wire.exchange(client, conn, [("PING",)], redis_wire.pack(conn, [("PING",)]), T)

        assert await redis_wire.with_retry(conn, attempt) == [True]
        assert calls["n"] == 2  # the first found the socket closed; the retry reconnected
    finally:
        await redis_wire.drop(conn)


async def test_exchange_times_out_as_redis_py_timeout_and_drops_the_connection() -> None:
    held: list[asyncio.StreamWriter] = []

    async def silent(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = batch_client(f"redis://127.0.0.1:{port}/0", 2, 5.0)
    conn = redis_wire.connection(client)
    try:
        with pytest.raises(RedisTimeoutError):
            await redis_wire.exchange(client, conn, [("PING",)], redis_wire.pack(conn, [("PING",)]), 0.2)
        assert not conn.is_connected
    finally:
        await client.aclose()
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


# --- redis-py's PubSub read reply by reply (seams/redis_pubsub.py) -----------------------------------------
def test_the_blocking_read_of_a_pubsub_is_the_read_the_link_makes() -> None:
    """``PubSubLink.read`` reads the connection as ``PubSub.parse_response(block=True)`` does, without its
    retry wrapper: the same arguments, and ``math.inf`` still meaning "no timeout" (redis-py plans to change
    that in a major release: this fails then)."""
    parse = inspect.getsource(PubSub.parse_response)
    assert "conn.read_response" in parse and "math.inf if block" in parse
    assert "disconnect_on_error=False" in parse and "push_request=True" in parse
    read = inspect.signature(Connection.read_response).parameters
    assert {"timeout", "disconnect_on_error", "push_request"} <= set(read)
    assert read["disconnect_on_error"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "math.inf" in inspect.getsource(Connection.read_response)
    assert "health_check_interval" in inspect.signature(AbstractConnection.__init__).parameters
    init = inspect.getsource(PubSub.__init__)
    for attribute in ("self.connection = None", "self.channels =", "self.shard_channels ="):
        assert attribute in init, attribute
    # the confirmations go through handle_message, which keeps the bookkeeping a reconnect subscribes from
    handle = inspect.getsource(PubSub.handle_message)
    assert "UNSUBSCRIBE_MESSAGE_TYPES" in handle and "self.channels.pop" in handle
    assert "self.shard_channels.pop" in handle
    assert "self.on_connect" in inspect.getsource(PubSub.connect)  # a reconnect subscribes again
    assert "_writer" in inspect.getsource(AbstractConnection.__init__)  # local_address: the socket's end


def link_client_kill(link: PubSubLink) -> tuple[str, ...]:
    addr = link.local_address()
    assert addr is not None
    return ("CLIENT", "KILL", "ADDR", addr)


async def test_a_link_reads_confirmations_and_messages_as_tuples(redis_url: str) -> None:
    link = PubSubLink.to_url(redis_url, Retry(NoBackoff(), 2))
    publisher = aioredis.Redis.from_url(redis_url)
    try:
        async with asyncio.timeout(T):
            await link.subscribe("golfrace:test:link")
            assert await link.read() == (redis_pubsub.SUBSCRIBED, "golfrace:test:link", None)
            assert link.channels() == {"golfrace:test:link"}
            for payload in (b"\x81\xa1t\xa4diff", b"", b"\x00" * 70_000):
                assert await publisher.publish("golfrace:test:link", payload) == 1
                got = await link.read()  # a hiredis push reply is a list subclass: still a message
                assert got == (redis_pubsub.MESSAGE, "golfrace:test:link", payload)
            await link.unsubscribe("golfrace:test:link")
            assert await link.read() == (redis_pubsub.UNSUBSCRIBED, "golfrace:test:link", None)
            assert link.channels() == set()  # redis-py's bookkeeping: not subscribed again on a reconnect
    finally:
        await link.aclose()
        await publisher.aclose()


async def subscribed(link: PubSubLink, name: str) -> None:
    await link.subscribe(name)
    assert await link.read() == (redis_pubsub.SUBSCRIBED, name, None)


async def test_a_reconnecting_link_subscribes_again_after_its_connection_was_killed(redis_url: str) -> None:
    link = PubSubLink.to_url(redis_url, Retry(NoBackoff(), 2))
    admin = aioredis.Redis.from_url(redis_url)
    try:
        async with asyncio.timeout(T):
            await subscribed(link, "golfrace:test:again")
            addr = link.local_address()
            clients = (await admin.execute_command("CLIENT", "LIST", "TYPE", "pubsub")).decode()
            assert f"addr={addr} " in clients  # the address Redis knows this connection by
            await admin.execute_command(*link_client_kill(link))
            with pytest.raises((RedisConnectionError, OSError)):
                await link.read()
            await link.drop()
            assert link.local_address() is None
            # the next read connects again and subscribes again (redis-py's on_connect)
            assert await link.read() == (redis_pubsub.SUBSCRIBED, "golfrace:test:again", None)
            await admin.publish("golfrace:test:again", b"after")
            assert await link.read() == (redis_pubsub.MESSAGE, "golfrace:test:again", b"after")
    finally:
        await link.aclose()
        await admin.aclose()


async def test_a_link_that_does_not_reconnect_keeps_failing_once_lost(redis_url: str) -> None:
    link = PubSubLink(aioredis.Redis.from_url(redis_url, max_connections=1), sharded=False, reconnects=False)
    admin = aioredis.Redis.from_url(redis_url)
    try:
        async with asyncio.timeout(T):
            with pytest.raises(RedisConnectionError):  # never connected: nothing to read
                await link.read()
            await subscribed(link, "golfrace:test:once")
            await admin.execute_command(*link_client_kill(link))
            with pytest.raises((RedisConnectionError, OSError)):
                await link.read()
            await link.drop()
            with pytest.raises(RedisConnectionError):
                await link.read()
            assert dict(await admin.pubsub_numsub("golfrace:test:once"))[b"golfrace:test:once"] == 0
    finally:
        await link.aclose()
        await admin.aclose()


async def test_a_tls_clusters_connection_settings_are_keywords_of_a_plain_client() -> None:
    """What ``PubSubLink.to_node`` copies from a TLS cluster client to its own client."""
    cluster = RedisCluster(host="127.0.0.1", port=1, ssl=True, ssl_ca_certs="ca.pem")  # never connected
    try:
        kwargs = cluster.get_connection_kwargs()
        assert kwargs["connection_class"] is SSLConnection and kwargs["ssl_ca_certs"] == "ca.pem"
        names = {name for name in kwargs if name.startswith("ssl_")}
        assert names <= set(inspect.signature(aioredis.Redis.__init__).parameters), names
    finally:
        await cluster.aclose()


@pytest.fixture
def tls_redis(tmp_path: Any) -> Any:
    """A redis-server >= 7 that speaks TLS only, with a self-signed certificate: ``(port, cert path)``."""
    binaries = cluster_binaries()
    openssl = shutil.which("openssl")
    if binaries is None or openssl is None:
        why = "needs redis-server >= 7 and openssl"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    port = free_port()
    process = subprocess.Popen(
        [binaries[0], "--port", "0", "--tls-port", str(port), "--tls-cert-file", str(cert),
         "--tls-key-file", str(key), "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no",
         "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield port, str(cert)
    finally:
        terminate(process)


async def test_a_shard_link_speaks_tls_when_its_cluster_does(tls_redis: tuple[int, str]) -> None:
    """``rediss+cluster://``: the sharded hub's link to a master takes the cluster client's TLS settings."""
    port, cert = tls_redis
    tls = {"ssl": True, "ssl_ca_certs": cert}
    publisher = aioredis.Redis(host="127.0.0.1", port=port, **tls)  # type: ignore[arg-type]
    cluster = RedisCluster(host="127.0.0.1", port=port, **tls)  # not connected: only its settings are read
    link = PubSubLink.to_node(cluster, "127.0.0.1", port, Retry(NoBackoff(), 1), T)
    try:
        async with asyncio.timeout(T):
            while True:  # the server is up once it answers over TLS
                try:
                    await publisher.ping()
                    break
                except RedisConnectionError:
                    await asyncio.sleep(0.05)
            await subscribed(link, "golfrace:test:tls")
            assert await publisher.execute_command("SPUBLISH", "golfrace:test:tls", b"d") == 1
            assert await link.read() == (redis_pubsub.MESSAGE, "golfrace:test:tls", b"d")
    finally:
        await link.aclose()
        await publisher.aclose()
        await cluster.aclose()
