"""Run a callback at most once per event-loop turn, however many times it was asked for.

A slider drag or a held arrow key fires dozens of change signals; a page that recomputes on each would queue
stale work. ``Coalescer.schedule()`` starts a 0-ms single-shot timer unless one is already pending, and the
callback then reads the newest state, so only the latest request is ever served.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


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


class Debounce(Coalescer):
    """Like ``Coalescer``, but the call waits until requests have stopped for ``quiet_ms``: a drag's storm of
    requests is served once, right after it pauses or ends. For views too costly to repaint on every frame.

    Signals: none.
    """

    def __init__(self, callback: Callable[[], None], quiet_ms: int, parent: QObject | None = None) -> None:
        super().__init__(callback, parent)
        self._timer.setInterval(quiet_ms)

    def schedule(self) -> None:
        self._timer.start()  # (re)start: the call moves past every new request
