"""gui.widgets.page_layout: a page's heading and its scrollable body."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from gui.widgets.page_layout import fill_with_scroll, page_heading


def test_heading_and_scrolling_body(qtbot: QtBot) -> None:
    page = QWidget()
    qtbot.addWidget(page)
    content = QWidget()
    heading = page_heading("Levers", content)
    assert isinstance(heading, QLabel)
    assert heading.font().bold()
    assert heading.font().pointSizeF() > QLabel().font().pointSizeF()
    scroll = fill_with_scroll(page, content)
    assert isinstance(scroll, QScrollArea)
    assert scroll.widget() is content
    assert scroll.widgetResizable()
    assert page.findChild(QScrollArea) is scroll
