"""Presentation mode: full screen, larger type, thicker chart lines, high contrast, no chrome; a clicker's keys.

F5 (View menu) enters it and Esc leaves it, restoring the window, the palette and the type size. While it is on,
PageDown / Right / Down go forward and PageUp / Left / Up go back, as a presenter's clicker sends them: first
through the current page's own steps (a page that has some is a ``PresentsSteps``, ``gui.pages.contract``:
``present_step(forward)`` returns ``False`` at its last or first step; the attention walk-through does), then
to the next or previous page. The type scale (100-200%, for large rooms) is a View-menu setting, remembered; the
pages are rebuilt at the new size so that headings and charts scale with the text.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMainWindow,
    QWidget,
)

from gui.look.theme import ThemeManager, high_contrast_palette
from gui.pages import PAGE_IDS
from gui.pages.contract import PresentsSteps
from gui.pages.page_stack import PageStack
from gui.settings import PRESENTATION_SCALE_KEY, settings

DEFAULT_SCALE = 150
FORWARD = {Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Down}
BACK = {Qt.Key.Key_PageUp, Qt.Key.Key_Left, Qt.Key.Key_Up}
ARROWS = {Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Up}
_EDITORS = (QLineEdit, QAbstractSpinBox, QComboBox, QAbstractItemView)  # keep their arrow keys (a list: the lessons')


class Host(Protocol):
    """What presentation mode needs from the main window."""

    pages: PageStack

    def chrome(self) -> list[QWidget]: ...  # the sidebar and the menu bar

    def rebuild(self) -> None: ...  # build the pages and menus again (new type size)


def saved_scale() -> int:
    value = settings().value(PRESENTATION_SCALE_KEY, DEFAULT_SCALE)
    try:
        return min(max(int(str(value)), 100), 200)
    except ValueError:
        return DEFAULT_SCALE


class Presentation(QObject):
    """Enters and leaves presentation mode for one main window and drives it with a clicker's keys.

    Signals:
        active_changed(bool): presentation mode was entered (``True``) or left.
    """

    active_changed = Signal(bool)

    def __init__(self, window: QMainWindow, host: Host, theme: ThemeManager | None = None) -> None:
        super().__init__(window)
        self._window, self._host, self._theme = window, host, theme
        self.active = False
        self._saved: tuple[QRect, Qt.WindowState, float, QPalette] | None = None

    @property
    def scale(self) -> int:
        """Type size in presentation mode, in percent of the normal size."""
        return saved_scale()

    def set_scale(self, percent: int) -> None:
        settings().setValue(PRESENTATION_SCALE_KEY, min(max(int(percent), 100), 200))
        if self.active and self._saved is not None:
            self._set_font_size(self._saved[2] * self.scale / 100)
            self._host.rebuild()

    def toggle(self) -> None:
        self.leave() if self.active else self.enter()

    def enter(self) -> None:
        if self.active:
            return
        app = _app()
        self._saved = (self._window.geometry(), self._window.windowState(), app.font().pointSizeF(),
                       QPalette(app.palette()))
        self.active = True
        self._set_high_contrast(True)
        self._set_font_size(self._saved[2] * self.scale / 100)
        self._host.rebuild()
        for widget in self._host.chrome():
            widget.hide()
        self._window.showFullScreen()
        app.installEventFilter(self)
        self.active_changed.emit(True)

    def leave(self) -> None:
        if not self.active or self._saved is None:
            return
        geometry, state, size, palette = self._saved
        app = _app()
        app.removeEventFilter(self)
        self.active, self._saved = False, None
        self._set_high_contrast(False, palette)
        self._set_font_size(size)
        self._host.rebuild()
        for widget in self._host.chrome():
            widget.show()
        self._window.setWindowState(state & ~Qt.WindowState.WindowFullScreen)
        if not state & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen):
            self._window.setGeometry(geometry)
        self.active_changed.emit(False)

    def step(self, forward: bool) -> None:
        """One clicker press: the page's next (previous) step, else the next (previous) page."""
        page = self._host.pages.currentWidget()
        if isinstance(page, PresentsSteps) and page.present_step(forward):
            return
        index = PAGE_IDS.index(self._host.pages.current_page_id()) + (1 if forward else -1)
        if 0 <= index < len(PAGE_IDS):
            self._host.pages.show_page(PAGE_IDS[index])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not self._in_window(watched):
            return False
        assert isinstance(event, QKeyEvent)
        key = Qt.Key(event.key())
        focus = QApplication.focusWidget()
        if key in ARROWS and isinstance(focus, _EDITORS) and focus.isVisible():  # not the hidden sidebar's list
            return False
        if key == Qt.Key.Key_Escape:
            self.leave()
        elif key in FORWARD or key in BACK:
            self.step(key in FORWARD)
        else:
            return False
        return True

    def _in_window(self, watched: QObject) -> bool:
        return isinstance(watched, QWidget) and watched.window() is self._window

    def _set_high_contrast(self, on: bool, previous: QPalette | None = None) -> None:
        if self._theme is not None:
            self._theme.set_high_contrast(on)
        else:
            _app().setPalette(high_contrast_palette() if on else previous or QPalette())

    @staticmethod
    def _set_font_size(points: float) -> None:
        font = _app().font()
        font.setPointSizeF(points)
        _app().setFont(font)


def _app() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app
