"""The client's pure modules agree with the engine: the code check (client_web/src/codes.js) against
GameCode.parse, run by Node on the same inputs. Needs only `node`."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from golfrace.engine import GameCode
from golfrace.engine.errors import CodeError

from .conftest import REPO

FIXED = [
    "GO1-E-AAAAAAB",
    "go1-n-aaaaaab",
    " GO1-C-ZZZZZZZ ",
    "GO1-E-AAAAAAB-S",
    "GO1-E-AAAAAAB-SJ2D",
    "GO1-E-AAAAAAB-J3",
    "GO1-E-AAAAAAB-DS",
    "GO1-E-AAAAAAB-",
    "GO1-X-AAAAAAB",
    "GO2-E-AAAAAAB",
    "GO1-E-AAAA",
    "GO1-E-AAAA1AB",
    "GO1-E",
    "",
    "GO1-E-AAAAAAB-S-D",
    "GO1-C-ABCDEFG-J1",
]


def inputs() -> list[str]:
    rng = random.Random(6)
    alphabet = "GO1ECNSJD-AZ23 x"
    fuzz = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 18))) for _ in range(300)]
    mutated = []
    for _ in range(300):
        text = list(rng.choice(FIXED[:5]))
        if text:
            text[rng.randrange(len(text))] = rng.choice(alphabet)
        mutated.append("".join(text))
    return FIXED + fuzz + mutated


def test_code_check_mirrors_the_engine() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    texts = inputs()
    script = (
        "import('./src/codes.js').then(m => {"
        "const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map(t => m.checkCode(t))));})"
    )
    out = subprocess.run(
        [node, "-e", script],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO / "client_web",
        timeout=30,
    )
    for text, got in zip(texts, json.loads(out.stdout), strict=True):
        try:
            code = GameCode.parse(text)
        except CodeError as exc:
            assert got == {"ok": False, "part": exc.part}, text
        else:
            assert got == {"ok": True, "code": str(code), "rules": code.rules.value}, text
