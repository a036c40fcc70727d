"""Fixtures for GUI tests: a theme manager that is removed (and the palette reset) after each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication

from gui.theme import ThemeManager, ThemeMode, light_palette


@pytest.fixture
def theme(qapp: QApplication) -> Iterator[ThemeManager]:
    manager = ThemeManager(qapp, ThemeMode.LIGHT)
    yield manager
    shiboken6.delete(manager)
    qapp.setPalette(light_palette())
