"""The main window: composes the navigation, the page stack and the menus, and wires them to the controllers
that own each behaviour: ``ScenarioFiles`` (open, save, recent, reset), ``ExportActions`` (charts and tables),
``Presentation`` (F5), the language (``gui.text.i18n``), ``ConfigImports`` (File ▸ Import training config),
``ScenarioHistory`` (Edit ▸ Undo / Redo), ``FileDrop`` (files dropped on the window) and the Lessons drawer
(``LessonsDock``, View ▸ Lessons). Its own job is to remember its geometry and to rebuild its pages and menus when
the language, the theme or the type size changes, keeping the scenario, the current page, each page's own state
(``PageStack.view_states``) and the geometry.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QCoreApplication
from PySide6.QtGui import QAction, QCloseEvent, QIcon
from PySide6.QtWidgets import QApplication, QHBoxLayout, QMainWindow, QMenu, QMenuBar, QWidget

from gui.actions import snapshot_open
from gui.actions.config_imports import ConfigImports
from gui.actions.exports import ExportActions
from gui.actions.file_drop import FileDrop
from gui.actions.scenario_files import ScenarioFiles
from gui.files.file_kind import FileKind
from gui.lessons.dock import LessonsDock
from gui.look.theme import ThemeManager, ThemeMode
from gui.pages import PAGE_IDS, page_title
from gui.pages.page_stack import PageStack
from gui.resources import find_asset
from gui.settings import GEOMETRY_KEY, THEME_KEY, settings
from gui.shell.menus import PRESENTATION_SCALES, build_menus
from gui.shell.nav_bar import NavBar
from gui.shell.presentation import Presentation
from gui.state.scenario import Scenario
from gui.state.scenario_history import ScenarioHistory
from gui.text import i18n

DEFAULT_SIZE = (1280, 800)


class MainWindow(QMainWindow):
    """Navigation on the left, the current page on the right, menus on top.

    Signals: none of its own (see ``NavBar.page_requested``, ``PageStack.page_shown``,
    ``Presentation.active_changed``).
    """

    def __init__(
        self,
        scenario: Scenario,
        theme: ThemeManager | None = None,
        initial_page: str = PAGE_IDS[0],
        parent: QWidget | None = None,
        scenario_path: Path | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.scenario = scenario
        self.theme = theme
        icon = find_asset("icons/vramlab.svg")
        if icon is not None:
            self.setWindowIcon(QIcon(str(icon)))
        self.history = ScenarioHistory(scenario, self)
        self.files = ScenarioFiles(self, scenario, scenario_path, self.history)
        self.imports = ConfigImports(self, scenario, self.history, self.show_page)
        self.drops = FileDrop(self, {FileKind.TRAINING_CONFIG: self.imports.import_paths,
                                     FileKind.MODEL: self.imports.import_model,
                                     FileKind.SCENARIO: lambda paths: self.files.open_path(paths[0])})
        self.exports = ExportActions(self, self.current_page)
        self.presentation = Presentation(self, self, theme)
        self._window_actions: list[QAction] = []
        self.lessons = LessonsDock(self)
        self._build(initial_page, {})
        self._restore_geometry()
        self.lessons.open_changed.connect(self._sync_lessons_action)
        self.lessons.restore()
        if theme is not None:
            theme.changed.connect(self._on_theme_changed)

    def _build(self, page_id: str, states: dict[str, dict[str, Any]]) -> None:
        self.nav = NavBar(self)
        self.pages = PageStack(self.scenario, self, states)
        central = QWidget(self)
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.nav)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)  # deletes the previous one
        self._build_menus()
        self.nav.page_requested.connect(self.pages.show_page)
        self.pages.page_shown.connect(self._on_page_shown)
        self.pages.show_page(page_id)
        self.lessons.attach(self.scenario, self.pages, self.history)
        for widget in self.chrome():
            widget.setVisible(not self.presentation.active)

    def _build_menus(self) -> None:
        self.setMenuBar(QMenuBar(self))  # deletes the previous one
        self.actions_by_id = build_menus(self.menuBar(), self._handlers())
        for action in self._window_actions:
            self.removeAction(action)
        self._window_actions = [a for a in self.actions_by_id.values() if not a.shortcut().isEmpty()]
        self.addActions(self._window_actions)  # shortcuts keep working while the menu bar is hidden
        self.actions_by_id["present"].setCheckable(True)
        self.actions_by_id["present"].setChecked(self.presentation.active)
        self.actions_by_id["lessons"].setCheckable(True)
        self.actions_by_id["lessons"].setChecked(self.lessons.saved_open())
        self.actions_by_id[f"scale:{self.presentation.scale}"].setChecked(True)
        self.actions_by_id[f"lang:{i18n.current_language(_app())}"].setChecked(True)
        recent = self.actions_by_id["menu:recent"].menu()
        assert isinstance(recent, QMenu)
        self.files.attach_recent_menu(recent)
        self.history.attach(self.actions_by_id["undo"], self.actions_by_id["redo"])
        self._sync_theme_actions()

    def _handlers(self) -> dict[str, Callable[..., object]]:
        handlers: dict[str, Callable[..., object]] = {"quit": self.close, "about": self.show_about,
                                                      "present": lambda _c=False: self.presentation.toggle(),
                                                      "lessons": self.lessons.set_open}
        handlers.update(self.files.handlers())
        handlers.update(self.imports.handlers())
        handlers.update(self.history.handlers())
        handlers.update(self.exports.handlers())
        handlers.update(snapshot_open.handlers(self, self))
        for page_id in PAGE_IDS:
            handlers[f"page:{page_id}"] = lambda _c=False, p=page_id: self.pages.show_page(p)
        for mode in ThemeMode:
            handlers[f"theme:{mode.value}"] = lambda _c=False, m=mode: self._set_theme(m)
        for n in PRESENTATION_SCALES:
            handlers[f"scale:{n}"] = lambda _c=False, n=n: self.presentation.set_scale(n)
        for code in i18n.LANGUAGES:
            handlers[f"lang:{code}"] = lambda _c=False, c=code: self.set_language(c)
        return handlers

    def show_page(self, page_id: str) -> QWidget:
        """Bring a page to the top (built if need be) and return it."""
        self.pages.show_page(page_id)
        return self.pages.page(page_id)

    def current_page(self) -> QWidget | None:
        return self.pages.currentWidget()

    def chrome(self) -> list[QWidget]:
        """What presentation mode hides: the sidebar and the menu bar."""
        return [self.nav, self.menuBar()]

    def rebuild(self) -> None:
        """Build the navigation, pages and menus again, in the current language, palette and type size."""
        QCoreApplication.sendPostedEvents()  # deliver the new palette and font first: new widgets inherit them
        self._build(self.pages.current_page_id(), self.pages.view_states())

    def set_language(self, language: str) -> None:
        """Switch the user interface to ``language`` now (remembered for the next start)."""
        i18n.set_language(_app(), language, remember=True)
        self.rebuild()

    def show_about(self) -> None:
        from gui.shell.about import AboutDialog  # imported when asked for: not before the first paint

        AboutDialog(self).exec()

    def _on_page_shown(self, page_id: str) -> None:
        self.nav.select(page_id)
        self.setWindowTitle(self.tr("VRAM Lab — {page}").format(page=page_title(page_id)))
        for action_id, on in self.exports.enabled().items():
            self.actions_by_id[action_id].setEnabled(on)

    def _set_theme(self, mode: ThemeMode) -> None:
        if self.theme is not None:
            self.theme.set_mode(mode)
            settings().setValue(THEME_KEY, mode.value)

    def _on_theme_changed(self, _mode: str) -> None:
        """A new palette: build the pages again in it, as for a new language (charts and coloured labels take
        their colours when they are drawn; presentation mode keeps its own palette)."""
        if not self.presentation.active:
            self.rebuild()
        self._sync_theme_actions()

    def _sync_lessons_action(self, on: bool) -> None:
        self.actions_by_id["lessons"].setChecked(on)

    def _sync_theme_actions(self) -> None:
        mode = self.theme.mode if self.theme is not None else ThemeMode.SYSTEM
        self.actions_by_id[f"theme:{mode.value}"].setChecked(True)

    def _restore_geometry(self) -> None:
        saved = settings().value(GEOMETRY_KEY)
        if not (isinstance(saved, QByteArray) and self.restoreGeometry(saved)):
            self.resize(*DEFAULT_SIZE)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.presentation.leave()
        settings().setValue(GEOMETRY_KEY, self.saveGeometry())
        super().closeEvent(event)


def _app() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app
