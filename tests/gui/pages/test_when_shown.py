"""gui.pages.when_shown: hidden pages defer their recompute until they are shown again."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.pages.when_shown import WhenShown


def test_runs_before_the_first_show_then_defers_while_hidden(qtbot: QtBot) -> None:
    page = QWidget()
    qtbot.addWidget(page)
    runs: list[int] = []
    when = WhenShown(page, lambda: runs.append(1))
    when.request()  # never shown yet: runs, so the page is never built empty
    assert runs == [1]
    page.show()
    when.request()
    assert runs == [1, 1]
    page.hide()
    when.request()
    when.request()
    assert runs == [1, 1]  # hidden: deferred, and two requests make one run
    page.show()
    assert runs == [1, 1, 1]
    page.hide()
    page.show()
    assert runs == [1, 1, 1]  # nothing pending: showing again costs nothing
