"""gui.shell.presentation: F5 enters, a clicker's keys step through the attention steps and the pages, Esc restores."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.look.palette import HIGH_CONTRAST, colors_for
from gui.look.theme import ThemeManager
from gui.pages import PAGE_IDS
from gui.shell.main_window import MainWindow
from gui.shell.presentation import saved_scale
from gui.state.scenario import Scenario


def current(win: MainWindow) -> Any:
    """The page on top, typed loosely: tests reach into page-specific attributes."""
    return win.pages.currentWidget()

@pytest.fixture
def window(qtbot: QtBot, theme: ThemeManager) -> Iterator[MainWindow]:
    win = MainWindow(Scenario(), theme)
    qtbot.addWidget(win)
    win.resize(1100, 700)
    win.show()
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # shortcuts need an active window
    yield win
    win.presentation.leave()


def press(qtbot: QtBot, win: MainWindow, key: Qt.Key) -> None:
    target = QApplication.focusWidget() or win
    qtbot.keyClick(target, key)


def test_f5_enters_and_esc_restores_everything(qtbot: QtBot, window: MainWindow, qapp: QApplication) -> None:
    size, font, palette = window.size(), qapp.font().pointSizeF(), qapp.palette().color(qapp.palette().ColorRole.Window)
    window.scenario.update(batch=3)
    press(qtbot, window, Qt.Key.Key_F5)
    assert window.presentation.active
    assert window.isFullScreen()
    assert window.menuBar().isHidden()
    assert window.nav.isHidden()
    assert qapp.font().pointSizeF() == pytest.approx(font * saved_scale() / 100)
    assert colors_for(current(window)) is HIGH_CONTRAST  # white on black, lines twice as thick
    assert HIGH_CONTRAST.pen(2) == 4
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.presentation.active
    assert not window.isFullScreen()
    qtbot.waitUntil(lambda: window.menuBar().isVisible() and window.nav.isVisible())
    assert (window.size(), qapp.font().pointSizeF()) == (size, font)
    assert qapp.palette().color(qapp.palette().ColorRole.Window) == palette
    assert window.scenario.setup.batch == 3


def test_clicker_keys_step_through_attention_then_pages(qtbot: QtBot, window: MainWindow) -> None:
    window.actions_by_id["page:attention"].trigger()
    window.actions_by_id["present"].trigger()
    page = current(window)
    player = page.player
    assert player.index == 0
    for expected in range(1, player.count):
        press(qtbot, window, Qt.Key.Key_PageDown if expected % 2 else Qt.Key.Key_Right)
        assert (window.pages.current_page_id(), player.index) == ("attention", expected)
    press(qtbot, window, Qt.Key.Key_PageDown)  # past the last step: the next page
    assert window.pages.current_page_id() == "levers"
    press(qtbot, window, Qt.Key.Key_PageUp)
    assert window.pages.current_page_id() == "attention"
    press(qtbot, window, Qt.Key.Key_Left)  # back through the steps first
    assert (window.pages.current_page_id(), player.index) == ("attention", player.count - 2)
    player.first()
    press(qtbot, window, Qt.Key.Key_Up)
    assert window.pages.current_page_id() == "memory"
    player.stop()


def test_paging_stops_at_both_ends(qtbot: QtBot, window: MainWindow) -> None:
    window.presentation.enter()
    press(qtbot, window, Qt.Key.Key_PageUp)
    assert window.pages.current_page_id() == PAGE_IDS[0]
    window.pages.show_page(PAGE_IDS[-1])
    press(qtbot, window, Qt.Key.Key_PageDown)
    assert window.pages.current_page_id() == PAGE_IDS[-1]


def test_keys_are_untouched_outside_presentation_mode(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.keyClick(current(window), Qt.Key.Key_PageDown)
    assert window.pages.current_page_id() == "memory"


def test_scale_setting_is_remembered_and_applies_live(window: MainWindow, qapp: QApplication) -> None:
    base = qapp.font().pointSizeF()
    window.actions_by_id["scale:200"].trigger()
    assert saved_scale() == 200
    window.presentation.enter()
    assert qapp.font().pointSizeF() == pytest.approx(base * 2)
    window.actions_by_id["scale:125"].trigger()
    assert qapp.font().pointSizeF() == pytest.approx(base * 1.25)
    assert window.actions_by_id["scale:125"].isChecked()
    assert window.menuBar().isHidden()
    assert window.nav.isHidden()
    window.presentation.leave()
    assert qapp.font().pointSizeF() == pytest.approx(base)
