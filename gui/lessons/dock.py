"""The Lessons drawer: a dock beside any page holding the Lessons panel (``gui.lessons.panel``), opened and closed
from View > Lessons (Ctrl+L) or its own close button, and remembered.

The panel is built the first time the drawer opens (the lessons and the engine parts that check them load then,
not at start-up) and again, in the new language and type size, when the main window rebuilds its pages
(``attach``); a drawer that is closed drops its panel instead. The drawer's width follows the type size (wider in
presentation mode), up to a share of the window, and it gives width back when the window narrows (full screen on
a small screen) rather than squeeze the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QCloseEvent, QFontMetrics
from PySide6.QtWidgets import QDockWidget, QMainWindow

from gui.settings import LESSONS_OPEN_KEY, settings

if TYPE_CHECKING:
    from gui.lessons.panel import LessonsPanel
    from gui.pages.page_stack import PageStack
    from gui.state.scenario import Scenario
    from gui.state.scenario_history import ScenarioHistory

# the drawer's width in lines of text (font height), and at most this share of the window
WIDTH_EMS, MAX_SHARE = 21, 0.42


class LessonsDock(QDockWidget):
    """A right-hand dock for the Lessons panel.

    Signals:
        open_changed(bool): the learner opened or closed the drawer (the View menu's tick follows it).
    """

    open_changed = Signal(bool)

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setObjectName("lessonsDock")
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        self._window = window
        self._scenario: Scenario | None = None
        self._pages: PageStack | None = None
        self._history: ScenarioHistory | None = None
        self.panel: LessonsPanel | None = None
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self)
        window.installEventFilter(self)
        self.hide()

    @staticmethod
    def saved_open() -> bool:
        """Whether the drawer was open when the learner last chose (closed the first time)."""
        return str(settings().value(LESSONS_OPEN_KEY, "false")).lower() == "true"

    def attach(self, scenario: Scenario, pages: PageStack, history: ScenarioHistory | None = None) -> None:
        """Work on this scenario and page stack from now on (a rebuilt window): the panel is built again. A lesson's
        Start is one step of ``history`` (Edit ▸ Undo)."""
        self._scenario, self._pages, self._history = scenario, pages, history
        self.setWindowTitle(self.tr("Lessons"))
        self._drop_panel()
        if self.isVisibleTo(self._window):
            self._build_panel()

    def set_open(self, on: bool) -> None:
        """Open or close the drawer, and remember it."""
        settings().setValue(LESSONS_OPEN_KEY, bool(on))
        self._show(bool(on))
        self.open_changed.emit(bool(on))

    def restore(self) -> None:
        """Open the drawer if it was open last time."""
        self._show(self.saved_open())

    def _show(self, on: bool) -> None:
        if on and self.panel is None:
            self._build_panel()
        self.setVisible(on)

    def _build_panel(self) -> None:
        from gui.lessons.panel import LessonsPanel  # the lessons load when the drawer first opens

        if self._scenario is None or self._pages is None:
            raise RuntimeError("LessonsDock.attach() first")
        self.panel = LessonsPanel(self._scenario, self._pages, self._history, self)
        self.setWidget(self.panel)
        self.fit_width()

    def _drop_panel(self) -> None:
        old, self.panel = self.panel, None
        if old is not None and shiboken6.isValid(old):
            old.hide()
            old.deleteLater()

    def fit_width(self) -> None:
        """Size the drawer for about ``WIDTH_EMS`` lines' height of text across, at most ``MAX_SHARE`` of the window
        (its buttons' own widths may ask for more: their texts are never cut)."""
        em = QFontMetrics(self.font()).height()
        width = min(WIDTH_EMS * em, self._cap())
        self._window.resizeDocks([self], [width], Qt.Orientation.Horizontal)

    def _cap(self) -> int:
        return int(self._window.width() * MAX_SHARE)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The window narrowed (full screen on a small screen): give the page its share back."""
        resized = watched is self._window and event.type() == QEvent.Type.Resize
        if resized and self.isVisible() and self.width() > self._cap():
            self._window.resizeDocks([self], [self._cap()], Qt.Orientation.Horizontal)
        return False

    def closeEvent(self, event: QCloseEvent) -> None:
        """Its close button: remembered like View > Lessons."""
        super().closeEvent(event)
        settings().setValue(LESSONS_OPEN_KEY, False)
        self.open_changed.emit(False)
