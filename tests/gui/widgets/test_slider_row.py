"""gui.widgets.slider_row: side by side while the slider keeps its length, the spin box over it when narrow."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSlider, QSpinBox
from pytestqt.qtbot import QtBot

from gui.widgets.slider_row import MIN_SLIDER_LINES, SliderRow


def test_the_slider_never_shrinks_to_a_dot(qtbot: QtBot) -> None:
    """Issue 17: at 150-200% the memory page's sequence slider was a dot beside "4096 tokens"."""
    spin = QSpinBox()
    spin.setRange(1, 1_000_000)
    spin.setSuffix(" tokens")
    row = SliderRow(QSlider(Qt.Orientation.Horizontal), spin)
    qtbot.addWidget(row)
    line = row.fontMetrics().height()
    row.resize(round(30 * line), 40)
    row.show()
    assert not row.stacked()
    row.resize(spin.sizeHint().width() + 2 * line, 80)
    qtbot.waitUntil(row.stacked)
    assert row.minimumSizeHint().width() < spin.sizeHint().width() + MIN_SLIDER_LINES * line
    row.resize(round(30 * line), 40)
    qtbot.waitUntil(lambda: not row.stacked())
