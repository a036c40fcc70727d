"""gui.pages.serving_sections: a section's bold title (larger for the page heading) and its line of text."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from gui.pages.serving_sections import section


def test_title_and_text(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    normal = section("KV cache", "per sequence", host)
    heading = section("Serving", "", host, heading=True)
    labels = normal.findChildren(QLabel)
    assert [label.text() for label in labels] == ["KV cache", "per sequence"]
    assert labels[0].font().bold()
    (title,) = heading.findChildren(QLabel)
    assert title.font().pointSizeF() > labels[0].font().pointSizeF()
