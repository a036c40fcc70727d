"""gui.lessons.dock: the drawer loads nothing at start-up while it is closed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

PROBE = """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
window = MainWindow(Scenario())
print(sorted(m for m in sys.modules if m.startswith(("engine.lessons", "gui.lessons.panel"))))
"""


def test_a_closed_drawer_imports_no_lesson() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=120,
                         check=True)
    assert out.stdout.strip() == "[]"
