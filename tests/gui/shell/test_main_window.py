"""gui.shell.main_window: navigation, lazy pages, Ctrl+1..5, menus, theme actions, remembered geometry."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QKeySequence
from pytestqt.qtbot import QtBot

from gui.look.palette import is_dark
from gui.look.theme import ThemeManager, ThemeMode
from gui.pages import PAGE_IDS
from gui.settings import GEOMETRY_KEY, THEME_KEY, settings
from gui.shell.main_window import DEFAULT_SIZE, MainWindow
from gui.state.scenario import Scenario


def test_opens_on_the_first_page_and_builds_only_it(window: MainWindow) -> None:
    assert window.pages.current_page_id() == "memory"
    assert window.nav.current_page_id() == "memory"
    assert [window.pages.is_built(p) for p in PAGE_IDS] == [True] + [False] * (len(PAGE_IDS) - 1)
    assert "Memory" in window.windowTitle()


def test_initial_page(qtbot: QtBot, theme: ThemeManager) -> None:
    win = MainWindow(Scenario(), theme, initial_page="serving")
    qtbot.addWidget(win)
    assert win.pages.current_page_id() == "serving"


def test_navigation_switches_pages(window: MainWindow) -> None:
    window.nav.list.setCurrentRow(2)
    assert window.pages.current_page_id() == "levers"
    assert window.pages.is_built("levers")


def test_page_actions_have_ctrl_digit_shortcuts(window: MainWindow) -> None:
    for i, page_id in enumerate(PAGE_IDS, 1):
        action = window.actions_by_id[f"page:{page_id}"]
        assert action.shortcut() == QKeySequence(f"Ctrl+{i}")
        action.trigger()
        assert window.pages.current_page_id() == page_id
        assert window.nav.current_page_id() == page_id


def test_ctrl_digit_keys_switch_pages(qtbot: QtBot, window: MainWindow) -> None:
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    qtbot.keyClick(window.nav.list, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.pages.current_page_id() == "alignment"


def test_menus_are_file_edit_view_help(window: MainWindow) -> None:
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles == ["File", "Edit", "View", "Help"]
    assert {"quit", "about", "theme:light", "theme:dark", "theme:system", "import_config", "undo",
            "redo"} <= set(window.actions_by_id)


def test_theme_actions_switch_and_remember(qtbot: QtBot, window: MainWindow, theme: ThemeManager) -> None:
    assert window.actions_by_id["theme:light"].isChecked()
    window.actions_by_id["theme:dark"].trigger()
    assert theme.mode is ThemeMode.DARK
    qtbot.waitUntil(lambda: is_dark(window.palette()), timeout=1000)
    assert settings().value(THEME_KEY) == "dark"
    window.actions_by_id["theme:light"].trigger()
    qtbot.waitUntil(lambda: not is_dark(window.palette()), timeout=1000)


def test_geometry_is_remembered(qtbot: QtBot, theme: ThemeManager) -> None:
    first = MainWindow(Scenario(), theme)
    qtbot.addWidget(first)
    assert (first.width(), first.height()) == DEFAULT_SIZE
    first.resize(640, 480)  # within the offscreen screen (800x600): restoreGeometry fits windows to it
    first.close()
    assert isinstance(settings().value(GEOMETRY_KEY), QByteArray)
    second = MainWindow(Scenario(), theme)
    qtbot.addWidget(second)
    assert (second.width(), second.height()) == (640, 480)


def test_quit_action_closes(qtbot: QtBot, window: MainWindow) -> None:
    window.show()
    qtbot.waitExposed(window)
    window.actions_by_id["quit"].trigger()
    assert not window.isVisible()


def test_a_theme_change_builds_the_pages_again_in_its_colours(qtbot: QtBot, window: MainWindow,
                                                               theme: ThemeManager) -> None:
    """Issue 17: after View > Theme > Dark the charts kept their light background (pyqtgraph caches it) and the
    verdict, legend and roadmap their light-theme colours; the pages are now rebuilt, as for a language."""
    from gui.look.palette import DARK, colors_for

    before = window.pages.currentWidget()
    window.scenario.update(batch=2)
    window.actions_by_id["theme:dark"].trigger()
    page: Any = window.pages.currentWidget()
    assert page is not before
    assert colors_for(page.breakdown) is DARK
    assert window.scenario.setup.batch == 2  # nothing the user set is lost
    assert window.actions_by_id["theme:dark"].isChecked()
