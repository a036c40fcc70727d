"""gui.widgets.diagram_items: boxes centred where asked, arrows clipped to the boxes with a head and a label."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsSimpleTextItem
from pytestqt.qtbot import QtBot

from gui.widgets.diagram_items import BOX_H, BOX_W, TEXT_PX, add_arrow, add_box, arrow_path


def test_a_box_is_centred(qtbot: QtBot) -> None:
    scene = QGraphicsScene()
    box, text = add_box(scene, QPointF(100, 50), "<b>policy</b>", pen=QPen(), brush=QColor("white"),
                        ink=QColor("black"))
    rect = box.boundingRect()
    assert rect.center().x() == 100
    assert abs(rect.center().y() - 50) < 1
    assert rect.width() > BOX_W
    assert "policy" in text.toPlainText()


def test_an_arrow_starts_and_ends_outside_both_boxes(qtbot: QtBot) -> None:
    a, b = QPointF(0, 0), QPointF(400, 0)
    path = arrow_path(a, b)
    start, end = path.pointAtPercent(0), path.pointAtPercent(1)
    assert start.x() >= BOX_W / 2
    assert end.x() <= 400 - BOX_W / 2
    scene = QGraphicsScene()
    items = add_arrow(scene, path, "log-probs", colour=QColor("red"), background=QColor("white"))
    assert len(items) == 4  # line, head, label patch, label
    assert len(add_arrow(scene, arrow_path(a, QPointF(0, 300)), "", colour=QColor("red"),
                         background=QColor("white"), dashed=True)) == 2
    assert BOX_H > 0


def test_text_is_sized_in_scene_units_whatever_the_type_size(qtbot: QtBot, qapp: QApplication) -> None:
    font = qapp.font()
    large = qapp.font()
    large.setPointSizeF(font.pointSizeF() * 2)  # presentation mode at 200%
    qapp.setFont(large)
    try:
        scene = QGraphicsScene()
        _, text = add_box(scene, QPointF(0, 0), "<b>reference</b><br>base with adapters off: no copy<br>23.75 GB",
                          pen=QPen(), brush=QColor("white"), ink=QColor("black"))
        assert text.font().pixelSize() == TEXT_PX
        assert text.boundingRect().height() < BOX_H  # three lines still fit their box
        label = add_arrow(scene, arrow_path(QPointF(0, 0), QPointF(400, 0)), "log-probs (KL)",
                          colour=QColor("black"), background=QColor("white"))[-1]
        assert isinstance(label, QGraphicsSimpleTextItem)
        assert label.font().pixelSize() == TEXT_PX
    finally:
        qapp.setFont(font)
