"""A stack of pages built on first show: the main window's content area.

Pages come from the registry (``gui.pages``); each is imported and constructed the first time it is shown (or
all at once by ``build_all`` for screenshots and the smoke test), so start-up pays only for the first page.

A page may keep state of its own (a walk-through's step, a page-local setting) across a rebuild of the window
(a language switch, presentation mode): it is a ``KeepsViewState`` (``gui.pages.contract``: ``view_state() ->
dict`` and ``restore_view_state(dict)``); ``view_states`` collects them and a new stack given ``states`` hands
each back when it builds that page.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QStackedWidget, QWidget

from gui.pages import PAGE_IDS, create_page
from gui.pages.contract import KeepsViewState
from gui.state.scenario import Scenario


class PageStack(QStackedWidget):
    """One slot per registered page; a slot holds an empty widget until its page is built.

    Signals:
        page_shown(str): the page id now on top.
    """

    page_shown = Signal(str)

    def __init__(
        self, scenario: Scenario, parent: QWidget | None = None, states: dict[str, dict[str, Any]] | None = None
    ) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self._states = dict(states or {})
        self._built: dict[str, QWidget] = {}
        for page_id in PAGE_IDS:
            slot = QWidget(self)
            slot.setObjectName(f"slot-{page_id}")
            self.addWidget(slot)

    def page(self, page_id: str) -> QWidget:
        """The page, built now if it was not yet."""
        if page_id not in self._built:
            index = PAGE_IDS.index(page_id)
            slot = self.widget(index)
            page = create_page(page_id, self._scenario, self)
            if slot is not None:
                self.removeWidget(slot)
                slot.deleteLater()
            self.insertWidget(index, page)
            self._built[page_id] = page
            if page_id in self._states and isinstance(page, KeepsViewState):
                page.restore_view_state(self._states.pop(page_id))
        return self._built[page_id]

    def view_states(self) -> dict[str, dict[str, Any]]:
        """Each page's own state (pages that keep some), plus states handed over but not yet used."""
        states = dict(self._states)
        for page_id, page in self._built.items():
            if isinstance(page, KeepsViewState):
                states[page_id] = page.view_state()
        return states

    def is_built(self, page_id: str) -> bool:
        return page_id in self._built

    def current_page_id(self) -> str:
        return PAGE_IDS[self.currentIndex()]

    def show_page(self, page_id: str) -> None:
        """Bring a page to the top (building it first if needed)."""
        self.setCurrentWidget(self.page(page_id))
        self.page_shown.emit(page_id)

    def build_all(self) -> None:
        for page_id in PAGE_IDS:
            self.page(page_id)
