"""The wire: the closed set of client messages, their validation, the two codecs, error and close codes.

Sans I/O: ``decode(frame, codec)`` gives a validated message dict or raises ``ProtocolError``;
``encode(message, codec)`` gives the frame. Other modules add message types with ``register``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from .engine.i18n import LOCALES
from .errors import ProtocolError as ProtocolError  # re-exported for the extensions that raise it

MSGPACK = "golfrace.msgpack"
JSON = "golfrace.json"
SUBPROTOCOLS = (MSGPACK, JSON)

# --- close codes (documented in docs/protocol.md) -------------------------------------------------------
CLOSE_GOING_AWAY = 1001  # server shutting down
CLOSE_TOO_BIG = 1009  # frame above Settings.hard_max_frame (closed by the websocket layer)
CLOSE_INTERNAL = 1011  # unexpected server fault
CLOSE_NO_HELLO = 4002  # no hello within Settings.hello_timeout
CLOSE_TOO_SLOW = 4008  # send queue stayed full for Settings.slow_grace
CLOSE_FLOOD = 4029  # kept sending after Settings.flood_close_after rate-limited messages


# --- message specs ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Field:
    """One field of a client message. ``kind``: str, int, bool, map; ``choices``/``lo``/``hi``/``max_len``."""

    name: str
    kind: type
    required: bool = False
    choices: tuple[Any, ...] | None = None
    lo: int | None = None
    hi: int | None = None
    max_len: int | None = None
    nullable: bool = False
    check: Callable[[Any], Any] | None = None
    """Optional extra validation/normalisation: returns the value to keep or raises ValueError."""


@dataclass(frozen=True, slots=True)
class Spec:
    t: str
    fields: tuple[Field, ...] = field(default_factory=tuple)


SPECS: dict[str, Spec] = {}
ID_LEN = 32
MAX_INT = 2**53  # safe in JavaScript


SID = re.compile(r"[0-9A-Za-z_-]{1,32}")


def _sid(value: str) -> str:
    if not SID.fullmatch(value):
        raise ValueError("holds only letters, digits, _ and - (1 to 32)")
    return value


def register(spec: Spec) -> Spec:
    """Add a client → server message type (used by this module and by extensions: races, boards…)."""
    if spec.t in SPECS:
        raise ValueError(f"message type {spec.t!r} is already registered")
    SPECS[spec.t] = spec
    return spec


def _variants(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError("variants must be a map")
    out: dict[str, Any] = {}
    for key, val in value.items():
        if key in ("strict", "empty_discard"):
            if not isinstance(val, bool):
                raise ValueError(f"variants.{key} must be true or false")
            out[key] = val
        elif key == "jokers":
            if isinstance(val, bool) or not isinstance(val, int) or not 0 <= val <= 2:
                raise ValueError("variants.jokers must be 0, 1 or 2")
            out[key] = val
        else:
            raise ValueError(f"unknown variant {str(key)[:20]!r}")
    return out


GAME = Field("game", str, required=True, max_len=ID_LEN)
register(
    Spec(
        "hello",
        (
            Field("token", str, max_len=256, nullable=True),
            Field("session", str, max_len=128, nullable=True),  # accounts: a session token
            Field("lang", str, choices=LOCALES),
            Field("name", str, max_len=32),
            Field("sid", str, max_len=ID_LEN, check=_sid),
        ),
    )
)
# the choice of a deal (a code, or rules and variants for a random one), shared by ``new`` and ``race_new``
DEAL_FIELDS = (
    Field("code", str, max_len=40, nullable=True),
    Field("rules", str, choices=("easy", "classic")),
    Field("variants", dict, check=_variants),
)
register(Spec("new", (*DEAL_FIELDS, Field("rid", str, max_len=ID_LEN))))
register(Spec("open", (GAME, Field("role", str, required=True, choices=("player", "watcher")))))
register(Spec("close", (GAME,)))
# the fields of one move, shared by every message that carries one (``act``, and ``race_act`` of the races)
ACTION_FIELDS = (
    Field("seq", int, required=True, lo=1, hi=MAX_INT),
    Field("a", str, required=True, choices=("tap", "draw", "undo")),
    Field("col", int, lo=1, hi=7),
    Field("row", int, lo=1, hi=5, nullable=True),
)
register(Spec("act", (GAME, *ACTION_FIELDS)))
register(Spec("resync", (GAME, Field("v", int, required=True, lo=0, hi=MAX_INT))))
register(Spec("ping", (Field("n", int, lo=-MAX_INT, hi=MAX_INT),)))


def validate(raw: Any) -> dict[str, Any]:
    """A decoded frame → a message dict holding only known fields, each of the right type."""
    if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
        raise ProtocolError("bad_frame", "a message is a map with string keys and a type `t`")
    t = raw.get("t")
    if not isinstance(t, str) or t not in SPECS:
        shown = t[:20] if isinstance(t, str) and _is_text(t[:20]) else None
        raise ProtocolError("bad_type", f"unknown message type {shown!r}", ref=shown)
    spec = SPECS[t]
    seq: Any = raw.get("seq")
    ref = seq if t == "act" and _is_int(seq) and 1 <= seq <= MAX_INT else t
    msg: dict[str, Any] = {"t": t}
    for f in spec.fields:
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
def decode(frame: bytes | str, codec: str) -> dict[str, Any]:
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
    return validate(raw)


def pack(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


def to_json(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def encode(message: dict[str, Any], codec: str) -> bytes | str:
    return pack(message) if codec == MSGPACK else to_json(message)


def choose_codec(offered: list[str]) -> str | None:
    """The subprotocol to accept: the first we know in the client's order; None (JSON) when none."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    return None
