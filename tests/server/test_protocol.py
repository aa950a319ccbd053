"""The wire without sockets: validation, codecs, views, settings, tokens, and the leak checker itself."""

from __future__ import annotations

import msgpack
import pytest

from golfrace.engine import Draw, Game, Tap, Undo
from golfrace.live.tokens import Tokens
from golfrace.settings import Settings
from golfrace.wire.messages import CLIENT
from golfrace.wire.protocol import JSON, MSGPACK, ProtocolError, decode, encode
from golfrace.wire.views import diff, public_state
from golfrace_client.client import Client

from .helpers import WIN_CODE, assert_no_leak


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_round_trip_every_type(codec: str) -> None:
    samples = {
        "hello": {"t": "hello", "token": None, "lang": "he", "name": "Ana", "sid": "s1"},
        "new": {"t": "new", "code": None, "rules": "classic", "variants": {"strict": True, "jokers": 2}},
        "open": {"t": "open", "game": "g1", "role": "watcher"},
        "close": {"t": "close", "game": "g1"},
        "act": {"t": "act", "game": "g1", "seq": 3, "a": "tap", "col": 2, "row": None},
        "resync": {"t": "resync", "game": "g1", "v": 0},
        "ping": {"t": "ping", "n": -4},
    }
    for t in ("hello", "new", "open", "close", "act", "resync", "ping"):
        assert t in CLIENT
        msg = decode(encode(samples[t], codec), codec)
        assert msg == samples[t]  # nullable fields keep their null


def test_unknown_fields_are_dropped_and_types_checked() -> None:
    msg = decode(msgpack.packb({"t": "ping", "n": 1, "extra": [1] * 10}), MSGPACK)
    assert msg == {"t": "ping", "n": 1}
    with pytest.raises(ProtocolError) as info:
        decode(b'{"t": "act", "game": "g", "seq": 1, "a": "draw", "col": "1"}', JSON)
    assert (info.value.code, info.value.params, info.value.ref) == ("bad_field", {"field": "col"}, 1)


def test_diffs_carry_only_what_changed() -> None:
    g0 = Game.new(WIN_CODE)
    g1 = g0.apply(Tap(5))
    d = diff("g", 0, g0, g1, Tap(5), hidden=True)
    assert d["removed"] == {"col": 5, "card": g0.columns[4][-1].code} and "code" not in d
    g2 = g1.apply(Draw())
    assert diff("g", 1, g1, g2, Draw(), hidden=True)["drawn"] == g0.deal.stock[0].code
    g3 = g2.apply(Undo())
    assert diff("g", 2, g2, g3, Undo(), hidden=True)["undrawn"] is True
    state = public_state(g0, hidden=True)
    assert state["code"] is None and state["stock_count"] == len(g0.deal.stock)
    assert not any(c.code in str(state) for c in g0.deal.stock)


def test_leak_checker_catches_a_leak() -> None:
    client = Client("ws://unused")
    stock = Game.new(WIN_CODE).deal.stock
    client.frames = [{"t": "diff", "game": "g", "discard": stock[3].code}]
    with pytest.raises(AssertionError):
        assert_no_leak(client, {"g": WIN_CODE})
    client.frames = [{"t": "snapshot", "game": "g", "state": {"code": "GO1-C-AAAAAAC", "status": "playing"}}]
    with pytest.raises(AssertionError):
        assert_no_leak(client, {"g": "GO1-C-AAAAAAC"}, hidden={"g"})
    client.frames = [{"t": "diff", "game": "g", "drawn": stock[0].code, "discard": stock[0].code}]
    assert assert_no_leak(client, {"g": WIN_CODE}) == 1


def test_settings_from_env_and_tokens() -> None:
    s = Settings.from_env({"REDIS_URL": "redis://x", "GOLFRACE_RATE": "3.5", "GOLFRACE_COMPRESSION": "yes"})
    assert (s.redis_url, s.rate, s.compression) == ("redis://x", 3.5, True)
    assert Settings.from_env({}, port=9).port == 9
    tokens = Tokens("k")
    player, token = tokens.issue()
    assert tokens.verify(token) == player
    assert Tokens("other").verify(token) is None and tokens.verify("garbage") is None
