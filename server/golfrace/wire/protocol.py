"""The wire: validation of client messages against their definitions, the two codecs, close codes.

Sans I/O: ``decode(frame, codec, specs)`` gives a validated message dict or raises ``ProtocolError``;
``encode(message, codec)`` gives the frame. The messages themselves are defined in ``messages.py``; ``specs``
is the app's table (``dispatch.Dispatch.specs``: the types it has handlers for).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgpack

from golfrace.wire.errors import ProtocolError as ProtocolError
from golfrace.wire.ids import ID_LEN
from golfrace.wire.messages import CLIENT, MAX_INT, Field, In, fields_of

MSGPACK = "golfrace.msgpack"
JSON = "golfrace.json"
SUBPROTOCOLS = (MSGPACK, JSON)

# --- close codes (documented in docs/protocol.md) -------------------------------------------------------
CLOSE_GOING_AWAY = 1001  # server shutting down
CLOSE_TOO_BIG = 1009  # frame above Settings.hard_max_frame (closed by the websocket layer)
CLOSE_INTERNAL = 1011  # unexpected server fault
CLOSE_NO_HELLO = 4002  # no hello within Settings.hello_timeout
CLOSE_BAD_ORIGIN = 4003  # the Origin of a /ws handshake is not allowed (Settings.allowed_origins)
CLOSE_TOO_SLOW = 4008  # send queue stayed full for Settings.slow_grace
CLOSE_FLOOD = 4029  # kept sending after Settings.flood_close_after rate-limited messages
CLOSE_TOO_MANY_CONNECTIONS = 4030  # beyond Settings.max_connections_per_network / _per_player
CLOSE_SIGNED_OUT = 4401  # the session was signed out (the page reconnects as a new anonymous player)


def validate(raw: Any, specs: Mapping[str, In] = CLIENT) -> dict[str, Any]:
    """A decoded frame → a message dict holding only known fields, each of the right type. An error carries
    the frame's ``rid`` when it has a readable one."""
    if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
        raise ProtocolError("bad_frame", "a message is a map with string keys and a type `t`")
    try:
        return _validate(raw, specs)
    except ProtocolError as exc:
        rid = raw.get("rid")
        if isinstance(rid, str) and len(rid) <= ID_LEN and _is_text(rid):
            exc.rid = rid
        raise


def _validate(raw: dict[str, Any], specs: Mapping[str, In]) -> dict[str, Any]:
    t = raw.get("t")
    if not isinstance(t, str) or t not in specs:
        shown = t[:20] if isinstance(t, str) and _is_text(t[:20]) else None
        raise ProtocolError("bad_type", f"unknown message type {shown!r}", ref=shown)
    spec = specs[t]
    seq: Any = raw.get("seq")
    ref = seq if "seq" in (f.name for f in spec.fields) and _is_int(seq) and 1 <= seq <= MAX_INT else t
    msg: dict[str, Any] = {"t": t}
    for f in fields_of(spec):
        if f.name not in raw or (raw[f.name] is None and not f.required and not f.nullable):
            if f.required:
                raise ProtocolError("bad_field", f"{t}: `{f.name}` is required", ref=ref, field=f.name)
            continue
        msg[f.name] = _check_field(t, f, raw[f.name], ref)
    return msg


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text(value: str) -> bool:
    """Encodable as UTF-8: JSON escapes can carry a lone surrogate, which no frame or Redis key may hold."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_field(t: str, f: Field, value: Any, ref: Any) -> Any:
    def bad(why: str) -> ProtocolError:
        return ProtocolError("bad_field", f"{t}: `{f.name}` {why}", ref=ref, field=f.name)

    if value is None:
        if f.nullable:
            return None
        raise bad("must not be null")
    if f.kind is int:
        if not _is_int(value):
            raise bad("must be an integer")
        if (f.lo is not None and value < f.lo) or (f.hi is not None and value > f.hi):
            raise bad(f"must be in {f.lo}..{f.hi}")
    elif f.kind is bool:
        if not isinstance(value, bool):
            raise bad("must be true or false")
    elif not isinstance(value, f.kind):
        raise bad(f"must be a {'map' if f.kind is dict else 'string' if f.kind is str else f.kind.__name__}")
    elif isinstance(value, str) and not _is_text(value):
        raise bad("is not valid Unicode text")
    if f.max_len is not None and len(value) > f.max_len:
        raise bad(f"is longer than {f.max_len}")
    if f.choices is not None and value not in f.choices:
        raise bad(f"must be one of {', '.join(map(str, f.choices))}")
    if f.check is not None:
        try:
            return f.check(value)
        except ValueError as exc:
            raise bad(str(exc)) from None
    return value


# --- codecs ---------------------------------------------------------------------------------------------
def decode(frame: bytes | str, codec: str, specs: Mapping[str, In] = CLIENT) -> dict[str, Any]:
    """One received frame → validated message; raises ProtocolError (never anything else)."""
    try:
        if codec == MSGPACK:
            if not isinstance(frame, bytes):
                raise ProtocolError("bad_frame", "this connection speaks msgpack: send binary frames")
            raw = msgpack.unpackb(frame, raw=False, strict_map_key=True)
        else:
            text = frame.decode("utf-8") if isinstance(frame, bytes) else frame
            raw = json.loads(text)
    except ProtocolError:
        raise
    except (ValueError, TypeError, UnicodeDecodeError, RecursionError, msgpack.ExtraData):
        raise ProtocolError(
            "bad_frame", f"the frame is not valid {'msgpack' if codec == MSGPACK else 'JSON'}"
        ) from None
    except Exception:  # msgpack raises several unrelated types on garbage
        raise ProtocolError("bad_frame", "the frame cannot be decoded") from None
    return validate(raw, specs)


def pack(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


def to_json(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def encode(message: dict[str, Any], codec: str) -> bytes | str:
    return pack(message) if codec == MSGPACK else to_json(message)


__all__ = ["ID_LEN", "ProtocolError"]  # re-exported for the extensions


def choose_codec(offered: list[str]) -> str | None:
    """The subprotocol to accept: the first we know in the client's order; None (JSON) when none."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    return None
