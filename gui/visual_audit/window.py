"""Setting a main window up for one audit: language, theme or presentation scale, size, page, Lessons drawer.

A ``Look`` is what the user sees: the light or dark theme in a normal window, or presentation mode at a type scale
(presentation mode has its own high-contrast palette, whatever the theme). ``arrange`` changes only what differs
from the window's present state, so a test matrix reuses one window (a language or a scale rebuilds the pages).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from gui.look.theme import ThemeMode
from gui.pages import PAGE_IDS
from gui.pages.contract import Page
from gui.shell.main_window import MainWindow
from gui.text import i18n

LIGHT, DARK = "light", "dark"
_SCALE = "visual_audit_scale"  # window property: the presentation scale arrange() last set (settings may change)


@dataclass(frozen=True, slots=True)
class Look:
    """A normal window in a theme (``scale`` 0) or presentation mode at ``scale`` percent."""

    theme: str = LIGHT
    scale: int = 0

    def __str__(self) -> str:
        return f"present{self.scale}" if self.scale else self.theme


@dataclass(frozen=True, slots=True)
class Setup:
    """One audit: what the window shows."""

    page: str
    look: Look
    size: tuple[int, int]
    language: str
    lessons: bool = False

    def __str__(self) -> str:
        page = f"{self.page}+lessons" if self.lessons else self.page
        return f"{page}-{self.look}-{self.size[0]}x{self.size[1]}-{self.language}"


def arrange(window: MainWindow, setup: Setup) -> None:
    """Bring ``window`` to ``setup`` and let it settle (pending recomputes done, laid out, painted)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    if i18n.current_language(app) != setup.language:
        window.set_language(setup.language)
    _set_look(window, setup.look)
    if window.lessons.isVisible() != setup.lessons:
        window.lessons.set_open(setup.lessons)
    if window.size().toTuple() != setup.size:
        window.resize(*setup.size)
    window.pages.show_page(setup.page)
    settle(app, window)


def _set_look(window: MainWindow, look: Look) -> None:
    presentation = window.presentation
    if not look.scale:
        presentation.leave()
        if window.theme is not None and window.theme.mode != ThemeMode(look.theme):
            window.theme.set_mode(ThemeMode(look.theme))
        return
    if not presentation.active or window.property(_SCALE) != look.scale:
        presentation.set_scale(look.scale)
        window.setProperty(_SCALE, look.scale)
    presentation.enter()


def settle(app: QApplication, window: MainWindow) -> None:
    """Deliver pending events, finish the page's (and the drawer's) pending work, and paint everything twice:
    pyqtgraph sizes an axis for its labels only after it first paints them, so what the user sees a moment after
    a change is the second paint, not the first."""
    for _ in range(2):
        QCoreApplication.sendPostedEvents()
        app.processEvents()
        page = window.pages.currentWidget()
        if isinstance(page, Page):
            page.flush()
        panel = window.lessons.panel
        if panel is not None:
            panel.flush()
        app.processEvents()
        paint(window)


def paint(window: QWidget) -> None:
    """Paint the window and the whole of every scroll area's content (scrolled-out parts included) once."""
    window.grab()
    for area in window.findChildren(QScrollArea):
        content = area.widget()
        if area.isVisible() and content is not None:
            content.grab()
    QCoreApplication.sendPostedEvents()
    QApplication.processEvents()


LOOKS = (Look(LIGHT), Look(DARK), Look(scale=100), Look(scale=150), Look(scale=200))
SIZES = ((1280, 720), (1920, 1080))
LANGUAGES = ("en", "zh_TW")


def matrix(full: bool = True) -> list[Setup]:
    """Every page, and the Lessons drawer open on the memory page, in every look (light, dark, presentation at
    100%, 150%, 200%), size and language, ordered so that a window changes language and look as rarely as it can;
    ``full=False`` keeps one of the two sizes for each page, look and language, alternating (every page at every
    scale, in each language and theme, at least once)."""
    pages = [(page, False) for page in PAGE_IDS] + [(PAGE_IDS[0], True)]
    setups = []
    for li, language in enumerate(LANGUAGES):
        for ki, look in enumerate(LOOKS):
            for si, size in enumerate(SIZES):
                setups += [Setup(page, look, size, language, lessons) for pi, (page, lessons) in enumerate(pages)
                           if full or (pi + ki + li) % len(SIZES) == si]
    return setups
