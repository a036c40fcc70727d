"""Switching the language at run time: every text changes, nothing the user set is lost, the choice is kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from engine.alignment import Stage
from engine.levers import LeverKind
from engine.specs import Method
from gui.look.theme import ThemeManager
from gui.settings import LANGUAGE_KEY, settings
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from gui.text import i18n
from gui.text.fonts import TC_FAMILY


def page_of(win: MainWindow, page_id: str) -> Any:
    return win.pages.page(page_id)


def current(win: MainWindow) -> Any:
    """The page on top, typed loosely: tests reach into page-specific attributes."""
    return win.pages.currentWidget()

@pytest.fixture
def window(qtbot: QtBot, theme: ThemeManager, qapp: QApplication) -> Iterator[MainWindow]:
    win = MainWindow(Scenario(), theme, initial_page="attention")
    qtbot.addWidget(win)
    win.resize(1200, 760)
    yield win
    i18n.set_language(qapp, "en")


def labels(win: MainWindow) -> set[str]:
    return {w.text() for w in current(win).findChildren(QLabel)}


def test_switch_changes_texts_and_keeps_everything(window: MainWindow, qapp: QApplication) -> None:
    window.scenario.update(method=Method.LORA, seq_len=2048)
    attention = current(window)
    attention.apply_sentence("a b c d")
    attention.player.go(5)
    page_of(window, "serving").state.update(sequences=40)
    page_of(window, "levers").cards[LeverKind.LORA].step_selected.emit(2)
    page_of(window, "alignment").select(Stage.PPO)
    page_of(window, "alignment").controls.kl_zero.setChecked(True)
    window.pages.show_page("attention")
    geometry = window.geometry()
    assert "Attention, one step at a time" in labels(window)

    window.actions_by_id["lang:zh_TW"].trigger()

    assert "注意力，一步一步算" in labels(window)
    assert window.windowTitle() == "VRAM Lab — 注意力"
    assert [a.text() for a in window.menuBar().actions()] == ["檔案(&F)", "編輯(&E)", "檢視(&V)", "說明(&H)"]
    assert window.nav.list.item(0).text() == "記憶體"
    assert window.actions_by_id["lang:zh_TW"].isChecked()
    assert qapp.font().families()[0] == TC_FAMILY
    # nothing lost: the scenario, the page, the geometry and each page's own state
    assert (window.scenario.setup.method, window.scenario.setup.seq_len) == (Method.LORA, 2048)
    assert window.pages.current_page_id() == "attention"
    assert window.geometry() == geometry
    page = current(window)
    assert page is not attention
    assert (page.view_state()["sentence"], page.player.index) == ("a b c d", 5)
    assert page_of(window, "serving").state.value.sequences == 40
    assert page_of(window, "levers").view_state()["selected"]["lora"] == 2
    alignment = page_of(window, "alignment")
    assert alignment.view_state()["stage"] == "ppo"
    assert alignment.controls.kl_zero.isChecked()
    assert settings().value(LANGUAGE_KEY) == "zh_TW"

    window.actions_by_id["lang:en"].trigger()
    assert "Attention, one step at a time" in labels(window)
    assert qapp.font().families()[-1] == TC_FAMILY  # still there as the fallback for 繁體中文 in the menu
    assert settings().value(LANGUAGE_KEY) == "en"


def test_pages_not_yet_built_are_built_in_the_new_language(window: MainWindow) -> None:
    window.set_language("zh_TW")
    window.pages.show_page("levers")
    assert "槓桿" in labels(window)
