"""Fixtures for GUI tests: a theme manager that is removed (and the palette reset) after each test, and the main
window over a default scenario."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.look.theme import ThemeManager, ThemeMode, light_palette
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario


@pytest.fixture
def theme(qapp: QApplication) -> Iterator[ThemeManager]:
    manager = ThemeManager(qapp, ThemeMode.LIGHT)
    yield manager
    shiboken6.delete(manager)
    qapp.setPalette(light_palette())


@pytest.fixture
def window(qtbot: QtBot, theme: ThemeManager) -> MainWindow:
    """The app's main window over a default scenario, closed by pytest-qt after the test."""
    win = MainWindow(Scenario(), theme)
    qtbot.addWidget(win)
    return win
