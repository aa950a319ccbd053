"""One rule, one definition (issue 18.4): a copy of a rule or of a wire form fails here when it comes back.

- every Redis key is built in the store's keys modules (``store/*keys.py``), nowhere else;
- the rule sets' and the variants' wire form are spelled in ``engine/rules.py`` alone (and, for the web
  client, in its generated ``messages.js``);
- the ids' rules are ``wire/ids.py``'s; the client types no bound, id pattern, close code or variant letter
  by hand;
- every error code the server raises or the client tests is one of the wire's, every close code the
  server's protocol module's;
- the client's views take the server messages' types from the generated module.

``can_undo`` has its own test, which runs the client's game under Node against the engine
(``tests/browser/test_client_gamestate.py``).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

from golfrace.engine.errors import REFUSAL_CODES
from golfrace.store import account_keys, course_keys, friend_keys, keys, race_keys
from golfrace.wire import ids, protocol
from golfrace.wire.errors import ErrorCode
from golfrace.wire.messages import SERVER

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = [ROOT / "server" / name for name in ("golfrace", "golfrace_client", "golfrace_testkit")]
CLIENT = ROOT / "client_web" / "src"
GENERATED = CLIENT / "net" / "messages.js"
KEY_MODULES = (keys, account_keys, race_keys, friend_keys, course_keys)
KEY_FILES = {Path(str(m.__file__)).resolve() for m in KEY_MODULES}
KEY_SHAPE = re.compile(r"[a-z][a-z_-]*:(\{|[a-z_-]+:)")
"""How a key starts: a prefix and a hash tag (``race:{``), or two prefixes (``pool:i:``)."""
CLIENT_CODES = {"offline", "superseded", "passkey_unsupported", "passkey_cancelled"}
"""Codes the client makes itself: a request that never got an answer (session.js), a passkey this browser
cannot make or the person cancelled (views/account.js); each has its text in the catalogs."""


def python_files() -> Iterator[Path]:
    for top in PRODUCT:
        yield from sorted(top.rglob("*.py"))


def client_files() -> Iterator[Path]:
    for path in sorted(CLIENT.rglob("*.js")):
        if path != GENERATED:
            yield path


def code_lines(path: Path) -> Iterator[tuple[int, str]]:
    """A client file's lines that are code, not comments."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.lstrip().startswith(("//", "*", "/*")):
            yield n, line


@functools.cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


@functools.cache
def strings(path: Path) -> tuple[tuple[int, str], ...]:
    """The string literals of a Python file, docstrings left out; an f-string as its text with each
    replacement field as ``\\0``."""
    return tuple(_strings(parsed(path)))


def _strings(tree: ast.Module) -> Iterator[tuple[int, str]]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    skipped = set(docstrings)  # and the literal parts of f-strings, seen whole
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                skipped.add(id(value))
                parts.append(value.value if isinstance(value, ast.Constant) else "\0")
            yield node.lineno, "".join(str(p) for p in parts)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            yield node.lineno, node.value


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


def test_every_redis_key_is_built_in_the_store_keys_modules() -> None:
    fixed = {
        value
        for module in KEY_MODULES
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str) and ":" in value
    }
    assert {"golfrace:secret", "races:{live}", "pool:review"} <= fixed
    found = [
        f"{where(path, line)} {text!r}"
        for path in python_files()
        if path.resolve() not in KEY_FILES
        for line, text in strings(path)
        if KEY_SHAPE.match(text) or text in fixed
    ]
    assert not found, "build these keys in store/*keys.py:\n" + "\n".join(found)


def test_the_key_check_sees_a_key_built_elsewhere(tmp_path: Path) -> None:
    copy = tmp_path / "copy.py"
    copy.write_text(
        'def k(p):\n    """``race:{R}`` in a docstring is fine."""\n    return f"race:{{{p}}}:x"\n'
    )
    assert [text for _, text in strings(copy) if KEY_SHAPE.match(text)] == ["race:{\0}:x"]


def test_the_rule_sets_and_the_variants_are_spelled_once() -> None:
    rules_file = ROOT / "server" / "golfrace" / "engine" / "rules.py"
    found = [
        f"{where(path, line)} {text!r}"
        for path in python_files()
        if path != rules_file
        for line, text in strings(path)
        if text in ("easy", "classic", "empty_discard", "jokers")
    ]
    for path in python_files():
        if path == rules_file:
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "strict" for k in node.keys
            ):
                found.append(f"{where(path, node.lineno)} a variants map")
    spelled = re.compile(r"""["'`](easy|classic|empty_discard|jokers)["'`]""")
    found += [
        f"{where(path, n)} {line.strip()}"
        for path in client_files()
        for n, line in code_lines(path)
        if spelled.search(line)
    ]
    assert not found, "use engine.rules (RULES, Rules, Variants.wire/from_wire) or RULE/RULES:\n" + "\n".join(
        found
    )


def test_the_client_types_no_bound_id_or_close_code_by_hand() -> None:
    close = {v for k, v in vars(protocol).items() if k.startswith("CLOSE_") and v >= 4000}
    by_hand = re.compile(
        r"maxlength=|maxLength\s*=\s*\d|_MAX\s*=\s*\d|"
        + re.escape(ids.ID_ALPHABET)
        + r"|\b(?:"
        + "|".join(str(c) for c in sorted(close))
        + r")\b"
    )
    found = [
        f"{where(path, n)} {line.strip()}"
        for path in client_files()
        for n, line in code_lines(path)
        if by_hand.search(line)
    ]
    assert not found, "take these from messages.js (BOUNDS, IDS, CLOSE; data-bound):\n" + "\n".join(found)


def test_the_client_types_no_variant_letter_by_hand() -> None:
    """A game code's variant part (``-SJ1D``) is read with the engine's letters (CODES.variant_letters)."""
    by_hand = re.compile(r"\(S\?\)|S\?\(\?:J|J\(\[0-9\]\)|J\[1-|-S\?|D\?\)")
    found = [
        f"{where(path, n)} {line.strip()}"
        for path in client_files()
        for n, line in code_lines(path)
        if by_hand.search(line)
    ]
    assert not found, "build code patterns from messages.js (CODES.variant_letters):\n" + "\n".join(found)


def test_the_ids_rules_are_wire_ids() -> None:
    ids_file = Path(str(ids.__file__)).resolve()
    rules = (ids.ID_ALPHABET, ids.PLAYER_ID.pattern, ids.SID.pattern, ids.USERNAME.pattern)
    found = [
        f"{where(path, line)} {text!r}"
        for path in python_files()
        if path.resolve() != ids_file
        for line, text in strings(path)
        if any(rule in text for rule in rules)
    ]
    assert not found, "use golfrace.wire.ids:\n" + "\n".join(found)


def test_every_error_code_is_the_wires() -> None:
    codes = {c.value for c in ErrorCode}
    raised = re.compile(r"\b(?:Protocol|Race|Account|Friend|Course|Analysis|Pool)Error\(\s*\"([a-z_]+)\"")
    found = [
        f"{where(path, n)} {code}"
        for path in python_files()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        for code in raised.findall(line)
        if code not in codes
    ]
    tested = re.compile(r"\bcode\s*[!=]==?\s*\"([a-z_]+)\"|\bcode: \"([a-z_]+)\"")
    type_test = re.compile(r"\btypeof [\w.?]+\s*[!=]==?\s*\"[a-z]+\"")  # `typeof u.code === "string"`
    known = codes | set(REFUSAL_CODES) | CLIENT_CODES
    found += [
        f"{where(path, n)} {code}"
        for path in client_files()
        for n, line in code_lines(path)
        for pair in tested.findall(type_test.sub("", line))
        for code in pair
        if code and code not in known
    ]
    assert not found, "not an error code of wire/errors.py:\n" + "\n".join(found)


def test_close_codes_are_the_protocols() -> None:
    protocol_file = Path(str(protocol.__file__)).resolve()
    close = {v for k, v in vars(protocol).items() if k.startswith("CLOSE_") and v >= 4000}
    found = [
        where(path, node.lineno)
        for path in python_files()
        if path.resolve() != protocol_file
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value in close
    ]
    assert not found, "use the CLOSE_* constants of wire/protocol.py:\n" + "\n".join(found)


def test_the_views_take_the_server_messages_types_from_the_generated_module() -> None:
    text = GENERATED.read_text()
    for t in SERVER:
        assert f'@property {{"{t}"}} t' in text, t
    hand_written = re.compile(r"@typedef \{\{t: \"(" + "|".join(map(re.escape, SERVER)) + r")\"")
    found = [
        f"{where(path, n)} {line.strip()}"
        for path in client_files()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if hand_written.search(line) or re.search(r"@typedef \{\{t: \"(race|daily)\"\} &", line)
    ]
    assert not found, "import the message's typedef from messages.js:\n" + "\n".join(found)


def test_the_stock_count_has_one_name_on_the_wire() -> None:
    """A game's ``snapshot``/``diff`` and a race's progress and boards call the cards left in the stock
    ``stock_count`` (18.4: once ``stock`` in a race and ``stock_count`` in a game, and the client mapped one
    to the other)."""
    generated = GENERATED.read_text(encoding="utf-8")
    assert "stock_count: number" in generated
    assert re.search(r"\bstock\??: number", generated) is None
