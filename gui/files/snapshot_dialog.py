"""Asking for a PyTorch memory snapshot to open: the file dialog that File > Open PyTorch snapshot… and the
Timeline page's own Open button both show, starting in the folder last used (``gui.settings``).

Light on purpose: the main window imports it at start-up (through ``gui.actions.snapshot_open``); the snapshot
reader (``gui.files.snapshot_loader``) loads only when a file is read.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from gui.settings import LAST_FOLDER_KEY, settings


def ask_path(parent: QWidget) -> Path | None:
    """Ask for a snapshot file (``None``: the user changed their mind); remembers the folder."""
    folder = str(settings().value(LAST_FOLDER_KEY, str(Path.home())))
    kinds = QCoreApplication.translate("SnapshotOpen", "PyTorch memory snapshots")
    every = QCoreApplication.translate("SnapshotOpen", "All files")
    name, _ = QFileDialog.getOpenFileName(
        parent, QCoreApplication.translate("SnapshotOpen", "Open PyTorch snapshot"), folder,
        f"{kinds} (*.pickle *.pkl *.json *.gz);;{every} (*)")
    if not name:
        return None
    settings().setValue(LAST_FOLDER_KEY, str(Path(name).parent))
    return Path(name)
