"""The Lessons panel: the course's lessons with the learner's progress, and the lesson in view, its goal checked
live by the engine as the learner changes the setup (no submit button).

Data flow, as on every page (README, "Architecture"): the panel watches the shared ``Scenario`` and the own state
of the lesson's page (a ``HoldsLessonPart``: ``gui.pages.contract``) through ``gui.state.recompute``'s one policy, so a
slider drag checks once per event-loop turn, and not at all while the panel is hidden (once when it is shown
again). A check is ``Lesson.check`` on the situation ``gui.lessons.situation`` reads (well under 1 ms:
``bench/engine_speed.py``). A verdict that changed (met, not met) is drawn at once; the sentence that says why,
whose numbers change at every step of a drag, is drawn once the input pauses (the recompute's ``later`` part),
so that a drag repaints no more of the panel than its verdict (``bench/gui_latency.py --lessons``).

Start applies the lesson's start to the scenario and the page and shows the page, one undoable step of the scenario
(Edit ▸ Undo: ``gui.state.scenario_history``); a lesson's goal is checked from its Start on. Progress (passed, the
lesson in view, the one started, hints revealed) is kept in the settings (``gui.lessons.progress``). The lessons' own
texts come from the engine in both languages; the panel's words go through Qt's translations.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.lessons import Check, Lesson, lessons
from gui.lessons.lesson_list import LessonList
from gui.lessons.lesson_view import LessonView, button
from gui.lessons.progress import LessonProgress
from gui.lessons.situation import apply_start, part_of, situation_of
from gui.pages.contract import HoldsLessonPart
from gui.pages.page_stack import PageStack
from gui.state.recompute import Recompute
from gui.state.scenario import Scenario
from gui.state.scenario_history import ScenarioHistory, Step
from gui.text import i18n
from gui.widgets.page_layout import scroll_area

# the share of the panel's height the list may take before it scrolls
LIST_SHARE = 0.38


class LessonsPanel(QWidget):
    """The list of lessons and the lesson in view.

    Signals: none of its own (it writes to the ``Scenario`` and to pages' states, which signal).
    """

    def __init__(self, scenario: Scenario, pages: PageStack, history: ScenarioHistory | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonsPanel")
        self._scenario, self._pages, self._history = scenario, pages, history
        self.lessons: dict[str, Lesson] = {x.id: x for x in lessons()}
        self.progress = LessonProgress(list(self.lessons))
        self.lang = i18n.current_language(_app())
        self._parts: dict[str, HoldsLessonPart | None] = {}  # each lesson page's part (None: it holds none)
        self._list_sized = False
        self.summary, self.bar = QLabel(self), QProgressBar(self)
        self.bar.setRange(0, len(self.lessons))
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(max(6, self.fontMetrics().height() // 3))  # a thin bar under the count
        self.list = LessonList(self.tr("passed"), self)
        self.view = LessonView(self)
        self.previous = button(self.tr("◀ Previous"), self, "lessonPrevious")
        self.next = button(self.tr("Next ▶"), self, "lessonNext")
        self.reset = button(self.tr("Reset progress…"), self, "lessonReset")
        self._layout()
        self._connect()
        self._last: Check | None = None  # the newest check of the started lesson
        self.recompute = Recompute(self, now=self._check, later=[self._show_check]).watch(scenario)
        self.list.show_lessons([(x.id, x.title.get(self.lang)) for x in self.lessons.values()],
                               self.progress.passed, self.progress.current)
        self._show_progress()
        self._show_current()

    def _layout(self) -> None:
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.list)
        self.scroller = scroll_area(self.view, self.splitter)
        self.splitter.addWidget(self.scroller)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.splitterMoved.connect(self._list_moved)
        steps = QHBoxLayout()
        steps.addWidget(self.previous)
        steps.addWidget(self.next)
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 4, 8, 8)
        box.addWidget(self.summary)
        box.addWidget(self.bar)
        box.addWidget(self.splitter, 1)
        box.addLayout(steps)
        box.addWidget(self.reset)

    def _connect(self) -> None:
        self.list.lesson_picked.connect(self.show_lesson)
        self.view.start_requested.connect(self.start)
        self.view.hint_requested.connect(self.reveal_hint)
        self.previous.clicked.connect(lambda: self._step(-1))
        self.next.clicked.connect(lambda: self._step(1))
        self.reset.clicked.connect(self._ask_reset)

    # -- what the learner does ----------------------------------------------------------------------------------
    @property
    def current(self) -> Lesson:
        return self.lessons[self.progress.current]

    def show_lesson(self, lesson_id: str) -> None:
        """Put ``lesson_id`` in view (checked live if it is the lesson started)."""
        self.progress.set_current(lesson_id)
        self.list.select(lesson_id)
        self._show_current()

    def start(self) -> None:
        """Apply the lesson's start to the scenario and its page, and show the page."""
        lesson = self.current
        with self._undoable(lesson):
            apply_start(lesson, self._scenario, self._part(lesson))
        self.progress.start(lesson.id)
        self._show_current()
        self._pages.show_page(lesson.page.value)

    def reveal_hint(self) -> None:
        """The lesson's next hint."""
        lesson = self.current
        self.view.show_hints(self.progress.reveal_hint(lesson.id, len(lesson.hints)))

    def reset_progress(self) -> None:
        """Forget every lesson passed and hint revealed; the first lesson in view."""
        self.progress.reset()
        self.list.show_passed(self.progress.passed)
        self.list.select(self.progress.current)
        self._show_progress()
        self._show_current()

    def confirm_reset(self) -> bool:
        """Ask before forgetting the learner's progress (a seam for tests)."""
        answer = QMessageBox.question(self, self.tr("Reset progress"), self.tr(
            "Forget which lessons you passed and the hints you revealed?"))
        return answer == QMessageBox.StandardButton.Yes

    def flush(self) -> None:
        """Check now whatever is pending (tests)."""
        self.recompute.flush()

    def _undoable(self, lesson: Lesson) -> AbstractContextManager[None]:
        """The start as one undoable step, named by the lesson's number (the same in both languages)."""
        if self._history is None:
            return nullcontext()
        return self._history.recording(Step.LESSON, str(list(self.lessons).index(lesson.id) + 1))

    def _ask_reset(self) -> None:
        if self.confirm_reset():
            self.reset_progress()

    def _step(self, delta: int) -> None:
        ids = list(self.lessons)
        index = ids.index(self.progress.current) + delta
        if 0 <= index < len(ids):
            self.show_lesson(ids[index])

    # -- what it shows ------------------------------------------------------------------------------------------
    def _show_current(self) -> None:
        lesson, ids = self.current, list(self.lessons)
        started = self.progress.started == lesson.id
        self.view.show_lesson(lesson, self.lang, self.progress.hints(lesson.id), started,
                              lesson.id in self.progress.passed)
        self.scroller.verticalScrollBar().setValue(0)
        self.previous.setEnabled(ids.index(lesson.id) > 0)
        self.next.setEnabled(ids.index(lesson.id) < len(ids) - 1)
        if started:
            self.recompute.request()

    def _show_progress(self) -> None:
        done, total = len(self.progress.passed), len(self.lessons)
        self.summary.setText(self.tr("{n} of {total} lessons passed").format(n=done, total=total))
        self.bar.setValue(done)
        self.bar.setAccessibleName(self.summary.text())

    def _check(self) -> None:
        """Check the started lesson's goal against the learner's situation now (``gui.state.recompute``)."""
        lesson, self._last = self.current, None
        if self.progress.started != lesson.id:
            return
        self._last = lesson.check(situation_of(lesson, self._scenario, self._part(lesson)), self._scenario.unit)
        if self._last.passed and self.progress.mark_passed(lesson.id):
            self.list.show_passed(self.progress.passed)
            self._show_progress()
        if self.view.verdict() is not self._last.passed:
            self._show_check()  # met or not met any more: at once

    def _show_check(self) -> None:
        """The newest check, its sentence included (``later``: once a drag pauses)."""
        if self._last is not None:
            self.view.show_check(self._last, self.progress.current in self.progress.passed)

    def _part(self, lesson: Lesson) -> HoldsLessonPart | None:
        """The part of the situation the lesson's page holds (the page built now if it was not yet), watched."""
        page_id = lesson.page.value
        if page_id not in self._parts:
            part = self._parts[page_id] = part_of(self._pages.page(page_id))
            if part is not None:
                part.lesson_part_changed().connect(self.recompute.request)
        return self._parts[page_id]

    # -- sizing -------------------------------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._list_sized:
            rows = sum(self.list.sizeHintForRow(r) for r in range(self.list.count())) + 2 * self.list.frameWidth()
            height = min(rows, int(self.splitter.height() * LIST_SHARE))
            self.splitter.setSizes([height, self.splitter.height() - height])

    def _list_moved(self) -> None:
        self._list_sized = True  # the learner's split stays


def _app() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app
