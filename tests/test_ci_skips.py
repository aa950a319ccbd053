"""A test that CI skips fails CI (tests/skips_in_ci.py): a small suite under the hooks, in CI and outside."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SUITE = """
import pytest

def test_runs() -> None:
    assert 1 + 1 == 2

def test_skips() -> None:
    pytest.skip("no such tool here")

@pytest.mark.skipif(True, reason="never on this machine")
def test_marked() -> None:
    assert False
"""

MODULE_SKIP = """
import pytest

pytest.importorskip("no_such_module_golfrace")
"""


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(
        "from tests.skips_in_ci import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401\n"
    )
    (tmp_path / "test_suite.py").write_text(SUITE)
    (tmp_path / "test_module_skip.py").write_text(MODULE_SKIP)
    env = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("PYTEST")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the hooks alone: quick
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA",
         "--continue-on-collection-errors", "."],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_a_skip_fails_in_ci(tmp_path: Path) -> None:
    run = _run(tmp_path, "true")
    assert run.returncode == 1, run.stdout
    assert "1 passed" in run.stdout, run.stdout
    assert "skipped" not in run.stdout.splitlines()[-1], run.stdout
    assert "FAILED test_suite.py::test_skips" in run.stdout, run.stdout
    assert "ERROR test_suite.py::test_marked" in run.stdout, run.stdout  # a skip mark: in the setup
    assert "ERROR test_module_skip.py" in run.stdout, run.stdout  # a whole module skipped while collected
    assert "no such tool here" in run.stdout, run.stdout  # the reason is told


def test_a_skip_is_a_skip_outside_ci(tmp_path: Path) -> None:
    run = _run(tmp_path, None)
    assert run.returncode == 0, run.stdout
    assert "1 passed, 3 skipped" in run.stdout, run.stdout
