"""The main window: composes the navigation, the page stack and the menus, and wires them. No behaviour of
its own beyond remembering its geometry (QSettings) between runs."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray
from PySide6.QtGui import QCloseEvent, QIcon
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QWidget

from gui.about import AboutDialog
from gui.menus import build_menus
from gui.pages import PAGE_IDS, page_title
from gui.resources import find_asset
from gui.scenario import Scenario
from gui.settings import GEOMETRY_KEY, THEME_KEY, settings
from gui.theme import ThemeManager, ThemeMode
from gui.widgets.nav_bar import NavBar
from gui.widgets.page_stack import PageStack

DEFAULT_SIZE = (1280, 800)


class MainWindow(QMainWindow):
    """Navigation on the left, the current page on the right, menus on top.

    Signals: none of its own (see ``NavBar.page_requested`` and ``PageStack.page_shown``).
    """

    def __init__(
        self,
        scenario: Scenario,
        theme: ThemeManager | None = None,
        initial_page: str = PAGE_IDS[0],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.scenario = scenario
        self.theme = theme
        icon = find_asset("icons/vramlab.svg")
        if icon is not None:
            self.setWindowIcon(QIcon(str(icon)))
        self.nav = NavBar(self)
        self.pages = PageStack(scenario, self)
        central = QWidget(self)
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.nav)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)
        self.actions_by_id = build_menus(self.menuBar(), self._handlers())
        self.nav.page_requested.connect(self.pages.show_page)
        self.pages.page_shown.connect(self._on_page_shown)
        self._sync_theme_actions()
        self._restore_geometry()
        self.pages.show_page(initial_page)

    def _handlers(self) -> dict[str, Callable[..., object]]:
        handlers: dict[str, Callable[..., object]] = {"quit": self.close, "about": self.show_about}
        for page_id in PAGE_IDS:
            handlers[f"page:{page_id}"] = lambda _c=False, p=page_id: self.pages.show_page(p)
        for mode in ThemeMode:
            handlers[f"theme:{mode.value}"] = lambda _c=False, m=mode: self._set_theme(m)
        return handlers

    def show_about(self) -> None:
        AboutDialog(self).exec()

    def _on_page_shown(self, page_id: str) -> None:
        self.nav.select(page_id)
        self.setWindowTitle(self.tr("VRAM Lab — {page}").format(page=page_title(page_id)))

    def _set_theme(self, mode: ThemeMode) -> None:
        if self.theme is not None:
            self.theme.set_mode(mode)
            settings().setValue(THEME_KEY, mode.value)

    def _sync_theme_actions(self) -> None:
        mode = self.theme.mode if self.theme is not None else ThemeMode.SYSTEM
        self.actions_by_id[f"theme:{mode.value}"].setChecked(True)

    def _restore_geometry(self) -> None:
        saved = settings().value(GEOMETRY_KEY)
        if not (isinstance(saved, QByteArray) and self.restoreGeometry(saved)):
            self.resize(*DEFAULT_SIZE)

    def closeEvent(self, event: QCloseEvent) -> None:
        settings().setValue(GEOMETRY_KEY, self.saveGeometry())
        super().closeEvent(event)
