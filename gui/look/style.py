"""The application's widget style: Fusion, with indicators that can be told from their background.

Fusion outlines an unchecked check box or radio button with the window colour made 40% darker, which is about
1.6:1 against a light window and 1.1:1 against a dark one: the box can hardly be seen (WCAG 2.1 1.4.11 asks 3:1 of
a control's boundary). This proxy draws Fusion's indicator, then outlines it in the palette's muted ink
(``PlaceholderText``: at least 4.5:1 on the window in every theme, ``gui.look.palette``).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleOption, QWidget

_PE = QStyle.PrimitiveElement
_BOXES = (_PE.PE_IndicatorCheckBox, _PE.PE_IndicatorItemViewItemCheck)


class AppStyle(QProxyStyle):
    """Fusion with outlined check-box and radio-button indicators."""

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter,
                      widget: QWidget | None = None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element in _BOXES or element == _PE.PE_IndicatorRadioButton:
            _outline(element, option, painter)


def _outline(element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, element == _PE.PE_IndicatorRadioButton)
    painter.setPen(QPen(option.palette.color(QPalette.ColorRole.PlaceholderText), 1.0))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    rect = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
    if element == _PE.PE_IndicatorRadioButton:
        painter.drawEllipse(rect.adjusted(0.5, 0.5, -0.5, -0.5))
    else:
        painter.drawRect(rect)
    painter.restore()
