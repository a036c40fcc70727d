"""Light and dark themes: follow the OS colour scheme (Qt 6.5+ ``QStyleHints.colorScheme``) unless the
View menu forces one.

The application runs the Fusion style (``gui.look.style.AppStyle``: its indicators outlined) with one of two explicit
palettes, so that both themes look the same on every platform (and offscreen, where the OS reports no scheme and the
light theme is used). Charts read their colours from ``gui.look.palette``, which keys off the resulting ``QPalette``.
"""

from __future__ import annotations

from enum import StrEnum

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from gui.look import palette as colours
from gui.look.style import AppStyle

_ROLE = QPalette.ColorRole


class ThemeMode(StrEnum):
    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


def _build_palette(c: colours.Colors, *, window: str, base: str, button: str, highlight: str, link: str) -> QPalette:
    pal = QPalette()
    for role, value in (
        (_ROLE.Window, window), (_ROLE.WindowText, c.foreground), (_ROLE.Base, base),
        (_ROLE.AlternateBase, button), (_ROLE.Text, c.foreground), (_ROLE.Button, button),
        (_ROLE.ButtonText, c.foreground), (_ROLE.ToolTipBase, base), (_ROLE.ToolTipText, c.foreground),
        (_ROLE.PlaceholderText, c.muted), (_ROLE.Highlight, highlight), (_ROLE.HighlightedText, "#ffffff"),
        (_ROLE.Link, link), (_ROLE.Mid, c.grid), (_ROLE.Midlight, button), (_ROLE.Dark, c.muted),
    ):  # fmt: skip
        pal.setColor(role, QColor(value))
    for role in (_ROLE.WindowText, _ROLE.Text, _ROLE.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(c.muted))
    return pal


def light_palette() -> QPalette:
    return _build_palette(
        colours.LIGHT, window="#f3f5f8", base="#ffffff", button="#e7ebf0", highlight="#2f6fd0", link="#1f5fbf"
    )


def dark_palette() -> QPalette:
    return _build_palette(
        colours.DARK, window="#23262d", base="#1b1d22", button="#2f333b", highlight="#2f6fd0", link="#7fb0ff"
    )


def high_contrast_palette() -> QPalette:
    """Presentation mode's palette: white on black (``gui.look.palette.HIGH_CONTRAST``)."""
    return _build_palette(
        colours.HIGH_CONTRAST, window="#000000", base="#262626", button="#333333", highlight="#0a58ca", link="#8cc8ff"
    )


def system_is_dark() -> bool:
    """Whether the OS asks for a dark scheme (``False`` when it says nothing, e.g. offscreen)."""
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


class ThemeManager(QObject):
    """Applies a theme to the application and re-applies it when the OS scheme changes in SYSTEM mode.

    Signals:
        changed(str): the mode now in force (a ``ThemeMode`` value), emitted when it is set, and when the OS
            scheme changes in SYSTEM mode (the palette changed: windows rebuild their pages).
    """

    changed = Signal(str)

    def __init__(self, app: QApplication, mode: ThemeMode = ThemeMode.SYSTEM) -> None:
        super().__init__(app)
        self._app = app
        self._mode = mode
        self._high_contrast = False
        app.setStyle(AppStyle())
        app.styleHints().colorSchemeChanged.connect(self._on_scheme_changed)
        self._apply()

    @property
    def mode(self) -> ThemeMode:
        return self._mode

    def is_dark(self) -> bool:
        """Whether the theme in force is the dark one."""
        return self._mode is ThemeMode.DARK or (self._mode is ThemeMode.SYSTEM and system_is_dark())

    def set_mode(self, mode: ThemeMode) -> None:
        """Force light or dark, or follow the OS again."""
        if mode is not self._mode:
            self._mode = mode
            self._apply()
            self.changed.emit(mode.value)

    def set_high_contrast(self, on: bool) -> None:
        """Presentation mode's palette over the chosen theme (``False`` goes back to the theme)."""
        self._high_contrast = on
        self._apply()

    def _on_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self._mode is ThemeMode.SYSTEM:
            self._apply()
            self.changed.emit(self._mode.value)

    def _apply(self) -> None:
        if self._high_contrast:
            self._app.setPalette(high_contrast_palette())
        else:
            self._app.setPalette(dark_palette() if self.is_dark() else light_palette())
