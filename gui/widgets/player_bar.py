"""The transport bar of a step player: first, previous, play/pause, next, last, speed and a step scrubber.

None of its controls takes keyboard focus: the page's keys (Left/Right, Space, Home/End) drive the player
like a presenter's clicker, and a focused button would swallow Space.

Signals: none (it drives a ``StepPlayer`` and follows its ``changed``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSlider, QStyle, QWidget

from gui.widgets.step_player import SPEEDS, StepPlayer


class PlayerBar(QWidget):
    """Buttons and a scrubber bound to one ``StepPlayer``."""

    def __init__(self, player: StepPlayer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._player = player
        icon = QStyle.StandardPixmap
        self.first = self._button(icon.SP_MediaSkipBackward, self.tr("First step (Home)"), player.first)
        self.previous = self._button(icon.SP_MediaSeekBackward, self.tr("Previous step (Left)"), player.previous)
        self.play = self._button(icon.SP_MediaPlay, self.tr("Play or pause (Space)"), player.toggle)
        self.next = self._button(icon.SP_MediaSeekForward, self.tr("Next step, animated (Right)"), player.next)
        self.last = self._button(icon.SP_MediaSkipForward, self.tr("Last step (End)"), player.last)
        self.speed = QComboBox(self)
        self.speed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.speed.setToolTip(self.tr("Animation speed"))
        self.speed.addItems([f"{s:g}×" for s in SPEEDS])
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.currentIndexChanged.connect(lambda i: player.set_speed(SPEEDS[i]))
        self.scrubber = QSlider(Qt.Orientation.Horizontal, self)
        self.scrubber.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scrubber.setRange(1, player.count)
        self.scrubber.setPageStep(1)
        self.scrubber.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.scrubber.setToolTip(self.tr("Go to a step"))
        self.scrubber.valueChanged.connect(lambda v: player.go(v - 1))
        self.position = QLabel(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.first, self.previous, self.play, self.next, self.last, self.speed):
            layout.addWidget(widget)
        layout.addWidget(self.scrubber, 1)
        layout.addWidget(self.position)
        player.changed.connect(self.sync)
        self.sync()

    def _button(self, icon: QStyle.StandardPixmap, tip: str, slot: Callable[[], None]) -> QPushButton:
        button = QPushButton(self.style().standardIcon(icon), "", self)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.clicked.connect(slot)
        return button

    def sync(self) -> None:
        """Show the player's state: step, playing, speed (no signal echoes back to the player)."""
        p = self._player
        with QSignalBlocker(self.scrubber):
            self.scrubber.setValue(p.index + 1)
        with QSignalBlocker(self.speed):
            self.speed.setCurrentIndex(SPEEDS.index(p.speed))
        pixmap = QStyle.StandardPixmap.SP_MediaPause if p.playing else QStyle.StandardPixmap.SP_MediaPlay
        self.play.setIcon(self.style().standardIcon(pixmap))
        self.position.setText(self.tr("Step {i} / {n}").format(i=p.index + 1, n=p.count))
        self.previous.setEnabled(p.index > 0)
        self.first.setEnabled(p.index > 0)
        self.next.setEnabled(p.index < p.count - 1)
        self.last.setEnabled(p.index < p.count - 1)
