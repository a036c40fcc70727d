"""gui.lessons.lesson_list: one row per lesson, ticked when passed; a pick is announced, a select is not."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.lessons.lesson_list import LessonList

ENTRIES = [("a", "First"), ("b", "Second"), ("c", "Third")]


def make(qtbot: QtBot) -> LessonList:
    widget = LessonList("passed")
    qtbot.addWidget(widget)
    widget.show_lessons(ENTRIES, passed={"b"}, current="c")
    return widget


def test_rows_are_numbered_and_ticked(qtbot: QtBot) -> None:
    widget = make(qtbot)
    assert [widget.item(r).text() for r in range(3)] == ["○ 1. First", "✓ 2. Second", "○ 3. Third"]
    assert widget.item(1).data(Qt.ItemDataRole.AccessibleTextRole) == "2. Second, passed"
    assert (widget.lesson_ids(), widget.current_id()) == (["a", "b", "c"], "c")
    widget.show_passed({"a"})
    assert [widget.item(r).text()[0] for r in range(3)] == ["✓", "○", "○"]


def test_a_pick_is_announced_and_a_select_is_not(qtbot: QtBot) -> None:
    widget = make(qtbot)
    picked: list[str] = []
    widget.lesson_picked.connect(picked.append)
    widget.select("a")
    assert (picked, widget.current_id()) == ([], "a")
    widget.setCurrentRow(1)
    assert picked == ["b"]
    widget.select("nope")  # not a lesson: nothing changes
    assert widget.current_id() == "b"
