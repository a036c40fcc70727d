"""The numbers inside a heat map's cells, drawn by one pyqtgraph item in one pass.

One item instead of a ``TextItem`` per cell: a step redraws up to 64 numbers many times a second, and a single
``paint`` that maps each cell centre to device pixels keeps that cheap and the text unscaled at any zoom.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter

MINUS_INF = "−∞"


def cell_label(value: float) -> str:
    """How a cell shows its number: two decimals, a true minus sign, ``−∞`` for a masked cell."""
    if math.isinf(value):
        return MINUS_INF if value < 0 else "∞"
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text.replace("-", "−")


class CellTextItem(pg.GraphicsObject):  # type: ignore[misc]
    """Text centred in the cells of a ``rows x cols`` grid spanning ``(0, 0)``-``(cols, rows)`` in data units."""

    def __init__(self) -> None:
        super().__init__()
        self._rect = QRectF()
        self._texts: list[list[str]] = []
        self._inks: list[list[QColor]] = []

    def set_cells(self, texts: list[list[str]], inks: list[list[str]]) -> None:
        """Replace the text and the ink colour (``#rrggbb``) of every cell; an empty string draws nothing."""
        rect = QRectF(0, 0, len(texts[0]) if texts else 0, len(texts))
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
        self._texts = texts
        self._inks = [[QColor(c) for c in row] for row in inks]
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def paint(self, painter: QPainter, *_args: Any) -> None:
        transform = painter.transform()
        cell_w, cell_h = abs(transform.m11()), abs(transform.m22())
        if cell_w < 14 or cell_h < 10:
            return  # too small to read: colours only
        painter.resetTransform()
        font = QFont(painter.font())
        font.setPixelSize(int(max(8.0, min(cell_h * 0.36, cell_w * 0.29, 15.0))))
        painter.setFont(font)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        for r, row in enumerate(self._texts):
            for c, text in enumerate(row):
                if text:
                    centre = transform.map(QPointF(c + 0.5, r + 0.5))
                    box = QRectF(centre.x() - cell_w / 2, centre.y() - cell_h / 2, cell_w, cell_h)
                    painter.setPen(self._inks[r][c])
                    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
