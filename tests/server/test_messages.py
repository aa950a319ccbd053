"""The closed message set: messages.py against docs/protocol.md (both ways), against each app's dispatch
table, and the web client's generated module against messages.py."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from golfrace.http.app import CORE
from golfrace.live import handlers, hints, moves
from golfrace.live.dispatch import Dispatch, handler
from golfrace.server import EXTENSIONS
from golfrace.wire import client_js, messages
from golfrace.wire.errors import ErrorCode

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
CLIENT_HEADER = "| `t` | fields | answer |"
SERVER_HEADER = "| `t` | fields |"


def _tables(header: str) -> list[list[str]]:
    """The rows (cells) of every table of the doc whose header line is ``header``."""
    rows: list[list[str]] = []
    lines = DOC.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != header:
            continue
        for row in lines[i + 2 :]:
            if not row.startswith("|"):
                break
            rows.append([c.strip() for c in row.strip().strip("|").split("|")])
    return rows


def _top_level(cell: str) -> str:
    """``cell`` without what is inside (…) or {…}: explanations and sub-fields."""
    out, depth = [], 0
    for ch in cell:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _fields(cell: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+\??)`", _top_level(cell)))


def documented(header: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for cells in _tables(header):
        name = re.fullmatch(r"`([a-z_]+)`", cells[0])
        if name is None:  # a shape (progress, board…), not a message
            continue
        assert name.group(1) not in found, f"{name.group(1)} documented twice"
        found[name.group(1)] = _fields(cells[1])
    return found


def test_every_client_message_is_documented_and_nothing_more() -> None:
    doc = documented(CLIENT_HEADER)
    assert set(doc) == set(messages.CLIENT), set(doc) ^ set(messages.CLIENT)
    for t, spec in messages.CLIENT.items():
        defined = {f.name if f.required else f.name + "?" for f in spec.fields}
        assert doc[t] == defined, (t, doc[t] ^ defined)


def test_every_server_message_is_documented_and_nothing_more() -> None:
    doc = documented(SERVER_HEADER)
    assert set(doc) == set(messages.SERVER), set(doc) ^ set(messages.SERVER)
    for t, out in messages.SERVER.items():
        assert doc[t] == set(out.fields), (t, doc[t] ^ set(out.fields))


def test_rid_and_every_error_code_are_documented() -> None:
    assert "`rid?`" in DOC and "**Requests and answers.**" in DOC
    rows = [cells for cells in _tables("| code | meaning | connection |")]
    listed = {m.group(1) for cells in rows if (m := re.fullmatch(r"`([a-z_]+)`", cells[0]))}
    accounts = (ROOT / "docs" / "accounts.md").read_text()
    http = accounts[accounts.index("## HTTP") :].split("\n## ")[0]
    codes = {c.value for c in ErrorCode}
    assert listed <= codes, listed - codes  # nothing documented that the server lacks
    # the accounts' codes are in accounts.md
    assert codes - listed <= set(re.findall(r"`([a-z_]+)`", http)), codes - listed


def test_the_web_client_module_is_current() -> None:
    """client_web/src/net/messages.js is `golfrace messages --js` (regenerate it after changing
    messages.py)."""
    assert (ROOT / "client_web" / "src" / "net" / "messages.js").read_text() == client_js.javascript()


def test_the_web_client_sends_only_defined_types() -> None:
    """Every message object the client hands to the connection (`send(`, `sendSoon(`, `raw(`, or built as
    `msg = {…}` to be sent) has a defined type; a view's reducer events (`{ t: "shown" }`…) are not sent."""
    sent = set()
    to_send = r"(?:\b(?:send|sendSoon|raw)\(|\bmsg = )\{ t: "
    for path in (ROOT / "client_web" / "src").rglob("*.js"):
        sent |= set(re.findall(to_send + r"\"([a-z_]+)\"", path.read_text()))
        sent |= set(re.findall(to_send + r"T\.([a-z_]+)", path.read_text()))
    assert {"hello", "act", "race_new", "watch", "daily_play"} <= sent  # the patterns still find them
    assert sent <= set(messages.CLIENT), sent - set(messages.CLIENT)


def test_each_app_builds_its_own_table() -> None:
    games = Dispatch.from_modules([handlers, moves])
    assert {"hello", "act", "ping"} <= set(games.specs) and "hint" not in games.specs
    assert set(games.specs) == set(Dispatch.from_modules(CORE).specs)
    with_hints = Dispatch.from_modules([*CORE, hints])
    assert "hint" in with_hints.specs
    everything = Dispatch.from_modules([*CORE, *(m for e in EXTENSIONS for m in e.handlers)])
    assert set(everything.specs) == set(messages.CLIENT)  # every defined message has a handler


def test_a_handler_for_an_undefined_message_is_refused() -> None:
    stray = ModuleType("stray")

    @handler("teleport")
    async def on_teleport(session: object, msg: object) -> None: ...

    stray.on_teleport = on_teleport  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="teleport"):
        Dispatch.from_modules([*CORE, stray])
    twice = ModuleType("twice")

    @handler("ping")
    async def on_ping_again(session: object, msg: object) -> None: ...

    twice.on_ping_again = on_ping_again  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="two handlers"):
        Dispatch.from_modules([*CORE, twice])
