"""gui.shell.menus: menus built from data, handlers wired by action id."""

from __future__ import annotations

from PySide6.QtWidgets import QMenuBar
from pytestqt.qtbot import QtBot

from gui.shell.menus import action_ids, build_menus


def test_every_action_is_built_and_wired(qtbot: QtBot) -> None:
    bar = QMenuBar()
    qtbot.addWidget(bar)
    fired: list[str] = []
    ids = [i for i in action_ids() if not i.startswith("menu:")]
    assert {"open", "save", "save_as", "reset", "export:png2", "export:svg", "export:csv", "copy:table", "present",
            "scale:150", "lang:zh_TW", "page:memory", "quit", "about"} <= set(ids)
    actions = build_menus(bar, {i: (lambda _c=False, i=i: fired.append(i)) for i in ids})
    assert set(actions) == set(action_ids())
    for action_id in ids:
        actions[action_id].trigger()
    assert fired == ids


def test_submenus_are_reachable(qtbot: QtBot) -> None:
    bar = QMenuBar()
    qtbot.addWidget(bar)
    actions = build_menus(bar, {})
    recent = actions["menu:recent"].menu()
    assert recent is not None
    language = actions["menu:language"].menu()
    assert [a.text() for a in language.actions()] == ["English", "繁體中文"]  # type: ignore[attr-defined]


def test_theme_choices_are_exclusive(qtbot: QtBot) -> None:
    bar = QMenuBar()
    qtbot.addWidget(bar)
    actions = build_menus(bar, {})
    actions["theme:dark"].setChecked(True)
    actions["theme:light"].setChecked(True)
    assert not actions["theme:dark"].isChecked()
