"""Widgets built later than their page: a tab page built the first time it is shown (or asked for), so that a
page's first paint does not pay for tabs nobody has opened yet (their charts are pyqtgraph widgets, tens of
milliseconds each to build); and a view built just after its first paint (``LazyView``), so that the window's
first paint does not wait for a page's charts (nor for pyqtgraph's import: bench/startup.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QCoreApplication, QEvent, QTimer
from PySide6.QtGui import QPaintEvent, QShowEvent
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


class LazyView(LazyTab[W]):
    """Holds the widget ``make()`` builds, building it in the event-loop turn after this holder's first paint (an
    empty area of the holder's size), or at once when :meth:`content` is asked for (an export, a test, a flush);
    then ``built(widget)`` draws the page's data into it. Give the holder the view's minimum size, so that nothing
    moves when the view arrives.

    Signals: none.
    """

    def __init__(self, make: Callable[[], W], built: Callable[[W], None], parent: QWidget | None = None) -> None:
        super().__init__(make, parent)
        self._built = built
        self._scheduled = False

    def content(self) -> W:
        """The view, built (and drawn) now if it was not yet."""
        first = self._content is None
        widget = super().content()
        if first:
            shown = self.isVisible()
            if shown:  # laid out and shown now, not on a later turn: an export may grab it at once
                widget.show()
                layout = self.layout()
                assert layout is not None
                layout.activate()
            self._built(widget)
            if shown:  # and its inner layouts done (a pyqtgraph plot's axes are sized by posted layout requests)
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        return widget

    def showEvent(self, event: QShowEvent) -> None:
        QWidget.showEvent(self, event)  # not built on show: after the first paint

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._scheduled and self._content is None:
            self._scheduled = True
            QTimer.singleShot(0, self, self.content)
