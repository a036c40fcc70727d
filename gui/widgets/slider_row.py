"""A slider and its spin box on one row, or the spin box over the slider when the row is too narrow for both.

A settings column has a fixed share of the window: at a presentation's type scale the spin box ("4096 tokens")
grows and the slider beside it shrinks to a dot. ``SliderRow`` keeps the slider at least ``MIN_SLIDER_LINES``
lines of its text long by stacking the two when side by side it would be shorter.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QAbstractSpinBox, QBoxLayout, QLayout, QSlider, QWidget

MIN_SLIDER_LINES = 5.0


class SliderRow(QWidget):
    """``slider`` (3 parts of the width) and ``spin`` (1 part) side by side, stacked when narrow.

    Signals: none (the slider's and the spin box's own).
    """

    def __init__(self, slider: QSlider, spin: QAbstractSpinBox, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.slider, self.spin = slider, spin
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # its least width: minimumSizeHint
        self._box.addWidget(slider, 3)
        self._box.addWidget(spin, 1)

    def stacked(self) -> bool:
        """Whether the spin box sits over the slider now."""
        return self._box.direction() == QBoxLayout.Direction.TopToBottom

    def minimumSizeHint(self) -> QSize:
        """Narrow enough to stack: the wider of the two, not their sum."""
        hint = super().minimumSizeHint()
        return QSize(max(self.spin.minimumSizeHint().width(), self._slider_min()), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        side_by_side = event.size().width() - self.spin.sizeHint().width() - self._box.spacing() >= self._slider_min()
        wanted = QBoxLayout.Direction.LeftToRight if side_by_side else QBoxLayout.Direction.TopToBottom
        if self._box.direction() != wanted:
            self._box.setDirection(wanted)

    def _slider_min(self) -> int:
        return round(MIN_SLIDER_LINES * self.fontMetrics().height())
