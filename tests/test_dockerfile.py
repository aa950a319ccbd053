"""Docker cannot run here, so check that the image's client stage has every input the client build reads."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _client_stage() -> str:
    text = (ROOT / "Dockerfile").read_text()
    return text[text.index("AS client") : text.index("FROM python")]


def test_client_stage_copies_what_the_build_reads() -> None:
    build = (ROOT / "client_web" / "build.mjs").read_text()
    sources = "\n".join(p.read_text() for p in (ROOT / "client_web" / "src").rglob("*.js"))
    stage = _client_stage()
    assert 'join(here, "..", "docs")' in build and "COPY docs/ docs/" in stage
    imports = set(re.findall(r'from "((?:\.\./)+server/[^"]+)"', sources))
    assert imports, "the client is expected to bundle the engine catalogs"
    for path in imports:
        folder = path.lstrip("./").rsplit("/", 1)[0] + "/"
        assert f"COPY {folder} {folder}" in stage, folder
    assert "npm ci" in stage and "npm run --silent build" in stage


def test_dockerignore_keeps_local_builds_out() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for entry in (".venv", "client_web/node_modules", "client_web/dist", "var"):
        assert entry in ignored
