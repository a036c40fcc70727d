"""gui.widgets.term_bars: stacked segments in the unit shown, touched terms opaque, the others faded."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.units import GIB, Unit
from gui.widgets.term_bars import FADED_ALPHA, BarRow, TermBars


def test_segments_stack_in_order_and_fade_untouched_terms(qtbot: QtBot) -> None:
    bars = TermBars()
    qtbot.addWidget(bars)
    rows = [BarRow("weights", 2 * GIB, 2 * GIB, False), BarRow("activations", 6 * GIB, GIB, True)]
    bars.set_rows(rows, Unit.GIB, ("off", "on"))
    assert bars.segments() == {"weights": (2.0, 2.0), "activations": (6.0, 1.0)}
    act = bars._items["activations"].opts
    assert list(act["y0"]) == [2.0, 2.0]  # stacked on the weights
    assert act["brush"].alpha() == 255
    assert bars._items["weights"].opts["brush"].alpha() == FADED_ALPHA
    assert list(bars._items["logits"].opts["height"]) == [0.0, 0.0]
    ticks = bars.getAxis("bottom")._tickLevels
    assert ticks == [[(0, "off"), (1, "on")]]


def test_tick_labels_have_room_at_a_presentations_type_size(qtbot: QtBot, qapp: QApplication) -> None:
    font = qapp.font()
    large = qapp.font()
    large.setPointSizeF(font.pointSizeF() * 2)
    qapp.setFont(large)
    try:
        bars = TermBars()
        qtbot.addWidget(bars)
        metrics = QFontMetrics(large)
        assert bars.getAxis("left").style["tickTextWidth"] >= metrics.horizontalAdvance("6000")
        assert bars.getAxis("bottom").style["tickTextHeight"] >= metrics.height()
        assert not bars.getAxis("bottom").style["autoExpandTextSpace"]  # sized before the first paint
    finally:
        qapp.setFont(font)
