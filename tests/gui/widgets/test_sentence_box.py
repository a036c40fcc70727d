"""gui.widgets.sentence_box: Enter or the button submit the text; an error is shown, or cleared."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.widgets.sentence_box import SentenceBox


def test_submit_and_error(qtbot: QtBot) -> None:
    box = SentenceBox("The cat sat", 8)
    qtbot.addWidget(box)
    sent: list[str] = []
    box.submitted.connect(sent.append)
    box.line.setText("a b c")
    qtbot.keyClick(box.line, Qt.Key.Key_Return)
    box.apply.click()
    assert sent == ["a b c", "a b c"]
    assert "8 words" in box.line.placeholderText()
    box.show_error("too long")
    assert box.error.text() == "too long"
    box.show_error("")
    assert box.error.text() == ""
