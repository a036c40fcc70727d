"""The page registry: which pages the main window shows, in order, and where each one's class lives.

Each page is one line here. Modules are imported only when
the page is first shown, which keeps start-up fast.

The page contract::

    class MemoryPage(QWidget):
        page_id = "memory"
        def __init__(self, scenario: Scenario, parent: QWidget | None = None): ...
        def title(self) -> str: return page_title(self.page_id)

A page takes the shared ``Scenario`` in its constructor, declares the scenario fields it reads (it recomputes
only when ``scenario.changed`` names one) and can be built and tested on its own, without the main window.

What the main window may ask of a page is typed in ``gui.pages.contract`` (``Page``, and the optional
``ExportsChart``, ``ExportsBreakdown``, ``PresentsSteps``, ``KeepsViewState``), so it needs no page-specific code.
A page's own state is a ``gui.state.page_state.PageState``; it recomputes by ``gui.state.recompute``'s one policy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

from gui.text.tr import QT_TRANSLATE_NOOP, translate

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from gui.state.scenario import Scenario


class PageEntry(NamedTuple):
    """One page: its id (used by ``--page`` and in file names), its class, its title (source text)."""

    page_id: str
    module: str
    class_name: str
    title: str


PAGES: tuple[PageEntry, ...] = (
    PageEntry("memory", "gui.pages.memory", "MemoryPage", QT_TRANSLATE_NOOP("pages", "Memory")),
    PageEntry("attention", "gui.pages.attention", "AttentionPage", QT_TRANSLATE_NOOP("pages", "Attention")),
    PageEntry("levers", "gui.pages.levers", "LeversPage", QT_TRANSLATE_NOOP("pages", "Levers")),
    PageEntry("alignment", "gui.pages.alignment", "AlignmentPage", QT_TRANSLATE_NOOP("pages", "Alignment")),
    PageEntry("serving", "gui.pages.serving", "ServingPage", QT_TRANSLATE_NOOP("pages", "Serving")),
    PageEntry("timeline", "gui.pages.timeline", "TimelinePage", QT_TRANSLATE_NOOP("pages", "Timeline")),
)

PAGE_IDS: tuple[str, ...] = tuple(p.page_id for p in PAGES)


def entry(page_id: str) -> PageEntry:
    """The registry entry of a page id (``KeyError`` if unknown)."""
    for page in PAGES:
        if page.page_id == page_id:
            return page
    raise KeyError(page_id)


def page_title(page_id: str) -> str:
    """A page's translated title (what the navigation and the page itself show)."""
    return translate("pages", entry(page_id).title)


def create_page(page_id: str, scenario: Scenario, parent: QWidget | None = None) -> QWidget:
    """Import the page's module (first time only) and build the page."""
    page = entry(page_id)
    cls = getattr(importlib.import_module(page.module), page.class_name)
    widget: QWidget = cls(scenario, parent)
    return widget
