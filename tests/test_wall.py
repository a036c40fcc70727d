"""The wall: the engine imports and computes with PySide6, shiboken6, pyqtgraph and gui made unimportable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import importlib.abc, importlib.util, sys

BLOCKED = ("PySide6", "shiboken6", "pyqtgraph", "gui")

class Wall(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"the wall: {name} is not importable here")
        return None

sys.meta_path.insert(0, Wall())
for name in BLOCKED:
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        raise SystemExit(f"the wall leaks: {name} imported")

import engine
from engine.catalog import get_gpu, get_model, models
from engine.params import count_params
from engine.specs import TrainingSetup

assert count_params(get_model("llama-2-7b")).total == 6_738_415_616
assert len(models()) > 5
if importlib.util.find_spec("engine.training") is not None:
    import engine.training as training
    estimate = getattr(training, "estimate", None)
    if estimate is not None:
        result = estimate(get_model("llama-2-7b"), TrainingSetup(), get_gpu("a100-80gb"))
        print("estimate:", type(result).__name__)
from engine.lessons import lessons  # lesson files are read as engine package data, not through gui.resources
first = lessons()[0]
assert not first.check(first.start_situation()).passed
leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
assert not leaked, leaked
print("engine ok without Qt")
"""


def test_engine_runs_without_qt_or_gui() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "engine ok without Qt" in result.stdout
