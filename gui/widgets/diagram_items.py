"""Drawing pieces of the stage diagram: a rounded box with text, a curved arrow with a label, a legend entry.

Geometry only; styles come from ``gui.widgets.role_style`` and texts from the caller. Text is sized in scene units
(``diagram_font``), like the boxes: the view scales both to fit, so a larger type size (presentation mode) or
another platform's default font never makes a box's text overflow it.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsScene, QGraphicsTextItem

BOX_W, BOX_H = 168.0, 78.0
BEND = 26.0  # how far an arrow bows out to its left (two opposite arrows never overlap)
HEAD = 9.0
LABEL_AT = 0.4  # labels sit before the middle, so two crossing arrows never stack their labels
TEXT_PX = 12  # text height in scene units (the boxes were drawn for it: 9 pt at 96 dpi)


def diagram_font() -> QFont:
    """The application's font family at ``TEXT_PX`` scene units, whatever its point size."""
    font = QFont()
    font.setPixelSize(TEXT_PX)
    return font


def add_box(scene: QGraphicsScene, center: QPointF, html: str, *, pen: QPen, brush: QColor, ink: QColor,
            width: float = BOX_W) -> tuple[QGraphicsPathItem, QGraphicsTextItem]:
    """A rounded box centred on ``center`` with centred rich text."""
    rect = QRectF(center.x() - width / 2, center.y() - BOX_H / 2, width, BOX_H)
    path = QPainterPath()
    path.addRoundedRect(rect, 10, 10)
    box = scene.addPath(path, pen, QBrush(brush))
    text = QGraphicsTextItem()
    text.setFont(diagram_font())
    scene.addItem(text)  # the scene owns it (a parent given to the constructor would not keep it alive)
    text.setDefaultTextColor(ink)
    text.setHtml(f'<div align="center">{html}</div>')
    text.setTextWidth(width - 8)
    text.setPos(rect.left() + 4, center.y() - text.boundingRect().height() / 2)
    return box, text


def _edge(center: QPointF, toward: QPointF, half_w: float, half_h: float) -> QPointF:
    """Where the ray from a box's centre toward a point leaves the box."""
    dx, dy = toward.x() - center.x(), toward.y() - center.y()
    t = min(half_w / abs(dx) if dx else math.inf, half_h / abs(dy) if dy else math.inf)
    return QPointF(center.x() + dx * t, center.y() + dy * t)


def arrow_path(a: QPointF, b: QPointF, half_w: tuple[float, float] = (BOX_W / 2, BOX_W / 2)) -> QPainterPath:
    """A gently curved path from box ``a`` to box ``b``, bowing to its left, clipped to both boxes."""
    mid = (a + b) / 2
    dx, dy = b.x() - a.x(), b.y() - a.y()
    length = math.hypot(dx, dy) or 1.0
    control = QPointF(mid.x() + dy / length * BEND, mid.y() - dx / length * BEND)
    start = _edge(a, control, half_w[0] + 2, BOX_H / 2 + 2)
    end = _edge(b, control, half_w[1] + 6, BOX_H / 2 + 6)
    path = QPainterPath(start)
    path.quadTo(control, end)
    return path


def add_arrow(scene: QGraphicsScene, path: QPainterPath, label: str, *, colour: QColor, background: QColor,
              dashed: bool = False) -> list[QGraphicsItem]:
    """The path with an arrowhead at its end and its label at its middle (on a background patch)."""
    pen = QPen(colour, 1.6, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
    line = scene.addPath(path, pen)
    tip = path.pointAtPercent(1.0)
    angle = math.radians(-path.angleAtPercent(1.0))
    back = [QPointF(tip.x() - HEAD * math.cos(angle + s), tip.y() - HEAD * math.sin(angle + s)) for s in (0.4, -0.4)]
    head = scene.addPolygon(QPolygonF([tip, *back]), QPen(colour), QBrush(colour))
    items: list[QGraphicsItem] = [line, head]
    if label:
        text = scene.addSimpleText(label, diagram_font())
        text.setBrush(QBrush(colour))
        r = text.boundingRect()
        mid = path.pointAtPercent(LABEL_AT)
        text.setPos(mid.x() - r.width() / 2, mid.y() - r.height() / 2)
        patch = scene.addRect(text.sceneBoundingRect().adjusted(-3, -1, 3, 1), QPen(Qt.PenStyle.NoPen),
                              QBrush(background))
        patch.setZValue(1)
        text.setZValue(2)
        items += [patch, text]
    return items
