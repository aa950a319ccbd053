"""Every message of the wire, both ways, defined once: what a client may send (``CLIENT``: types, fields,
bounds) and what the server sends (``SERVER``: types and their fields).

This is data, not a registry: nothing adds to it at run time. ``protocol.validate`` checks a client message
against ``CLIENT``; each app builds its dispatch table (``dispatch.Dispatch``) from its modules' handlers for
these types; ``docs/protocol.md`` is held against both sets by ``tests/server/test_messages.py``; the web
client's ``client_web/src/net/messages.js`` is generated from here (``client_js.py``, ``golfrace messages
--js``) and checked to be current by the same tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from golfrace.engine.i18n import LOCALES
from golfrace.engine.rules import RULES, Variants
from golfrace.settings.races import DEFAULT_SETTINGS as RACE_LIMITS
from golfrace.wire.ids import ID_LEN, SID, USERNAME_SENT_MAX

MAX_INT = 2**53
"""Integers on the wire stay within ±2^53: safe in JavaScript."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a client message: ``kind`` str, int, bool or dict, and its bounds."""

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

    def export(self) -> dict[str, Any]:
        """The field as data (for the web client's generated module)."""
        out: dict[str, Any] = {"kind": {str: "string", int: "int", bool: "bool", dict: "map"}[self.kind]}
        for name in ("required", "nullable"):
            if getattr(self, name):
                out[name] = True
        for name in ("choices", "lo", "hi", "max_len"):
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True, slots=True)
class In:
    """A client → server message type and its fields (every one also takes the request id ``rid``)."""

    t: str
    fields: tuple[Field, ...] = ()
    anonymous: bool = False
    """Allowed before ``hello``."""


@dataclass(frozen=True, slots=True)
class Out:
    """A server → client message type and its fields (``name?``: not always present)."""

    t: str
    fields: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.rstrip("?") for f in self.fields)


def _sid(value: str) -> str:
    if not SID.fullmatch(value):
        raise ValueError("holds only letters, digits, _ and - (1 to 32)")
    return value


def _variants(value: Any) -> dict[str, Any]:
    """The variants as sent, once ``Variants.from_wire`` (the one parser) takes them."""
    Variants.from_wire(value)
    return dict(value)


RID = Field("rid", str, max_len=ID_LEN)
"""The request id: any client message may carry one; every answer to it echoes it."""
GAME = Field("game", str, required=True, max_len=ID_LEN)
RACE = Field("race", str, required=True, max_len=ID_LEN)
BOARD = Field("board", str, required=True, max_len=64)
NAME = Field("name", str, max_len=RACE_LIMITS.name_max * 2)
USERNAME = Field("name", str, required=True, max_len=USERNAME_SENT_MAX)
"""An account's username (any case): the friends messages."""
DEAL_FIELDS = (
    Field("code", str, max_len=40, nullable=True),
    Field("rules", str, choices=RULES),
    Field("variants", dict, check=_variants),
)
"""The choice of a deal (a code, or rules and variants for a random one): ``new`` and ``race_new``."""
ACTION_FIELDS = (
    Field("seq", int, required=True, lo=1, hi=MAX_INT),
    Field("a", str, required=True, choices=("tap", "draw", "undo")),
    Field("col", int, lo=1, hi=7),
    Field("row", int, lo=1, hi=5, nullable=True),
)
"""The fields of one move: ``act`` and ``race_act``."""

CLIENT_MESSAGES = (
    # games
    In(
        "hello",
        (
            Field("token", str, max_len=256, nullable=True),
            Field("session", str, max_len=128, nullable=True),  # accounts: a session token
            Field("lang", str, choices=LOCALES),
            Field("name", str, max_len=32),
            Field("sid", str, max_len=ID_LEN, check=_sid),
        ),
        anonymous=True,
    ),
    In("new", DEAL_FIELDS),
    In("open", (GAME, Field("role", str, required=True, choices=("player", "watcher")))),
    In("close", (GAME,)),
    In("act", (GAME, *ACTION_FIELDS)),
    In("resync", (GAME, Field("v", int, required=True, lo=0, hi=MAX_INT))),
    In("ping", (Field("n", int, lo=-MAX_INT, hi=MAX_INT),), anonymous=True),
    In("hint", (GAME,)),
    # races, spectators, leaderboards, daily
    In(
        "race_new",
        (
            *DEAL_FIELDS,
            Field("undo", bool),
            Field("limit", int, lo=0, hi=RACE_LIMITS.max_time_limit_s),
            Field("seats", int, lo=1, hi=RACE_LIMITS.max_racers),
            Field("ranked", bool),  # fair play 19.2: absent, ranked for an account and casual for a guest
            NAME,
        ),
    ),
    In("race_join", (RACE, NAME)),
    In("race_leave", (RACE,)),
    In("race_start", (RACE,)),
    In("race_act", (RACE, *ACTION_FIELDS)),
    In("race_resign", (RACE,)),
    In("race_rematch", (RACE,)),
    In("watch", (RACE,)),
    In("unwatch", (RACE,)),
    In("board_watch", (BOARD,)),
    In("board_unwatch", (BOARD,)),
    In("daily", ()),
    In("daily_play", (NAME,)),
    # quick races (the pool)
    In("pool_join", (Field("rules", str, required=True, choices=RULES), NAME)),
    In("pool_leave", ()),
    In("pool_result", (RACE,)),
    # friends (accounts only)
    In("friends", ()),
    In(
        "friend_follow",
        (
            Field("name", str, max_len=USERNAME_SENT_MAX),
            Field("race", str, max_len=ID_LEN),
            Field("seat", int, lo=1, hi=RACE_LIMITS.max_racers),
        ),
    ),
    In("friend_unfollow", (USERNAME,)),
    In("friend_block", (USERNAME,)),
    In("friend_unblock", (USERNAME,)),
    In("friend_challenge", (USERNAME, Field("rules", str, choices=RULES))),
    In(
        "challenge_answer",
        (
            Field("challenge", str, required=True, max_len=ID_LEN, check=_sid),
            Field("accept", bool, required=True),
        ),
    ),
    In("friends_daily", ()),
)

_DIFF = (
    "game",
    "v",
    "from",
    "a",
    "removed?",
    "drawn?",
    "restored?",
    "undrawn?",
    "discard",
    "stock_count",
    "score",
    "moves",
    "undos",
    "status",
    "can_undo",
    "code?",
)
_RACE = (
    "race",
    "phase",
    "code",
    "rules",
    "variants",
    "typed",
    "ranked",
    "daily",
    "guest_deal",
    "pool",
    "options",
    "host",
    "racers",
    "starts_at",
    "deadline",
    "ended_at",
    "now",
    "you",
    "watchers",
    "results",
    "par",
    "rematch",
    "previous",
)
SERVER_MESSAGES = (
    # games
    Out("welcome", ("token", "player", "sid", "lang", "now", "games", "limits", "account")),
    Out("snapshot", ("game", "v", "role", "state")),
    Out("diff", _DIFF),
    Out("ack", ("game", "seq", "v", "race?")),
    Out("refused", ("game?", "seq", "code", "params", "message", "race?")),
    Out("error", ("code", "message", "ref?", "params?")),
    Out("pong", ("n", "now")),
    Out("ok", ("ref",)),
    Out("hint", ("game", "v", "move", "winnable", "best")),
    # races, spectators, leaderboards, daily
    Out("race", (*_RACE, "v?")),
    Out("race_progress", ("race", "racer", "now", "v?")),
    Out("race_watch", (*_RACE, "boards", "v")),
    Out("race_board", ("race", "board", "diff", "v")),
    Out("watchers", ("race", "n", "v?")),
    Out("board", ("board", "total", "entries")),
    Out(
        "daily",
        ("date", "next_at", "next_in", "played", "result", "streak", "best_streak", "code", "share"),
    ),
    # quick races (the pool)
    Out("pool", ("state", "rules", "n", "since?")),
    Out("pool_found", ("race", "rules", "starts_at")),
    Out("pool_result", ("race", "rules", "state", "rating", "delta", "provisional")),
    # friends
    Out("friends", ("following", "blocked", "now")),
    Out("challenge", ("challenge", "from", "to", "rules", "expires_at", "now")),
    Out("challenge_end", ("challenge", "outcome", "race")),
    Out("friends_daily", ("date", "entries")),
)
ANSWER_FIELDS = ("rid",)
"""Fields any server message may carry: ``rid`` on every direct answer to a request that had one."""

CLIENT: Mapping[str, In] = MappingProxyType({m.t: m for m in CLIENT_MESSAGES})
SERVER: Mapping[str, Out] = MappingProxyType({m.t: m for m in SERVER_MESSAGES})


def fields_of(spec: In) -> tuple[Field, ...]:
    """The fields ``protocol.validate`` checks: the message's own and the request id."""
    return (*spec.fields, RID)


def nonconformity(message: Mapping[str, Any]) -> str | None:
    """Why a server → client ``message`` is not one of ``SERVER`` (unknown type, a field missing or extra),
    or None. The test clients check every frame they receive with it."""
    out = SERVER.get(message.get("t", ""))
    if out is None:
        return f"unknown type {message.get('t')!r}"
    names = set(out.names)
    extra = set(message) - names - {"t", *ANSWER_FIELDS}
    missing = {f for f in out.fields if not f.endswith("?")} - set(message)
    if extra or missing:
        return f"{out.t}: extra {sorted(extra)}, missing {sorted(missing)}"
    return None


def export() -> dict[str, Any]:
    """Both sets as data: ``{"client": {t: {field: {...}}}, "server": {t: [field, ...]}}``."""
    return {
        "client": {m.t: {f.name: f.export() for f in fields_of(m)} for m in CLIENT_MESSAGES},
        "anonymous": [m.t for m in CLIENT_MESSAGES if m.anonymous],
        "server": {m.t: [*m.fields, *(f"{a}?" for a in ANSWER_FIELDS)] for m in SERVER_MESSAGES},
    }
