"""Bad input of every kind gets an error with a stable code or a documented close code; the connection stays
usable where that makes sense, and no game is corrupted."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import msgpack
import pytest

from golfrace.wire.errors import ErrorCode
from golfrace.wire.protocol import CLOSE_FLOOD, CLOSE_NO_HELLO, CLOSE_TOO_BIG
from golfrace_client.client import Client, ClientClosed, RequestError
from golfrace_testkit.servers import RunningServer, running_server

from ..clock import MovableClock
from .helpers import WIN_CODE

pytestmark = pytest.mark.timeout(60)

CLOSE_BAD_TEXT = 1007  # RFC 6455: payload data not consistent with the frame type


@pytest.fixture(scope="module")
async def strict(settings) -> AsyncIterator[RunningServer]:
    async with running_server(settings.with_(port=0, hello_timeout=0.5, max_open_games=3)) as running:
        yield running


@pytest.fixture(scope="module")
def slow_clock() -> MovableClock:
    """The clock of ``slow_rate``: moved on, the rate buckets refill at once (no wait for real time)."""
    return MovableClock()


@pytest.fixture(scope="module")
async def slow_rate(settings, slow_clock: MovableClock) -> AsyncIterator[RunningServer]:
    slow = settings.with_(port=0, rate=20.0, burst=20, flood_close_after=60)
    async with running_server(slow, clock=slow_clock) as running:
        yield running


async def _error(client: Client, frame: bytes | str) -> dict:
    await client.send_raw(frame)
    error = await client.expect("error")
    assert error["code"] in set(ErrorCode)
    await client.ping()  # still usable
    return error


async def test_malformed_frames_msgpack(strict, make_client) -> None:
    c = await make_client(strict.ws)
    assert (await _error(c, b"\xc1\xc1"))["code"] == "bad_frame"
    assert (await _error(c, b"\x93\x01\x02"))["code"] == "bad_frame"  # truncated array
    assert (await _error(c, msgpack.packb([1, 2])))["code"] == "bad_frame"  # not a map
    assert (await _error(c, msgpack.packb({1: 2})))["code"] == "bad_frame"  # keys are strings
    assert (await _error(c, msgpack.packb({"t": "hello"}) + b"\x00"))["code"] == "bad_frame"  # trailing data
    assert (await _error(c, "text on a msgpack connection"))["code"] == "bad_frame"


async def test_malformed_frames_json(strict, make_client) -> None:
    c = await make_client(strict.ws, codec="golfrace.json")
    assert (await _error(c, "{not json"))["code"] == "bad_frame"
    assert (await _error(c, "[1, 2]"))["code"] == "bad_frame"
    assert (await _error(c, b"\xff\xfe"))["code"] == "bad_frame"
    assert (await _error(c, '{"t": 5}'))["code"] == "bad_type"
    assert (await _error(c, "[" * 3000 + "]" * 3000))["code"] in ("bad_frame", "too_big")


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_text_frame_not_utf8_closes_1007_with_one_log_line(strict, make_client) -> None:
    records = Records()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(records)
    try:
        c = await make_client(strict.ws, codec="golfrace.json")
        assert c.ws is not None
        await c.ws.send(b"\xff\xfe", text=True)  # a text frame whose payload is not UTF-8
        assert await c.wait_closed(5) == CLOSE_BAD_TEXT
    finally:
        logger.removeHandler(records)
    [record] = [r for r in records.records if "UTF-8" in r.getMessage()]
    assert record.levelno == logging.WARNING and record.exc_info is None
    other = await make_client(strict.ws, codec="golfrace.json")  # the server goes on
    assert (await other.new(WIN_CODE)).status == "playing"


async def test_no_subprotocol_means_json(strict) -> None:
    c = Client(strict.ws, codec="golfrace.json")
    await c.connect(subprotocols=[])
    try:
        assert c.codec == "golfrace.json"
        assert (await c.hello())["t"] == "welcome"
    finally:
        await c.close()


async def test_unknown_types_and_wrong_fields(strict, make_client) -> None:
    c = await make_client(strict.ws)
    view = await c.new(WIN_CODE)
    g = view.game
    cases = [
        ({"t": "teleport"}, "bad_type", None),
        ({"nothing": 1}, "bad_type", None),
        ({"t": "act", "game": g, "seq": "1", "a": "draw"}, "bad_field", "seq"),
        ({"t": "act", "game": g, "seq": True, "a": "draw"}, "bad_field", "seq"),
        ({"t": "act", "game": g, "seq": 0, "a": "draw"}, "bad_field", "seq"),
        ({"t": "act", "game": g, "seq": 2**64 - 1, "a": "draw"}, "bad_field", "seq"),
        ({"t": "act", "game": g, "seq": 5, "a": "fly"}, "bad_field", "a"),
        ({"t": "act", "game": g, "seq": 5, "a": "tap"}, "bad_field", "col"),
        ({"t": "act", "game": g, "seq": 5, "a": "tap", "col": 9}, "bad_field", "col"),
        ({"t": "act", "game": g, "seq": 5, "a": "tap", "col": 1.5}, "bad_field", "col"),
        ({"t": "act", "game": 7, "seq": 5, "a": "draw"}, "bad_field", "game"),
        ({"t": "act", "game": "x" * 100, "seq": 5, "a": "draw"}, "bad_field", "game"),
        ({"t": "new", "variants": {"jokers": 5}}, "bad_field", "variants"),
        ({"t": "new", "variants": {"wild": True}}, "bad_field", "variants"),
        ({"t": "new", "variants": [1]}, "bad_field", "variants"),
        ({"t": "new", "rules": "hard"}, "bad_field", "rules"),
        ({"t": "new", "code": "GO1-X-AAAAAAA"}, "bad_code", None),
        ({"t": "open", "game": g}, "bad_field", "role"),
        ({"t": "open", "game": "nonexistent", "role": "watcher"}, "no_game", None),
        ({"t": "hello", "lang": "xx"}, "bad_field", "lang"),
        ({"t": "resync", "game": g, "v": -1}, "bad_field", "v"),
        ({"t": "ping", "n": "x"}, "bad_field", "n"),
    ]
    for message, code, field in cases:
        error = await _error(c, msgpack.packb(message))
        assert error["code"] == code, (message, error)
        if field:
            assert error["params"]["field"] == field, (message, error)
    bad_code = await _error(c, msgpack.packb({"t": "new", "code": "GO1-E-AAA"}))
    assert bad_code["params"]["part"] == "length"
    # none of it touched the game
    assert (await c.act(g, "tap", col=5))["v"] == 1


async def test_hello_first_and_tokens(strict, make_client) -> None:
    c = await make_client(strict.ws, hello=False)
    await c.send({"t": "open", "game": "x", "role": "watcher"})
    assert (await c.expect("error"))["code"] == "no_hello"
    await c.send({"t": "hello", "token": "forged.token"})
    assert (await c.expect("error"))["code"] == "bad_token"
    welcome = await c.hello()
    assert welcome["limits"]["max_frame"] == strict.settings.max_frame


async def test_hello_timeout_closes_4002(strict) -> None:
    c = await Client(strict.ws).connect()
    assert await c.wait_closed(5) == CLOSE_NO_HELLO


async def test_other_players_game_and_room(strict, make_client) -> None:
    owner = await make_client(strict.ws)
    other = await make_client(strict.ws)
    view = await owner.new(WIN_CODE)
    with pytest.raises(RequestError) as info:
        await other.open(view.game, "player")
    assert info.value.code == "not_player"
    await other.open(view.game, "watcher")
    assert (await other.act(view.game, "draw"))["code"] == "not_open"
    for _ in range(2):
        await other.new()
    with pytest.raises(RequestError) as info:
        await other.new()
    assert info.value.code == "too_many_games"
    await other.send({"t": "close", "game": view.game})
    await other.new()


async def test_oversized_frames(strict, make_client) -> None:
    c = await make_client(strict.ws)
    big = msgpack.packb({"t": "hello", "name": "x" * 5000})
    assert (await _error(c, big))["code"] == "too_big"
    huge = b"\x00" * (strict.settings.hard_max_frame + 1)
    await c.send_raw(huge)
    assert await c.wait_closed(5) == CLOSE_TOO_BIG


async def test_flood_rate_limited_then_closed(slow_rate, slow_clock, make_client) -> None:
    c = await make_client(slow_rate.ws)
    for n in range(30):
        await c.send({"t": "ping", "n": n})
    replies = [await c.recv() for _ in range(30)]  # one answer each: a pong, or a rate_limited error
    pongs = [m for m in replies if m["t"] == "pong"]
    errors = [m for m in replies if m["t"] == "error"]
    assert 15 <= len(pongs) <= 25 and len(pongs) + len(errors) == 30
    assert {(e["code"], e["ref"]) for e in errors} == {("rate_limited", "ping")}
    await slow_clock.advance(1.0)  # a second later the bucket is full again
    await c.ping()  # usable again
    with contextlib.suppress(ClientClosed):  # the server may close while we still send
        for n in range(500):
            await c.send({"t": "ping", "n": n})
            await asyncio.sleep(0)
    assert await c.wait_closed(5) == CLOSE_FLOOD


async def test_flood_on_one_connection_does_not_stop_others(slow_rate, make_client) -> None:
    flooder = await make_client(slow_rate.ws)
    calm = await make_client(slow_rate.ws)
    with contextlib.suppress(ClientClosed):  # the server may close while we still send
        for n in range(200):
            await flooder.send({"t": "ping", "n": n})
            await asyncio.sleep(0)
    assert await flooder.wait_closed(5) == CLOSE_FLOOD
    assert (await calm.ping())["t"] == "pong"


async def test_text_that_is_not_unicode_is_refused_and_harms_nobody(strict, make_client) -> None:
    """JSON escapes can carry a lone surrogate: refused as bad_field / bad_type (never stored, never sent),
    while another player's move in the same instant goes through."""
    c = await make_client(strict.ws, codec="golfrace.json")
    other = await make_client(strict.ws)
    view = await other.new(WIN_CODE)
    lone = '"\\ud800"'
    act = other.act(view.game, "draw")
    bad = _error(c, '{"t": "hello", "name": ' + lone + "}")
    answer, error = await asyncio.gather(act, bad)
    assert answer["t"] == "ack" and error["code"] == "bad_field" and error["params"]["field"] == "name"
    for frame, code in (
        ('{"t": "hello", "sid": ' + lone + "}", "bad_field"),
        ('{"t": "new", "rid": ' + lone + "}", "bad_field"),
        ('{"t": "open", "game": ' + lone + ', "role": "watcher"}', "bad_field"),
        ('{"t": ' + lone + "}", "bad_type"),
    ):
        assert (await _error(c, frame))["code"] == code, frame
    await c.send({"t": "hello", "name": "\U0001f600 ok"})  # a real emoji (a surrogate pair in JSON) is fine
    assert (await c.expect("welcome"))["player"]


async def test_sid_and_ref_and_keys(strict, make_client) -> None:
    c = await make_client(strict.ws)
    error = await _error(c, msgpack.packb({"t": "hello", "sid": "a#2"}))
    assert error["code"] == "bad_field" and error["params"]["field"] == "sid"  # '#' would reach the seq keys
    assert (await _error(c, msgpack.packb({b"t": "ping"})))["code"] == "bad_frame"  # a binary key
    error = await _error(c, msgpack.packb({"t": "act", "game": "x", "seq": 2**64 - 1, "a": "draw"}))
    assert error["code"] == "bad_field" and error["ref"] == "act"  # not echoed beyond 2**53


async def test_a_burst_in_one_write_is_rate_limited_not_closed_as_slow(settings, make_client) -> None:
    clock = MovableClock()
    async with running_server(
        settings.with_(port=0, rate=20.0, burst=40, flood_close_after=200), clock=clock
    ) as server:
        c = await make_client(server.ws)
        assert c.ws is not None
        for n in range(150):  # all in one write: the server reads them without a pause
            c.ws.protocol.send_binary(msgpack.packb({"t": "ping", "n": n}))
        c.ws.send_data()
        replies = [await c.recv() for _ in range(150)]
        assert {m["t"] for m in replies} == {"pong", "error"}
        assert {m["code"] for m in replies if m["t"] == "error"} == {"rate_limited"}
        await clock.advance(1.0)  # the bucket refills
        assert (await c.ping())["t"] == "pong"  # still open: a flood, not a slow reader
