"""gui.shell.nav_bar: one row per registered page; picking one asks for it, ``select`` does not."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.pages import PAGE_IDS, page_title
from gui.shell.nav_bar import NavBar


def test_rows_ask_for_their_page(qtbot: QtBot) -> None:
    nav = NavBar()
    qtbot.addWidget(nav)
    assert [nav.list.item(i).text() for i in range(nav.list.count())] == [page_title(p) for p in PAGE_IDS]
    asked: list[str] = []
    nav.page_requested.connect(asked.append)
    nav.list.setCurrentRow(2)
    assert asked == [PAGE_IDS[2]]
    nav.select(PAGE_IDS[4])
    assert asked == [PAGE_IDS[2]]
    assert nav.current_page_id() == PAGE_IDS[4]
