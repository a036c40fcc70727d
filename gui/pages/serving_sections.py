"""Small pieces of the serving page: section headings with a line of text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


def section(title: str, text: str, parent: QWidget, heading: bool = False) -> QWidget:
    """A bold title (larger for the page heading) and an optional wrapped line of explanation."""
    box = QWidget(parent)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 8 if not heading else 0, 0, 0)
    layout.setSpacing(4)
    title_label = QLabel(title, box)
    font = title_label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * (1.8 if heading else 1.2))
    title_label.setFont(font)
    layout.addWidget(title_label)
    if text:
        body = QLabel(text, box)
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(body)
    return box
