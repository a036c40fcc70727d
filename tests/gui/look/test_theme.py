"""gui.look.theme: explicit light and dark palettes, SYSTEM follows the OS colour scheme."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.look.palette import is_dark
from gui.look.style import AppStyle
from gui.look.theme import ThemeManager, ThemeMode, dark_palette, light_palette


def test_palettes_are_what_they_say() -> None:
    assert is_dark(dark_palette())
    assert not is_dark(light_palette())


def test_set_mode_applies_and_signals(qtbot: QtBot, qapp: QApplication, theme: ThemeManager) -> None:
    with qtbot.waitSignal(theme.changed, timeout=1000) as signal:
        theme.set_mode(ThemeMode.DARK)
    assert signal.args == ["dark"]
    assert theme.is_dark()
    assert is_dark(qapp.palette())
    style = qapp.style()
    assert isinstance(style, AppStyle)
    assert style.baseStyle().name().lower() == "fusion"


def test_same_mode_does_not_signal(qtbot: QtBot, theme: ThemeManager) -> None:
    with qtbot.assertNotEmitted(theme.changed):
        theme.set_mode(ThemeMode.LIGHT)


def test_system_mode_follows_the_os_scheme(
    qapp: QApplication, theme: ThemeManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the offscreen platform cannot switch its scheme: stand in for the OS and send its signal
    scheme = {"dark": False}
    monkeypatch.setattr("gui.look.theme.system_is_dark", lambda: scheme["dark"])
    theme.set_mode(ThemeMode.SYSTEM)
    hints = qapp.styleHints()
    scheme["dark"] = True
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert theme.is_dark()
    assert is_dark(qapp.palette())
    scheme["dark"] = False
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert not is_dark(qapp.palette())


def test_forced_mode_ignores_the_os(qapp: QApplication, theme: ThemeManager) -> None:
    qapp.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert not is_dark(qapp.palette())
