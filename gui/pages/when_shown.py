"""Recompute a page now while it is on screen, or once when it is next shown.

A slider drag on one page changes the shared scenario for every page; hidden pages should not pay for it. The
first request (while the page has never been shown) always runs, so a page is never built empty.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class WhenShown(QObject):
    """Runs ``run`` on :meth:`request` if ``page`` is visible or was never shown; else on its next show.

    Signals: none (it watches the page's Show events through an event filter).
    """

    def __init__(self, page: QWidget, run: Callable[[], None]) -> None:
        super().__init__(page)
        self._page, self._run = page, run
        self._shown_once = self._stale = False
        page.installEventFilter(self)

    def request(self) -> None:
        self._stale = self._shown_once and not self._page.isVisible()
        if not self._stale:
            self._run()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._page and event.type() == QEvent.Type.Show:
            self._shown_once = True
            if self._stale:
                self._stale = False
                self._run()
        return False
