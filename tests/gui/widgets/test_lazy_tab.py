"""gui.widgets.lazy_tab: a tab built on its first show; a view built the turn after its first paint, or when asked."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.widgets.lazy_tab import LazyTab, LazyView


def _host(qtbot: QtBot, child: QWidget) -> QWidget:
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(300, 200)
    QVBoxLayout(window).addWidget(child)
    child.setParent(window)
    return window


def test_a_tab_is_built_on_its_first_show(qtbot: QtBot) -> None:
    tab: LazyTab[QLabel] = LazyTab(lambda: QLabel("tab"))
    window = _host(qtbot, tab)
    assert not tab.built
    window.show()
    assert tab.built


def test_a_view_waits_for_its_first_paint_then_builds_and_is_drawn_into(qtbot: QtBot) -> None:
    drawn: list[str] = []
    view: LazyView[QLabel] = LazyView(lambda: QLabel(""), lambda label: drawn.append(label.text() or "drawn"))
    window = _host(qtbot, view)
    window.show()
    assert not view.built  # shown, not yet painted: the first paint does not wait for it
    qtbot.waitUntil(lambda: view.built, timeout=2000)
    assert drawn == ["drawn"]
    assert view.content().isVisible()


def test_asking_for_a_view_builds_it_at_once_laid_out_at_the_holders_size(qtbot: QtBot) -> None:
    drawn: list[QLabel] = []
    view: LazyView[QLabel] = LazyView(lambda: QLabel("chart"), drawn.append)
    window = _host(qtbot, view)
    window.setUpdatesEnabled(False)  # no paint: only the ask builds it
    window.show()
    label = view.content()
    assert drawn == [label]
    assert label.isVisible()
    assert label.size() == view.size()  # an export may grab it at once
    assert view.content() is label
    assert drawn == [label]  # built and drawn once


def test_a_view_never_shown_is_built_only_when_asked(qtbot: QtBot) -> None:
    view: LazyView[QLabel] = LazyView(lambda: QLabel("chart"), lambda _: None)
    window = _host(qtbot, view)
    qtbot.wait(20)
    assert not view.built
    assert view.content().text() == "chart"
    assert not window.isVisible()
