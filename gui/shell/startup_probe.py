"""Start-up measurement for ``bench/startup.py``: with ``VRAMLAB_STARTUP_PROBE`` set, the app prints the seconds
from launch to the first paint of its window (``startup_s=0.612``) and the process's CPU time by then
(``startup_cpu_s=0.540``); then, once what the first paint did not wait for is built and drawn into too (every
``gui.widgets.lazy_tab.LazyView`` on screen: the memory page's charts), the seconds from launch to then
(``settled_s=0.801``), and quits.

The variable holds the launch time (``time.time()`` taken by the caller just before it starts the process);
any other value (such as ``1``) measures from the moment this module was imported.
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

from gui.widgets.lazy_tab import LazyView

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
    """Event filter on the main window: at its first paint, print the elapsed and CPU times; once every lazy view
    on screen is built, print the elapsed time again and quit the app.

    Signals: none.
    """

    def __init__(self, started: float, parent: QObject) -> None:
        super().__init__(parent)
        self._started = started
        parent.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            _say(f"startup_s={time.time() - self._started:.4f}\nstartup_cpu_s={time.process_time():.4f}\n")
            QTimer.singleShot(0, self, lambda: self._settle(watched))
        return False

    def _settle(self, window: QObject) -> None:
        """Wait, a turn at a time, until no lazy view on screen is still to be built (they build the turn after
        their first paint); then print and quit."""
        waiting = [v for v in window.findChildren(LazyView) if not v.built and _on_screen(v)]
        if waiting:
            QTimer.singleShot(0, self, lambda: self._settle(window))
            return
        _say(f"settled_s={time.time() - self._started:.4f}\n")
        QTimer.singleShot(0, QCoreApplication.quit)


def _on_screen(widget: QWidget) -> bool:
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


def _say(lines: str) -> None:
    sys.stdout.write(lines)
    sys.stdout.flush()
