"""The house's contracts that import-linter cannot state (``.importlinter`` states the rest)."""

from __future__ import annotations

import ast
import configparser
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"
INTERNALS = ("redis.asyncio.connection", "redis.asyncio.client", "redis._parsers", "redis.connection")
"""redis-py's modules below its public API: read and written only by ``golfrace/seams/``."""


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_only_seams_touch_redis_internals() -> None:
    offenders = {
        str(path.relative_to(SERVER)): sorted(m for m in _imports(path) if m.startswith(INTERNALS))
        for path in SERVER.rglob("*.py")
        if "seams" not in path.parts
    }
    assert {p: m for p, m in offenders.items() if m} == {}
    seams = {m for path in (SERVER / "golfrace" / "seams").glob("*.py") for m in _imports(path)}
    assert any(m.startswith(INTERNALS) for m in seams)  # the pattern still finds what seams import


def test_every_layer_folder_is_in_the_contract() -> None:
    """A new folder of the package is given its place in the house before it lands."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    layers = config["importlinter:contract:layers"]["layers"]
    named = {part.strip() for line in layers.splitlines() for part in line.split("|") if part.strip()}
    folders = {f"golfrace.{p.name}" for p in (SERVER / "golfrace").iterdir() if (p / "__init__.py").is_file()}
    modules = {f"golfrace.{p.stem}" for p in (SERVER / "golfrace").glob("*.py") if not p.stem.startswith("_")}
    assert folders | modules <= named, (folders | modules) - named


def test_the_forbidden_contracts_cover_every_layer() -> None:
    """Only seams may touch uvicorn: every other layer is a source of that contract; and the product's
    layers never import the client or the testkit (the terminal and the command line are clients)."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    layers = config["importlinter:contract:layers"]["layers"]
    named = {part.strip() for line in layers.splitlines() for part in line.split("|") if part.strip()}

    def sources(contract: str) -> set[str]:
        return set(config[f"importlinter:contract:{contract}"]["source_modules"].split())

    assert named - {"golfrace.seams"} <= sources("seams"), named - {"golfrace.seams"} - sources("seams")
    product = named - {"golfrace.seams", "golfrace.terminal", "golfrace.cli"}
    assert product <= sources("product"), product - sources("product")


def test_the_architecture_opens_with_the_contracts_layers() -> None:
    """docs/architecture.md's picture of the layers lists the layers of .importlinter, in its order."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    layers = config["importlinter:contract:layers"]["layers"]
    contract = [sorted(p.strip() for p in line.split("|")) for line in layers.splitlines() if line.strip()]
    text = (ROOT / "docs" / "architecture.md").read_text()
    picture = text.split("## The layers", 1)[1].split("```", 2)[1]
    drawn = [
        sorted(
            part.strip()
            for part in re.findall(r"golfrace\.\w+(?:\s*\|\s*golfrace\.\w+)*", line)[0].split("|")
        )
        for line in picture.splitlines()
        if line.startswith("golfrace.")
    ]
    assert drawn == contract


def test_the_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "0 broken" in run.stdout and " kept" in run.stdout
