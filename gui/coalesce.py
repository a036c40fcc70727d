"""Run a callback at most once per event-loop turn, however many times it was asked for.

A slider drag or a held arrow key fires dozens of change signals; a page that recomputes on each would queue
stale work. ``Coalescer.schedule()`` starts a 0-ms single-shot timer unless one is already pending, and the
callback then reads the newest state, so only the latest request is ever served.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer


class Coalescer(QObject):
    """Coalesces many ``schedule()`` calls into one ``callback()`` on the next event-loop turn.

    Signals: none (it owns a single-shot ``QTimer`` child, stopped when it runs or is cancelled).
    """

    def __init__(self, callback: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._callback = callback
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._callback)

    def schedule(self) -> None:
        """Ask for one call on the next event-loop turn (no-op if one is already pending)."""
        if not self._timer.isActive():
            self._timer.start()

    def pending(self) -> bool:
        return self._timer.isActive()

    def flush(self) -> None:
        """Run the pending call now (no-op if none is pending)."""
        if self._timer.isActive():
            self._timer.stop()
            self._callback()

    def cancel(self) -> None:
        self._timer.stop()


class Throttle(Coalescer):
    """Like ``Coalescer``, but at most one call per ``interval_ms``: the first request after a quiet spell
    runs on the next event-loop turn, requests during a storm run at most every ``interval_ms``, and the
    last request of a storm is always served. For views too costly to repaint on every frame of a drag.

    Signals: none.
    """

    def __init__(self, callback: Callable[[], None], interval_ms: int, parent: QObject | None = None) -> None:
        super().__init__(self._run, parent)
        self._target = callback
        self._interval = interval_ms
        self._clock = QElapsedTimer()

    def schedule(self) -> None:
        if self._timer.isActive():
            return
        since = self._clock.elapsed() if self._clock.isValid() else self._interval
        self._timer.setInterval(max(0, self._interval - since))
        self._timer.start()

    def _run(self) -> None:
        self._clock.start()
        self._target()
