"""Plays a sequence of steps like a slide deck with builds: each step animates in, then holds, then the next.

The player only keeps time. It emits ``frame(index, progress)`` about sixty times a second while a step
builds (``QVariantAnimation`` on Qt's unified animation timer) and once when a step is shown whole; what a
step looks like at a given progress is the view's business. It never blocks the event loop, and ``stop``
halts every timer (call it when the page is hidden or closed).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, QVariantAnimation, Signal

SPEEDS = (0.5, 1.0, 2.0, 4.0)
HOLD_MS = 1_200  # how long a built step stays before the next one, at speed 1


class StepPlayer(QObject):
    """Steps ``0 .. count-1``; ``build_ms(index)`` says how long a step takes to build at speed 1.

    Signals:
        frame(int, float): the step now shown and how far it is built (0 to 1; 1 is whole).
        changed(): the step, playing state or speed changed (for the buttons and the scrubber).
    """

    frame = Signal(int, float)
    changed = Signal()

    def __init__(self, count: int, build_ms: Callable[[int], int], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._count, self._build_ms = count, build_ms
        self._index, self._playing, self._speed = 0, False, 1.0
        self._anim = QVariantAnimation(self)
        self._anim.setStartValue(0.0)
        self._anim.setEndValue(1.0)
        self._anim.valueChanged.connect(lambda v: self.frame.emit(self._index, float(v)))
        self._anim.finished.connect(self._on_built)
        self._hold = QTimer(self)
        self._hold.setSingleShot(True)
        self._hold.timeout.connect(self._advance)

    @property
    def index(self) -> int:
        return self._index

    @property
    def count(self) -> int:
        return self._count

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def speed(self) -> float:
        return self._speed

    def is_building(self) -> bool:
        return self._anim.state() is not QVariantAnimation.State.Stopped

    def go(self, index: int, build: bool = False) -> None:
        """Show step ``index`` (clamped): whole, or building from nothing when ``build``."""
        self._anim.stop()
        self._hold.stop()
        self._index = min(max(index, 0), self._count - 1)
        if build:
            self._anim.setDuration(max(1, int(self._build_ms(self._index) / self._speed)))
            self._anim.start()
        else:
            self.frame.emit(self._index, 1.0)
            self._playing = False
        self.changed.emit()

    def next(self) -> None:
        """The next step, built in front of you (a presenter's clicker)."""
        if self._index < self._count - 1:
            self.go(self._index + 1, build=True)

    def previous(self) -> None:
        self.go(self._index - 1)

    def first(self) -> None:
        self.go(0)

    def last(self) -> None:
        self.go(self._count - 1)

    def toggle(self) -> None:
        """Play from here (from the start when at the end), or pause."""
        if self._playing:
            self.pause()
            return
        self._playing = True
        if self._anim.state() is QVariantAnimation.State.Paused:
            self._anim.resume()
            self.changed.emit()
        elif self._anim.state() is QVariantAnimation.State.Running:
            self.changed.emit()  # a build under way: play on from its end
        elif self._index == self._count - 1:
            self.go(0, build=True)
        else:
            self.go(self._index + 1, build=True)

    def pause(self) -> None:
        self._playing = False
        if self._anim.state() is QVariantAnimation.State.Running:
            self._anim.pause()
        self._hold.stop()
        self.changed.emit()

    def stop(self) -> None:
        """Halt every timer and show the current step whole (page hidden or closed)."""
        was_busy = self.is_building() or self._hold.isActive()
        self._playing = False
        self._anim.stop()
        self._hold.stop()
        if was_busy:
            self.frame.emit(self._index, 1.0)
        self.changed.emit()

    def set_speed(self, speed: float) -> None:
        """Change speed; a step building now keeps its place and finishes at the new pace."""
        done = self._anim.currentTime() / max(1, self._anim.duration())
        self._speed = speed
        if self.is_building():
            self._anim.setDuration(max(1, int(self._build_ms(self._index) / speed)))
            self._anim.setCurrentTime(int(done * self._anim.duration()))
        self.changed.emit()

    def _on_built(self) -> None:
        if self._playing and self._index < self._count - 1:
            self._hold.start(int(HOLD_MS / self._speed))
        elif self._playing:
            self._playing = False
            self.changed.emit()

    def _advance(self) -> None:
        self.go(self._index + 1, build=True)
