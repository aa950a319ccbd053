"""The web client's folders are layers, as the server's are (docs/client.md, "Layout of ``src/``"): a module
imports only from its own folder and the folders below it, and ``game/`` (pure) only the generated wire
module of ``net/``. The import-linter contract's counterpart for ``client_web/src``."""

from __future__ import annotations

import os
import re
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[1] / "client_web" / "src"
LAYERS = ("net", "game", "ui", "features", "views")
"""Bottom first: a folder may import the ones before it."""
TOP = {"main.js", "sw.js", "sw-build.d.ts"}
"""The entry points at the top of ``src/``: the shell may import every folder."""
PURE_ALLOWED = {"net/messages.js"}
"""What ``game/`` may take from ``net/``: the wire's definitions, no socket and no storage."""
IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}/[^"']+)["']""")


def imports(module: Path) -> list[str]:
    """The ``src``-relative paths ``module`` imports (static, dynamic and JSDoc type imports); the engine's
    catalogs, data bundled from outside ``src``, are no module of the client."""
    out = []
    for match in IMPORT.finditer(module.read_text(encoding="utf-8")):
        target = Path(os.path.normpath(module.parent / match.group(1)))
        if target.is_relative_to(CLIENT):
            out.append(target.relative_to(CLIENT).as_posix())
    return out


def layer_of(path: str) -> str:
    return path.split("/", 1)[0] if "/" in path else "top"


def test_every_module_of_the_client_sits_in_a_layer() -> None:
    loose = [
        p.relative_to(CLIENT).as_posix()
        for p in CLIENT.rglob("*.js")
        if layer_of(p.relative_to(CLIENT).as_posix()) not in LAYERS and p.name not in TOP
    ]
    assert not loose, f"put these in one of {LAYERS}: {loose}"


def test_the_client_imports_point_down() -> None:
    upward = []
    for module in sorted(CLIENT.rglob("*.js")):
        here = module.relative_to(CLIENT).as_posix()
        mine = layer_of(here)
        if mine == "top":
            continue
        for target in imports(module):
            theirs = layer_of(target)
            if theirs == "top" or LAYERS.index(theirs) > LAYERS.index(mine):
                upward.append(f"{here} -> {target}")
            elif mine == "game" and theirs == "net" and target not in PURE_ALLOWED:
                upward.append(f"{here} -> {target} (game/ is pure)")
    assert not upward, "imports that run up a layer:\n" + "\n".join(upward)


def test_the_layer_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The pattern finds static, dynamic and JSDoc type imports (a check that saw none would always pass)."""
    module = CLIENT / "game" / "codes.js"
    found = imports(module)
    assert "net/messages.js" in found
    sample = tmp_path / "x.js"
    sample.write_text(
        'import { a } from "./a.js";\nconst m = import("../b.js");\n/** @type {import("./c.js").T} */\n'
    )
    assert {m.group(1) for m in IMPORT.finditer(sample.read_text())} == {"./a.js", "../b.js", "./c.js"}
