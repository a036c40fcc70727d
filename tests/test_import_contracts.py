"""import-linter's contracts (pyproject.toml): the engine never imports Qt or the GUI; the GUI's packages are layers
(one ``layers`` contract over ``gui``, exhaustive: every package and top-level module has its place), and its
headless modules need no Qt. The top of ``gui/`` stays small (issue 24: it was a drawer of 43 modules)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("importlinter") is None, reason="import-linter not installed")
def test_import_contracts_hold() -> None:
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports())"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_gui_keeps_at_most_twelve_modules_at_its_top() -> None:
    top = sorted(p.name for p in (REPO / "gui").glob("*.py"))
    assert len(top) <= 12, top
