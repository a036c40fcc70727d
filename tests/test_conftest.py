"""The suite's own guards: the leak check sees a running timer; settings are isolated."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from gui.settings import settings
from tests.conftest import leaked_timers_and_threads


def test_leak_check_sees_an_active_timer(qtbot: QtBot) -> None:
    timer = QTimer()
    timer.start(10_000)
    assert any("QTimer" in leak for leak in leaked_timers_and_threads())
    timer.stop()
    assert leaked_timers_and_threads() == []


def test_settings_live_in_the_test_folder(isolated_settings: Path) -> None:
    store = settings()
    store.setValue("probe", 1)
    store.sync()
    assert Path(store.fileName()).is_relative_to(isolated_settings)
