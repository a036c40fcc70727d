"""The baseline for ``bench/startup.py``: a bare PySide6 + pyqtgraph window with one plot, started the same way.

With ``VRAMLAB_STARTUP_PROBE`` holding the launch time, it prints ``startup_s=...`` and ``startup_cpu_s=...`` at its
window's first paint, then ``settled_s=...`` on the next event-loop turn (it defers nothing), and quits, as the app
does (``gui/shell/startup_probe.py``). It imports what any PySide6 + pyqtgraph app must and
nothing else, so the app's start-up over this one's is what the app itself adds.
"""

from __future__ import annotations

import os
import sys
import time

_IMPORTED_AT = time.time()

import pyqtgraph as pg  # noqa: E402  (after the import-time stamp, as the app's probe)
from PySide6.QtCore import QEvent, QObject, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QMainWindow  # noqa: E402


class _FirstPaint(QObject):
    """At the first paint of the window or of the plot (which covers it), print the times; quit on the next turn."""

    def __init__(self, started: float, window: QMainWindow, plot: pg.PlotWidget) -> None:
        super().__init__(window)
        self._started = started
        self._watched: tuple[QObject, ...] = (window, plot.viewport())
        for w in self._watched:
            w.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._watched:
            for w in self._watched:
                w.removeEventFilter(self)
            self._watched = ()
            sys.stdout.write(f"startup_s={time.time() - self._started:.4f}\nstartup_cpu_s={time.process_time():.4f}\n")
            sys.stdout.flush()
            QTimer.singleShot(0, self._settled)
        return False

    def _settled(self) -> None:
        sys.stdout.write(f"settled_s={time.time() - self._started:.4f}\n")
        sys.stdout.flush()
        QTimer.singleShot(0, QApplication.quit)


def main() -> int:
    try:
        started = float(os.environ.get("VRAMLAB_STARTUP_PROBE", ""))
    except ValueError:
        started = _IMPORTED_AT
    started = started if started > 1e9 else _IMPORTED_AT  # a Unix time, not a flag such as "1"
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    plot = pg.PlotWidget()
    plot.plot([1, 2, 3, 4], [1, 4, 2, 3])
    window.setCentralWidget(plot)
    window.resize(1280, 800)
    _FirstPaint(started, window, plot)
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
