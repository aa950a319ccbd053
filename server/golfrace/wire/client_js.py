"""``client_web/src/net/messages.js``, the web client's one module of the wire, generated from the Python
definitions (``golfrace messages --js``; ``tests/server/test_messages.py`` checks that it is current): the
message types and fields (``messages.py``), a JSDoc ``@typedef`` per server message with its fields' types
(``SHAPES``, ``FIELD_TYPES``), the ids' patterns and the bounds of what a player types (``ids.py``, the
default settings), the rule sets and variants (``engine.rules``), the game code's letters (``engine.codes``),
and every error and close code (``errors.py``, ``protocol.py``). The views take these from it: no bound, id
rule or message type is typed by hand in the client (``tests/test_one_definition.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from golfrace.engine.codes import CANONICAL_LETTER, LONG_SEED_LETTERS, PREFIX, RULE_LETTERS, SEED_LETTERS
from golfrace.engine.errors import REFUSAL_CODES
from golfrace.engine.game import Status
from golfrace.engine.rules import MAX_JOKERS, RULES, VARIANT_FLAGS, VARIANT_LETTERS, Rules
from golfrace.settings.accounts import AccountSettings
from golfrace.settings.races import DEFAULT_SETTINGS as RACES
from golfrace.wire import ids, protocol
from golfrace.wire.errors import ErrorCode
from golfrace.wire.messages import SERVER_MESSAGES, export

ACCOUNTS = AccountSettings()
PASSWORD_SENT_MAX = 4 * ACCOUNTS.password_max
"""The longest password a page sends to sign in or confirm (any password before its normalisation: an older
or longer one than the current bounds allow is still answered by the server, never cut by the page)."""

BOUNDS: Mapping[str, int] = {
    "id_len": ids.ID_LEN,
    "name_max": RACES.name_max,
    "display_max": ACCOUNTS.display_max,
    "username_min": ids.USERNAME_MIN,
    "username_max": ids.USERNAME_MAX,
    "username_sent_max": ids.USERNAME_SENT_MAX,
    "password_min": ACCOUNTS.password_min,
    "password_max": ACCOUNTS.password_max,
    "password_sent_max": PASSWORD_SENT_MAX,
    "max_racers": RACES.max_racers,
    "max_time_limit_s": RACES.max_time_limit_s,
    "max_jokers": MAX_JOKERS,
}
"""What a page bounds its inputs with (the server's defaults; the server checks every message again)."""

IDS: Mapping[str, str] = {
    "game": ids.GAME_ID.pattern,
    "race": ids.RACE_ID.pattern,
    "seat": ids.SEAT_ID.pattern,
    "player": ids.PLAYER_ID.pattern,
    "sid": ids.SID.pattern,
    "username": ids.USERNAME.pattern,
}
"""Each id's and the username's pattern (whole-string: the client anchors them)."""


def _union(values: Iterable[str]) -> str:
    return " | ".join(json.dumps(v) for v in values)


SHAPES: Mapping[str, str] = {
    "Rules": _union(RULES),
    "GameStatus": _union(s.value for s in Status),
    "Variants": "{strict: boolean, jokers: number, empty_discard: boolean}",
    "Placed": "{col: number, card: string}",
    "PublicState": "Record<string, any>",
    "Person": "{username: string, name: string}",
    "Progress": (
        "{seat: number, player: string, name: string, removed: number, score: number, moves: number,"
        " undos: number, stock_count: number | null, status: string, elapsed: number, out_at: number | null,"
        " bot?: number}"
    ),
    "Board": "WireProgress & {columns: string[][] | null, discard: string | null, hidden: boolean}",
    "Result": (
        "WireProgress & {rank: number, game: string, scored_as_stuck: boolean, flags: string[],"
        " review?: string | null, late?: boolean}"
    ),
    "RaceOptions": "{undo: boolean, limit: number, seats: number}",
    "BoardEntry": (
        "{rank: number, player: string, name: string, username?: string | null, score: number,"
        " elapsed: number, moves: number, finished_at: number, game: string, deleted?: boolean}"
    ),
    "DailyRow": (
        "{rank: number, username: string, name: string, score: number, elapsed: number, moves: number,"
        " you: boolean}"
    ),
    "Friend": (
        "{username: string, name: string, status: string,"
        " race: {race: string, phase: string, rules: string, ranked: boolean} | null}"
    ),
    "HintMove": '{a: "tap", col: number} | {a: "draw"}',
}
"""The nested values of the server messages: ``Wire<Name>`` typedefs."""

FIELD_TYPES: Mapping[str, str] = {
    **dict.fromkeys(("token", "player", "sid", "lang", "game", "role", "message", "race", "host"), "string"),
    **dict.fromkeys(("now", "v", "from", "seq", "n", "score", "moves", "undos", "stock_count"), "number"),
    **dict.fromkeys(("total", "next_in", "streak", "best_streak"), "number"),
    **dict.fromkeys(("starts_at", "expires_at", "next_at"), "number"),
    **dict.fromkeys(("deadline", "ended_at", "par", "since", "rating", "delta", "best"), "number | null"),
    **dict.fromkeys(("typed", "ranked", "guest_deal", "pool", "played", "can_undo", "undrawn"), "boolean"),
    **dict.fromkeys(("provisional", "winnable"), "boolean | null"),
    **dict.fromkeys(("code", "discard", "daily", "rematch", "previous", "share", "drawn"), "string | null"),
    **dict.fromkeys(("ref",), "string | number"),
    **dict.fromkeys(("params", "limits"), "Record<string, any>"),
    "games": "string[]",
    "account": "Record<string, any> | null",
    "state": "string",
    "a": '"tap" | "draw" | "undo"',
    "removed": "WirePlaced",
    "restored": "WirePlaced",
    "status": "WireGameStatus",
    "move": "WireHintMove | null",
    "phase": '"lobby" | "countdown" | "running" | "finished"',
    "rules": "WireRules",
    "variants": "WireVariants",
    "options": "WireRaceOptions",
    "racers": "WireProgress[]",
    "you": "{seat: number, game: string} | null",
    "watchers": "number",
    "results": "WireResult[] | null",
    "racer": "WireProgress",
    "boards": "WireBoard[]",
    "board": "string",
    "diff": "Record<string, any> | null",
    "entries": "WireBoardEntry[]",
    "date": "string",
    "result": "Record<string, any> | null",
    "following": "WireFriend[]",
    "blocked": "WirePerson[]",
    "challenge": "string",
    "to": "WirePerson",
    "outcome": '"accepted" | "declined" | "withdrawn" | "expired"',
    "rid": "string",
}
"""The JSDoc type of each server field, by name; ``MESSAGE_FIELD_TYPES`` where one message differs."""

MESSAGE_FIELD_TYPES: Mapping[tuple[str, str], str] = {
    ("snapshot", "state"): "WirePublicState",
    ("pool", "rules"): "WireRules | null",
    ("pool", "state"): '"searching" | "idle"',
    ("pool_result", "state"): '"rated" | "pending" | "held" | "casual"',
    ("challenge", "from"): "WirePerson",
    ("challenge_end", "race"): "string | null",
    ("error", "code"): "WireErrorCode",
    ("refused", "code"): "string",
    ("race_board", "board"): "WireBoard",
    ("friends_daily", "entries"): "WireDailyRow[]",
    ("daily", "code"): "null",
}


def _camel(t: str) -> str:
    return "".join(part.capitalize() for part in t.split("_"))


def field_type(t: str, name: str) -> str:
    """The JSDoc type of field ``name`` of the server message ``t``."""
    return MESSAGE_FIELD_TYPES.get((t, name)) or FIELD_TYPES[name]


def typedefs() -> list[str]:
    """A JSDoc block: ``Wire<Shape>`` for each of ``SHAPES``, ``<Type>Message`` per server message
    (``race_watch``: ``RaceWatchMessage``), and the ``ServerMessage`` union."""
    lines = ["/**"]
    lines += [f" * @typedef {{{js}}} Wire{name}" for name, js in SHAPES.items()]
    lines.append(f" * @typedef {{{_union(c.value for c in ErrorCode)}}} WireErrorCode")
    for m in SERVER_MESSAGES:
        lines.append(f" * @typedef {{object}} {_camel(m.t)}Message  the `{m.t}` message")
        lines.append(f' * @property {{"{m.t}"}} t')
        for f in (*m.fields, "rid?"):
            name = f.rstrip("?")
            shown = f"[{name}]" if f.endswith("?") else name
            lines.append(f" * @property {{{field_type(m.t, name)}}} {shown}")
    names = " | ".join(f"{_camel(m.t)}Message" for m in SERVER_MESSAGES)
    lines.append(f" * @typedef {{{names}}} ServerMessage")
    lines.append(" */")
    return lines


def _frozen(name: str, doc: str, value: Any) -> list[str]:
    return [f"/** {doc} */", f"export const {name} = /* @__PURE__ */ Object.freeze({json.dumps(value)});", ""]


def constants() -> list[str]:
    """The ids, bounds, rules, code letters and the error and close codes, as frozen objects."""
    close = {k[len("CLOSE_") :].lower(): v for k, v in vars(protocol).items() if k.startswith("CLOSE_")}
    codes = {
        "prefix": PREFIX,
        "seed_letters": SEED_LETTERS,
        "long_seed_letters": LONG_SEED_LETTERS,
        "rule_letters": {k: v.value for k, v in RULE_LETTERS.items()},
        "canonical_letter": {k.value: v for k, v in CANONICAL_LETTER.items()},
        "variant_letters": VARIANT_LETTERS,
    }
    return [
        *_frozen("BOUNDS", "The bounds of what a player types (the server's defaults).", dict(BOUNDS)),
        *_frozen("IDS", "Each id's pattern, unanchored (`idPattern` anchors one).", dict(IDS)),
        *_frozen("RULES", "The rule sets, as the wire names them.", list(RULES)),
        *_frozen(
            "RULE",
            "Each rule set's wire name, by its Python name."
            f" @type {{Readonly<Record<{_union(r.name for r in Rules)}, WireRules>>}}",
            {r.name: r.value for r in Rules},
        ),
        *_frozen(
            "VARIANT_FLAGS", "The variants that are on or off (`jokers` is a count).", list(VARIANT_FLAGS)
        ),
        *_frozen("CODES", "The game code's parts (engine/codes.py).", codes),
        *_frozen(
            "ERROR",
            "Every code of an `error` message, by its Python name.",
            {c.name: c.value for c in ErrorCode},
        ),
        *_frozen("REFUSAL", "Every code of a `refused` move (the engine's).", list(REFUSAL_CODES)),
        *_frozen("CLOSE", "Every close code the server sends, by name.", close),
        "/** The whole-string RegExp of the id `kind` (a key of `IDS`). @param {keyof typeof IDS} kind */",
        "export function idPattern(kind) {",
        "  return new RegExp(`^(?:${IDS[kind]})$`);",
        "}",
        "",
    ]


def javascript() -> str:
    """``client_web/src/net/messages.js``."""
    data = export()
    names = sorted({*data["client"], *data["server"]})

    def table(rows: Mapping[str, Any]) -> str:
        return "\n".join(f"  {t}: {json.dumps(list(fields))}," for t, fields in rows.items())

    lines = [
        "// @ts-check",
        "// Generated by `golfrace messages --js` from server/golfrace/wire/ (client_js.py): do not edit.",
        "// tests/server/test_messages.py checks that it is current.",
        "",
        "/** Every message type of the wire (client → server and server → client), by name. */",
        "export const T = /* @__PURE__ */ Object.freeze({",
        *(f"  {n}: {json.dumps(n)}," for n in names),
        "});",
        "",
        "/** Client → server: each type's fields (every one may also carry `rid`). */",
        "export const CLIENT = /* @__PURE__ */ Object.freeze({",
        table({t: [f for f in fields if f != "rid"] for t, fields in data["client"].items()}),
        "});",
        "",
        "/** Types a client may send before `hello`. */",
        f"export const ANONYMOUS = /* @__PURE__ */ Object.freeze({json.dumps(data['anonymous'])});",
        "",
        "/** Server → client: each type's fields (`name?`: not always there; an answer may carry `rid`). */",
        "export const SERVER = /* @__PURE__ */ Object.freeze({",
        table({t: [f for f in fields if f != "rid?"] for t, fields in data["server"].items()}),
        "});",
        "",
        *constants(),
        *typedefs(),
        "",
    ]
    return "\n".join(lines)
