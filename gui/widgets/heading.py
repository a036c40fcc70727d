"""A page's heading: its title in large bold type (one look for every page)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

SCALE = 1.6


def page_heading(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * SCALE)
    font.setBold(True)
    label.setFont(font)
    return label
