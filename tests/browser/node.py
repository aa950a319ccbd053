"""The web client's modules run under Node, for the tests that hold them to the engine's rules: a script
that imports a module of ``client_web/src`` reads its JSON input on stdin and writes its JSON answer."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from .conftest import REPO


def node_json(script: str, data: Any = None, timeout: float = 60, flags: tuple[str, ...] = ()) -> Any:
    """What ``script`` (run by ``node -e`` in ``client_web/``, given ``data`` as JSON on stdin) writes, read
    as JSON; ``flags`` go to node before ``-e`` (``--input-type=module``). Without Node the test is skipped
    (a failure in CI: tests/skips_in_ci.py)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    out = subprocess.run(
        [node, *flags, "-e", script],
        input=None if data is None else json.dumps(data),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO / "client_web",
        timeout=timeout,
    )
    return json.loads(out.stdout)
