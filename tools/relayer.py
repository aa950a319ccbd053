"""Rewrite imports of the flat ``golfrace.X`` modules to their layer (``golfrace.wire.X``, …).

The package was flat until the layers came (docs/architecture.md, ``.importlinter``). Code written against the
old names (a branch that forked before the move) is brought to the new ones by running this once from the
repository's root: ``python tools/relayer.py [PATH ...]`` (default: server, tests, bench, tools). It rewrites
``import``/``from … import`` statements (relative ones resolved from the file's place) and dotted names in
strings (``monkeypatch.setattr("golfrace.hub.X", …)``), and is idempotent: a name already moved is left alone.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

# old module -> new module; each old name is gone from the package, so a rewrite never meets a live name
MOVES: dict[str, str] = {
    # wire: what crosses the socket
    "golfrace.messages": "golfrace.wire.messages",
    "golfrace.protocol": "golfrace.wire.protocol",
    "golfrace.errors": "golfrace.wire.errors",
    "golfrace.views": "golfrace.wire.views",
    # settings: one injected tree, its extensions' subtrees and the environment parser
    "golfrace.config": "golfrace.settings.env",
    "golfrace.races.settings": "golfrace.settings.races",
    "golfrace.accounts.settings": "golfrace.settings.accounts",
    # store: Redis
    "golfrace.keys": "golfrace.store.keys",
    "golfrace.game_codec": "golfrace.store.game_codec",
    "golfrace.stored": "golfrace.store.stored_game",
    "golfrace.store": "golfrace.store.games",
    "golfrace.commit": "golfrace.store.commit",
    "golfrace.batcher": "golfrace.store.batcher",
    "golfrace.redis_conn": "golfrace.store.connection",
    "golfrace.redis_server": "golfrace.store.embedded",
    "golfrace.hub": "golfrace.store.pubsub",
    "golfrace.sharded_hub": "golfrace.store.sharded_pubsub",
    "golfrace.accounts.keys": "golfrace.store.account_keys",
    "golfrace.accounts.history": "golfrace.store.history",
    "golfrace.accounts.ranked": "golfrace.store.public_names",
    "golfrace.races.wire": "golfrace.races.extension",
    # live: connections and the core's handlers
    "golfrace.session": "golfrace.live.session",
    "golfrace.follow": "golfrace.live.follow_machine",
    "golfrace.followed": "golfrace.live.follow_state",
    "golfrace.writer": "golfrace.live.writer",
    "golfrace.dispatch": "golfrace.live.dispatch",
    "golfrace.lanes": "golfrace.live.ordering",
    "golfrace.limits": "golfrace.live.limits",
    "golfrace.metrics": "golfrace.live.metrics",
    "golfrace.handlers": "golfrace.live.handlers",
    "golfrace.moves": "golfrace.live.moves",
    "golfrace.hints": "golfrace.live.hints",
    "golfrace.context": "golfrace.live.services",
    "golfrace.tokens": "golfrace.live.tokens",
    # http
    "golfrace.app": "golfrace.http.app",
    # the public Python client and bot, apart from the server
    "golfrace.client": "golfrace_client.client",
    "golfrace.client_view": "golfrace_client.view",
    "golfrace.bot": "golfrace_client.bot",
    # what tests and benches start: servers, clusters, the balancer
    "golfrace.testing": "golfrace_testkit.servers",
    "golfrace.redis_cluster": "golfrace_testkit.cluster",
    "golfrace.balancer": "golfrace_testkit.balancer",
}
ROOTS = ("server", "tests", "bench", "tools")
ABSOLUTE = False  # --absolute: every relative import becomes absolute (before files move)


def _packages() -> set[str]:
    """The new packages, each of which may share its name with an old module (``golfrace.store``)."""
    return {new.rsplit(".", 1)[0] for new in MOVES.values()}


def _submodules(package: str) -> set[str]:
    """The new package's modules: the moved ones, and any other file or folder in it now."""
    moved = {new.rsplit(".", 1)[1] for new in MOVES.values() if new.rsplit(".", 1)[0] == package}
    folder = Path("server", *package.split("."))
    present = {p.stem for p in folder.glob("*.py")} | {p.name for p in folder.iterdir() if p.is_dir()}
    return moved | present if folder.is_dir() else moved


def new_name(module: str, names: tuple[str, ...] = ()) -> str | None:
    """Where an old dotted module now is, or None where it did not move (or has moved already)."""
    if module in MOVES:
        # an old module whose name is now a package's (``golfrace.store``): importing that package's own
        # submodules from it is the new form, anything else is the old module
        if module in _packages() and names and all(n in _submodules(module) for n in names):
            return None
        return MOVES[module]
    return None


def _module_of(path: Path) -> tuple[str, bool]:
    """The dotted module name of a file under server/, and whether it is a package's __init__."""
    parts = list(path.with_suffix("").parts)
    if "server" in parts:
        parts = parts[parts.index("server") + 1 :]
    is_init = parts[-1] == "__init__"
    if is_init:
        parts = parts[:-1]
    return ".".join(parts), is_init


def _resolve(path: Path, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    module, is_init = _module_of(path)
    base = module.split(".")
    if not is_init:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _alias(a: ast.alias) -> str:
    return a.name + (f" as {a.asname}" if a.asname else "")


def _rewrite_from(path: Path, node: ast.ImportFrom) -> list[str] | None:
    target = _resolve(path, node)
    if target is None or not target.startswith("golfrace"):
        return None
    names = tuple(a.name for a in node.names)
    moved = new_name(target, names)
    if moved is not None:
        return [f"from {moved} import {', '.join(_alias(a) for a in node.names)}"]
    # ``from golfrace import store, metrics``: the names are modules
    lines: list[str] = []
    kept: list[ast.alias] = []
    for a in node.names:
        sub = new_name(f"{target}.{a.name}")
        if sub is None:
            kept.append(a)
            continue
        package, leaf = sub.rsplit(".", 1)
        lines.append(
            f"from {package} import {leaf}"
            + (f" as {a.asname or a.name}" if leaf != (a.asname or a.name) else "")
        )
    if not lines:
        if ABSOLUTE and node.level:
            return [f"from {target} import {', '.join(_alias(a) for a in node.names)}"]
        return None
    if kept:
        prefix = target if ABSOLUTE else "." * node.level + (node.module or "")
        lines.insert(0, f"from {prefix} import {', '.join(_alias(a) for a in kept)}")
    return lines


def _rewrite_import(node: ast.Import) -> list[str] | None:
    out, changed = [], False
    for a in node.names:
        moved = new_name(a.name)
        if moved is None:
            out.append(f"import {_alias(a)}")
        else:
            changed = True
            out.append(f"import {moved}" + (f" as {a.asname}" if a.asname else ""))
    return out if changed else None


_DOTTED = re.compile(r"""(?<=["'])golfrace(?:\.[A-Za-z_][A-Za-z0-9_]*)+""")


def _rewrite_string_names(text: str) -> str:
    def sub(match: re.Match[str]) -> str:
        dotted = match.group(0)
        parts = dotted.split(".")
        for cut in range(len(parts), 1, -1):
            head, rest = ".".join(parts[:cut]), parts[cut:]
            if head in MOVES:
                moved = new_name(head, (rest[0],) if rest else ())
                return dotted if moved is None else ".".join([moved, *rest])
        return dotted

    return _DOTTED.sub(sub, text)


def rewrite(path: Path) -> bool:
    text = path.read_text()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, list[str], int]] = []
    for node in ast.walk(tree):
        new: list[str] | None = None
        if isinstance(node, ast.ImportFrom):
            new = _rewrite_from(path, node)
        elif isinstance(node, ast.Import):
            new = _rewrite_import(node)
        if new is not None and node.end_lineno is not None:
            edits.append((node.lineno - 1, node.end_lineno, new, node.col_offset))
    for start, end, new, col in sorted(edits, reverse=True):
        indent = " " * col
        lines[start:end] = [indent + line + "\n" for line in new]
    out = _rewrite_string_names("".join(lines))
    if out != text:
        path.write_text(out)
        return True
    return False


def main(argv: list[str]) -> int:
    global ABSOLUTE
    if "--absolute" in argv:
        ABSOLUTE = True
        argv = [a for a in argv if a != "--absolute"]
    roots = [Path(a) for a in argv] or [Path(r) for r in ROOTS if Path(r).exists()]
    files = [p for r in roots for p in ([r] if r.is_file() else sorted(r.rglob("*.py")))]
    changed = [p for p in files if p.name != "relayer.py" and rewrite(p)]
    for p in changed:
        print(f"rewrote {p}")
    print(f"{len(changed)} of {len(files)} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
