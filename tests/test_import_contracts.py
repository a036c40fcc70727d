"""import-linter's contracts (pyproject.toml): the engine never imports Qt or the GUI, pages stay below the shell."""

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
