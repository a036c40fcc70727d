"""gui.menus: menus built from data, handlers wired by action id."""

from __future__ import annotations

from PySide6.QtWidgets import QMenuBar
from pytestqt.qtbot import QtBot

from gui.menus import MENUS, build_menus
from gui.pages import PAGE_IDS


def test_every_action_is_built_and_wired(qtbot: QtBot) -> None:
    bar = QMenuBar()
    qtbot.addWidget(bar)
    fired: list[str] = []
    ids = [s.action_id for _, specs in MENUS for s in specs if s.action_id not in {"-", "pages"}]
    ids += [f"page:{p}" for p in PAGE_IDS]
    actions = build_menus(bar, {i: (lambda _c=False, i=i: fired.append(i)) for i in ids})
    assert set(actions) == set(ids)
    for action_id in ids:
        actions[action_id].trigger()
    assert fired == ids


def test_theme_choices_are_exclusive(qtbot: QtBot) -> None:
    bar = QMenuBar()
    qtbot.addWidget(bar)
    actions = build_menus(bar, {})
    actions["theme:dark"].setChecked(True)
    actions["theme:light"].setChecked(True)
    assert not actions["theme:dark"].isChecked()
