"""Start-up measurement for ``bench/startup.py``: with ``VRAMLAB_STARTUP_PROBE`` set, the app prints the seconds
from launch to the first paint of its window (``startup_s=0.612``) and quits.

The variable holds the launch time (``time.time()`` taken by the caller just before it starts the process);
any other value (such as ``1``) measures from the moment this module was imported.
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer

PROBE_ENV = "VRAMLAB_STARTUP_PROBE"
_IMPORTED_AT = time.time()


def launch_time() -> float | None:
    """The launch time the probe measures from, or ``None`` when no probe was asked for."""
    value = os.environ.get(PROBE_ENV)
    if not value:
        return None
    try:
        stamp = float(value)
    except ValueError:
        return _IMPORTED_AT
    return stamp if stamp > 1e9 else _IMPORTED_AT  # a Unix time, not a flag such as "1"


class StartupProbe(QObject):
    """Event filter on the main window: at its first paint, print the elapsed time and quit the app."""

    def __init__(self, started: float, parent: QObject) -> None:
        super().__init__(parent)
        self._started = started
        parent.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            sys.stdout.write(f"startup_s={time.time() - self._started:.4f}\n")
            sys.stdout.flush()
            QTimer.singleShot(0, QCoreApplication.quit)
        return False
