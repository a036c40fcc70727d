"""The first window imports what the first page needs, nothing more (issue 17, "Start-up and speed, measured fairly").

``python -m gui`` runs in a subprocess with a fresh settings folder; at the window's first paint it lists the modules
loaded so far (the start-up probe, gui/shell/startup_probe.py, with its first-paint hook wrapped). Every module named
here is loaded later, when its page, dialog or feature is first used; bench/startup.py measures what that saves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: loaded after the first paint, when first used
NOT_BEFORE_FIRST_PAINT = (
    # other pages and their engines
    "gui.pages.attention", "gui.pages.levers", "gui.pages.alignment", "gui.pages.serving", "gui.pages.timeline",
    "engine.alignment", "engine.serving", "engine.attention",
    # the memory page's tabs behind the Overview (Host RAM, Layout planner) and its charts (pyqtgraph)
    "gui.pages.memory_host", "gui.pages.memory_planner", "engine.training.planner", "gui.widgets.plan_table",
    "gui.widgets.breakdown_chart", "gui.widgets.curve_plot", "pyqtgraph",
    # dialogs, exports, screenshots, the About box
    "gui.shell.screenshot", "gui.shell.about", "gui.widgets.import_report", "PySide6.QtSvg",
    # File > Import training config, dropped files' importers, snapshots, lessons, the timeline
    "engine.config_import", "gui.text.config_import_texts", "engine.hf_import", "engine.snapshot",
    "gui.files.snapshot_loader",
    "gui.lessons.panel", "engine.lessons", "gui.widgets.timeline_chart",
)

_DRIVER = """
import json, sys, time

order = []  # every module name, in the order it was first looked for


class Recorder:
    def find_spec(self, name, path=None, target=None):
        order.append(name)
        return None


sys.meta_path.insert(0, Recorder())
from gui.app import main
import gui.shell.startup_probe as probe

first_paint = probe.StartupProbe.eventFilter

def listing(self, watched, event):
    if event.type() == probe.QEvent.Type.Paint and not hasattr(probe, "_listed"):
        probe._listed = True
        import engine
        print("MODULES=" + json.dumps({"modules": sorted(sys.modules), "order": order,
                                       "version_read": "__version__" in vars(engine)}), flush=True)
    return first_paint(self, watched, event)

probe.StartupProbe.eventFilter = listing
sys.exit(main([]))
"""


@pytest.fixture(scope="module")
def first_paint(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "VRAMLAB_STARTUP_PROBE": "1",
           "VRAMLAB_SETTINGS_DIR": str(tmp_path_factory.mktemp("settings"))}
    result = subprocess.run([sys.executable, "-c", _DRIVER], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("MODULES="))
    found: dict[str, object] = json.loads(line.removeprefix("MODULES="))
    return found


@pytest.mark.parametrize("module", NOT_BEFORE_FIRST_PAINT)
def test_is_not_imported_before_the_first_paint(first_paint: dict[str, object], module: str) -> None:
    modules = first_paint["modules"]
    assert isinstance(modules, list)
    assert module not in modules


def test_the_first_page_is_there_at_the_first_paint(first_paint: dict[str, object]) -> None:
    """The probe saw the memory page and its engine: the list is the first window's, not an empty start."""
    modules = first_paint["modules"]
    assert isinstance(modules, list)
    assert {"gui.pages.memory", "engine.training.estimate", "gui.shell.main_window"} <= set(modules)


def test_the_package_version_is_not_read_before_the_first_paint(first_paint: dict[str, object]) -> None:
    """``engine.__version__`` scans the installed packages' metadata: read for --version and the About box only.
    (``importlib.metadata`` itself is loaded by pydantic, whose plugin loader imports it with the first model.)"""
    assert first_paint["version_read"] is False


def test_the_engine_loads_before_pyside6(first_paint: dict[str, object]) -> None:
    """numpy, pydantic and the engine's modules that the first page uses are imported before PySide6 (gui/app.py):
    PySide6's import hook reads the source of every module imported after it, 0.07 s of CPU at start-up for these."""
    order = first_paint["order"]
    assert isinstance(order, list)
    after = order[order.index("PySide6"):]
    late = sorted({m for m in after if m.split(".")[0] in ("engine", "numpy", "pydantic", "pydantic_core")})
    assert late == [], f"imported after PySide6 before the first paint: {late}; import them first in gui/app.py"
