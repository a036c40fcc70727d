"""Two block maps side by side, animated: the same requests reserved at the maximum length, and paged.

A ``QTimer`` advances both of the engine's simulations (``engine.serving.simulate``) a few steps per tick and
shows the newest frame of each, with the waste counted so far. The timer runs only while playing and visible:
hiding or closing the widget pauses it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QHideEvent
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from engine.serving import Allocation, Frame, PoolSpec, Request
from gui.widgets.paging_lane import Lane

TICK_MS = 33
SPEEDS = (1, 2, 4, 8, 16, 32, 64)  # decoding steps per tick
SPEED_LINES = 6.0  # the speed slider's length in lines of text


class PagingPlayer(QWidget):
    """Play, pause and reset the paged-allocation simulation for a fixed request stream.

    Signals:
        advanced(): new frames are shown.
        finished(): both simulations ran to the end (the timer stopped).
    """

    advanced = Signal()
    finished = Signal()

    def __init__(self, requests: tuple[Request, ...], pool: PoolSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._requests, self._pool = requests, pool
        self._lanes = {a: Lane(a, pool, self) for a in Allocation}
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self.play_button = QPushButton(self)
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._on_play_toggled)
        self._on_play_toggled(False)
        self.reset_button = QPushButton(self.tr("Reset"), self)
        self.reset_button.clicked.connect(self.reset)
        self.speed = QSlider(Qt.Orientation.Horizontal, self)
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setValue(3)
        self.speed.setObjectName("pagingSpeed")
        self.speed.setMinimumWidth(round(SPEED_LINES * self.fontMetrics().height()))  # grows with the type
        self.speed_label = QLabel(self)
        self.speed.valueChanged.connect(self._show_speed)
        self._layout()
        self.reset()

    def _layout(self) -> None:
        controls = QHBoxLayout()
        widgets: list[QWidget] = [self.play_button, self.reset_button, QLabel(self.tr("Speed"), self), self.speed]
        for w in [*widgets, self.speed_label]:
            controls.addWidget(w)
        controls.addStretch(1)
        grid = QGridLayout()
        for col, lane in enumerate(self._lanes.values()):
            column: list[QWidget] = [lane.title, lane.map, lane.waste, lane.status]
            for row, w in enumerate(column):
                grid.addWidget(w, row, col)
        legend = QLabel(self.tr("Solid: slots holding tokens · pale: reserved but empty · outlined: free. "
                                "Each colour is one request."), self)
        legend.setWordWrap(True)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(controls)
        outer.addLayout(grid)
        outer.addWidget(legend)

    def lane_frame(self, allocation: Allocation) -> Frame | None:
        """The frame now shown for ``allocation`` (None before the first step)."""
        return self._lanes[allocation].frame

    def is_playing(self) -> bool:
        return self._timer.isActive()

    def set_requests(self, requests: tuple[Request, ...]) -> None:
        """Replace the request stream (e.g. a new seed) and start over."""
        self._requests = requests
        self.reset()

    def reset(self) -> None:
        """Back to step 0 with the same requests, paused."""
        self.pause()
        for lane in self._lanes.values():
            lane.restart(self._requests, self._pool)
        self.step(1)

    def play(self) -> None:
        self.play_button.setChecked(True)

    def pause(self) -> None:
        self.play_button.setChecked(False)

    def step(self, steps: int) -> None:
        """Advance both simulations ``steps`` decoding steps and show them."""
        for lane in self._lanes.values():
            lane.advance(steps)
        self._show()
        self.advanced.emit()
        if all(lane.done for lane in self._lanes.values()):
            self.pause()
            self.finished.emit()

    def _tick(self) -> None:
        self.step(SPEEDS[self.speed.value()])

    def _on_play_toggled(self, playing: bool) -> None:
        if playing:
            self._timer.start()
        else:
            self._timer.stop()
        self.play_button.setText(self.tr("Pause") if playing else self.tr("Play"))

    def _show_speed(self) -> None:
        self.speed_label.setText(self.tr("{n} steps per tick").format(n=SPEEDS[self.speed.value()]))

    def _show(self) -> None:
        self._show_speed()
        for lane in self._lanes.values():
            self._show_lane(lane)

    def _show_lane(self, lane: Lane) -> None:
        contiguous = lane.allocation is Allocation.CONTIGUOUS
        lane.title.setText(
            self.tr("Reserved at the maximum length ({n:,} tokens)").format(n=self._pool.max_len)
            if contiguous else self.tr("Paged: blocks of {n} tokens").format(n=self._pool.block_size)
        )
        f = lane.frame
        if f is None:
            return
        lane.map.show_frame(f.owner, f.fill, self._pool.block_size)
        now = 1 - f.used / f.reserved if f.reserved else 0.0
        lane.waste.setText(self.tr("Wasted so far: {total:.1%} (now {now:.1%})").format(total=f.waste, now=now))
        lane.status.setText(self.tr("Step {step:,} · running {r} · waiting {w} · finished {d} of {n}").format(
            step=f.step, r=f.running, w=f.waiting, d=lane.finished, n=len(self._requests)))

    def hideEvent(self, event: QHideEvent) -> None:
        self.pause()
        super().hideEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.pause()
        super().closeEvent(event)
