"""A tab page built the first time it is shown (or asked for), so that a page's first paint does not pay for tabs
nobody has opened yet (their charts are pyqtgraph widgets, tens of milliseconds each to build)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

W = TypeVar("W", bound=QWidget)


class LazyTab(QWidget, Generic[W]):
    """Holds the widget ``make()`` builds, building it on the first show or the first :meth:`content` call.

    Signals: none.
    """

    def __init__(self, make: Callable[[], W], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._make = make
        self._content: W | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> bool:
        return self._content is not None

    def content(self) -> W:
        """The tab's widget, built now if it was not yet."""
        if self._content is None:
            self._content = self._make()
            layout = self.layout()
            assert layout is not None
            layout.addWidget(self._content)
        return self._content

    def showEvent(self, event: QShowEvent) -> None:
        self.content()
        super().showEvent(event)
