"""gui.pages.page_stack: pages built on first show, and each page's own state kept across a rebuild."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.pages import PAGE_IDS
from gui.pages.page_stack import PageStack
from gui.state.scenario import Scenario


def test_pages_are_built_when_first_shown(qtbot: QtBot) -> None:
    stack = PageStack(Scenario())
    qtbot.addWidget(stack)
    shown: list[str] = []
    stack.page_shown.connect(shown.append)
    assert not any(stack.is_built(p) for p in PAGE_IDS)
    stack.show_page("levers")
    assert stack.is_built("levers")
    assert not stack.is_built("memory")
    assert stack.current_page_id() == "levers"
    assert shown == ["levers"]
    assert stack.page("levers") is stack.currentWidget()


def test_view_states_travel_to_a_new_stack(qtbot: QtBot) -> None:
    scenario = Scenario()
    old = PageStack(scenario)
    qtbot.addWidget(old)
    old.page("serving").state.update(sequences=40)  # type: ignore[attr-defined]
    states = old.view_states()
    assert states["serving"]["serving"]["sequences"] == 40
    assert "memory" not in states  # never built: nothing of its own to keep
    new = PageStack(scenario, states=states)
    qtbot.addWidget(new)
    assert new.view_states()["serving"] == states["serving"]  # handed over, not yet used
    assert new.page("serving").state.value.sequences == 40  # type: ignore[attr-defined]
