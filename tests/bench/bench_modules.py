"""Modules of bench/ (a folder of scripts, not a package) for the bench's smoke tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py``, loaded from its file; bench/ is on the path, as when its scripts run, for the
    modules they share (bench_player.py)."""
    if str(BENCH) not in sys.path:
        sys.path.append(str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
