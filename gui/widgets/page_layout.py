"""What every page's frame shares: a heading in large bold type, and content that scrolls when the window is small."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

SCALE = 1.6


def page_heading(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * SCALE)
    font.setBold(True)
    label.setFont(font)
    return label


def scroll_area(content: QWidget, parent: QWidget) -> QScrollArea:
    """``content`` in a frameless scroll area that resizes it to fit (scrolling only when it cannot)."""
    scroll = QScrollArea(parent)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setWidget(content)
    return scroll


def fill_with_scroll(page: QWidget, content: QWidget) -> QScrollArea:
    """Make ``content`` the page's whole, scrollable body."""
    scroll = scroll_area(content, page)
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(scroll)
    return scroll
