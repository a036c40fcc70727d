"""gui.visual_audit.run: the audit catches each defect it is meant to on small hand-made widgets, and reports
nothing on a clean one (a check that cannot fail proves nothing)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGraphicsScene,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QScrollArea,
    QSlider,
    QVBoxLayout,
    QWidget,
)
from pytestqt.qtbot import QtBot

from gui.visual_audit import pixels
from gui.visual_audit.boxes import Finding, Kind
from gui.visual_audit.run import audit

WHITE = "background: #ffffff; color: #1d2330;"


def window(qtbot: QtBot, size: tuple[int, int] = (420, 260)) -> QWidget:
    w = QWidget()
    w.setStyleSheet(f"QWidget {{ {WHITE} }}")
    w.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    w.resize(*size)
    qtbot.addWidget(w)
    return w


def run(qtbot: QtBot, w: QWidget, language: str = "en") -> list[Finding]:
    w.show()
    for _ in range(2):  # pyqtgraph sizes its axes after a first paint
        w.grab()
        qtbot.wait(1)
    return audit(w, language, names=[])


def kinds(found: list[Finding]) -> set[Kind]:
    return {f.kind for f in found}


def test_a_clean_label_has_no_finding(qtbot: QtBot) -> None:
    w = window(qtbot)
    QVBoxLayout(w).addWidget(QLabel("Memory per GPU", w))
    assert run(qtbot, w) == []


def test_a_clipped_label_is_found(qtbot: QtBot) -> None:
    w = window(qtbot)
    label = QLabel("A label far too long for its box", w)
    label.setGeometry(10, 10, 60, 24)
    found = run(qtbot, w)
    assert [f.kind for f in found] == [Kind.CLIPPED]
    assert "A label far too long" in found[0].where


def test_an_elided_combo_is_found(qtbot: QtBot) -> None:
    w = window(qtbot)
    combo = QComboBox(w)
    combo.addItem("BF16 mixed (fp32 master + states)")
    combo.setGeometry(10, 10, 90, 28)
    assert Kind.CLIPPED in kinds(run(qtbot, w))


def test_two_overlapping_labels_are_found(qtbot: QtBot) -> None:
    w = window(qtbot)
    QLabel("Allocated peak", w).move(10, 10)
    QLabel("Reserved", w).move(40, 14)
    found = run(qtbot, w)
    assert Kind.OVERLAP in kinds(found)
    assert any("Allocated peak" in f.where + f.detail and "Reserved" in f.where + f.detail
               for f in found if f.kind is Kind.OVERLAP)


def test_grey_on_white_at_two_to_one_is_found(qtbot: QtBot) -> None:
    w = window(qtbot)
    label = QLabel("Muted caption text", w)
    label.setStyleSheet("color: #b5b5b5; background: #ffffff;")  # 2.05:1
    label.move(10, 10)
    found = [f for f in run(qtbot, w) if f.kind is Kind.CONTRAST]
    assert len(found) == 1
    assert found[0].detail.startswith("2.0")


def test_white_on_a_light_bar_colour_is_found_in_a_chart(qtbot: QtBot) -> None:
    """Issue 17, dark theme: white labels on the light bar colours at about 2.2:1."""
    w = window(qtbot, (420, 300))
    plot = pg.PlotWidget(w, background="#1e2128")
    QVBoxLayout(w).addWidget(plot)
    plot.addItem(pg.BarGraphItem(x0=[0], y=[0], width=[10], height=[0.8], brush="#56b4e9"))
    label = pg.TextItem("Weights 13.5 GB", color="#ffffff", anchor=(0.5, 0.5))
    label.setPos(5, 0)
    plot.addItem(label)
    plot.setXRange(0, 10, padding=0)
    plot.setYRange(-1, 1, padding=0)
    found = [f for f in run(qtbot, w) if f.kind is Kind.CONTRAST]
    assert any("Weights 13.5 GB" in f.where for f in found)


def test_an_invisible_check_box_indicator_is_found(qtbot: QtBot) -> None:
    w = window(qtbot)
    box = QCheckBox("Gradient checkpointing", w)
    box.setStyleSheet("QCheckBox::indicator { border: none; background: #ffffff; width: 13px; height: 13px; }")
    box.move(10, 10)
    found = run(qtbot, w)
    assert any(f.kind is Kind.CONTRAST and "indicator" in f.detail for f in found)


def test_english_in_chinese_is_found_only_in_chinese(qtbot: QtBot) -> None:
    w = window(qtbot)
    QVBoxLayout(w).addWidget(QLabel("動到：activations", w))
    assert run(qtbot, w, "en") == []
    found = run(qtbot, w, "zh_TW")
    assert [(f.kind, f.detail) for f in found] == [(Kind.UNTRANSLATED, "English: activations")]


def test_a_line_through_a_chart_label_is_found_unless_the_label_sits_on_a_patch(qtbot: QtBot) -> None:
    """Issue 17: legends drawn over the dashed capacity line."""
    w = window(qtbot, (420, 300))
    plot = pg.PlotWidget(w, background="#ffffff")
    QVBoxLayout(w).addWidget(plot)
    plot.setXRange(0, 10, padding=0)
    plot.setYRange(0, 10, padding=0)
    plot.addItem(pg.InfiniteLine(pos=5, angle=0, pen=pg.mkPen("#1d2330", width=2)))
    label = pg.TextItem("weights", color="#1d2330", anchor=(0.5, 0.5))
    label.setPos(5, 5)
    plot.addItem(label)
    assert Kind.CROSSED in kinds(run(qtbot, w))
    label.fill = pg.mkBrush("#ffffff")
    label.setZValue(20)
    assert Kind.CROSSED not in kinds(run(qtbot, w))


def test_a_chart_label_outside_its_plot_is_clipped(qtbot: QtBot) -> None:
    """Issue 17: the serving chart clipped "GPU memory" at its top."""
    w = window(qtbot, (420, 300))
    plot = pg.PlotWidget(w, background="#ffffff")
    QVBoxLayout(w).addWidget(plot)
    plot.setXRange(0, 10, padding=0)
    plot.setYRange(0, 10, padding=0)
    label = pg.TextItem("GPU memory", color="#1d2330", anchor=(0, 1))
    label.setPos(1, 10.2)
    plot.addItem(label)
    found = run(qtbot, w)
    assert any(f.kind is Kind.CLIPPED and "GPU memory" in f.where for f in found)


def test_small_type_squashed_controls_and_sideways_scrolling_are_found(qtbot: QtBot) -> None:
    w = window(qtbot, (420, 300))
    tiny = QLabel("legend text", w)
    font = QFont(tiny.font())
    font.setPixelSize(6)
    tiny.setFont(font)
    tiny.move(10, 10)
    QSlider(Qt.Orientation.Horizontal, w).setGeometry(10, 40, 20, 20)  # "the sequence slider a dot"
    area = QScrollArea(w)
    wide = QWidget()
    wide.setMinimumWidth(900)
    area.setWidget(wide)
    area.setGeometry(10, 80, 300, 120)
    found = kinds(run(qtbot, w))
    assert {Kind.SMALL, Kind.SQUASHED, Kind.SIDEWAYS} <= found


def test_an_empty_or_mostly_blank_diagram_is_found(qtbot: QtBot) -> None:
    """Issue 17: at 1280x720 and 200% the alignment page's first screen was an empty diagram box."""
    w = window(qtbot, (300, 500))
    view = QGraphicsView(QGraphicsScene(w), w)
    view.setGeometry(0, 0, 300, 500)
    found = run(qtbot, w)
    assert [f.kind for f in found] == [Kind.EMPTY]
    view.scene().addRect(QRectF(0, 0, 200, 60))
    view.fitInView(QRectF(0, 0, 200, 60), Qt.AspectRatioMode.KeepAspectRatio)  # a wide drawing in a tall view
    found = run(qtbot, w)
    assert [f.kind for f in found] == [Kind.EMPTY]
    assert "blank band" in found[0].detail


def test_the_audit_changes_nothing_it_looks_at(qtbot: QtBot) -> None:
    """PySide6 6.11 deletes a scene's top-level item when Python asked for its parentItem() and then dropped the
    wrapper: the audit must leave every item where it was (it once erased the alignment diagram's text)."""
    w = window(qtbot, (400, 300))
    view = QGraphicsView(QGraphicsScene(w), w)
    view.setGeometry(0, 0, 400, 300)
    text = QGraphicsTextItem()
    text.setPlainText("policy, trained")
    view.scene().addItem(text)
    text.setPos(QPointF(20, 20))
    del text
    view.scene().addPath(pg.QtGui.QPainterPath(QPointF(0, 0)), pg.mkPen("k"))
    before = pixels.to_array(w.grab())
    count = len(view.scene().items())
    import gc

    run(qtbot, w)
    gc.collect()
    assert len(view.scene().items()) == count
    assert (pixels.to_array(w.grab()) == before).all()
