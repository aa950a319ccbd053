"""No server function is over 60 lines (issue 18.6): a longer one is split into parts that each say what they
do. Counted from the ``def`` line to the last line of the body, docstring and comments included."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"
MAX_LINES = 60


def long_functions(root: Path, limit: int = MAX_LINES) -> list[str]:
    """``path:line name (n lines)`` of every function or method under ``root`` longer than ``limit``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_server_function_is_over_60_lines() -> None:
    assert long_functions(SERVER) == []


def test_the_count_finds_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(60))
    (tmp_path / "long.py").write_text(f"def short():\n    return 1\n\n\nasync def long():\n{body}\n")
    assert [entry.partition(" ")[2] for entry in long_functions(tmp_path)] == ["long (61 lines)"]
