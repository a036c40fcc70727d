"""The course's lessons as a list: number, title and a tick for each lesson passed; picking a row asks for it.

The caller gives the titles already in the user's language (``engine.lessons`` carries both) and the ids
passed; the list only shows them. Arrow keys move through it and each row picked is announced once.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QWidget

ID_ROLE = Qt.ItemDataRole.UserRole
PASSED_MARK, OPEN_MARK = "✓", "○"


class LessonList(QListWidget):
    """One row per lesson: "✓ 3. title" when passed, "○ 3. title" otherwise.

    Signals:
        lesson_picked(str): the user picked a lesson (its id); not emitted by ``select``.
    """

    lesson_picked = Signal(str)

    def __init__(self, passed_word: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonList")
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self._passed_word = passed_word
        self._titles: list[str] = []
        self.currentRowChanged.connect(self._row_changed)

    def show_lessons(self, entries: Sequence[tuple[str, str]], passed: Collection[str], current: str) -> None:
        """``entries``: (id, title) in course order."""
        self.blockSignals(True)
        self.clear()
        self._titles = [title for _, title in entries]
        for lesson_id, _ in entries:
            item = QListWidgetItem(self)
            item.setData(ID_ROLE, lesson_id)
        self.show_passed(passed)
        self.select(current)
        self.blockSignals(False)

    def show_passed(self, passed: Collection[str]) -> None:
        """Tick the rows of the lessons in ``passed`` (and only those)."""
        for row in range(self.count()):
            item = self.item(row)
            done = item.data(ID_ROLE) in passed
            text = f"{PASSED_MARK if done else OPEN_MARK} {row + 1}. {self._titles[row]}"
            item.setText(text)
            item.setToolTip(self._titles[row])
            item.setData(Qt.ItemDataRole.AccessibleTextRole,
                         f"{row + 1}. {self._titles[row]}" + (f", {self._passed_word}" if done else ""))

    def lesson_ids(self) -> list[str]:
        return [self.item(row).data(ID_ROLE) for row in range(self.count())]

    def current_id(self) -> str | None:
        item = self.currentItem()
        return None if item is None else str(item.data(ID_ROLE))

    def select(self, lesson_id: str) -> None:
        """Make ``lesson_id``'s row the current one, silently."""
        ids = self.lesson_ids()
        if lesson_id in ids:
            blocked = self.blockSignals(True)
            self.setCurrentRow(ids.index(lesson_id))
            self.scrollToItem(self.currentItem())
            self.blockSignals(blocked)

    def showEvent(self, event: QShowEvent) -> None:
        """Shown (its size known at last): the current row in view."""
        super().showEvent(event)
        if self.currentItem() is not None:
            self.scrollToItem(self.currentItem())

    def _row_changed(self, row: int) -> None:
        if 0 <= row < self.count():
            self.lesson_picked.emit(str(self.item(row).data(ID_ROLE)))
