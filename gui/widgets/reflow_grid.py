"""Cells side by side when there is room, one under another when there is not.

A page that lays two charts (or a chart and a list) side by side needs twice their width: at a presentation's
type scale on a small screen there is no such width, and the page would scroll sideways. ``ReflowGrid`` places
its cells in ``columns`` columns while it is at least ``columns * cell_lines`` lines of its text wide (a size that
grows with the type, like the pages' others), and in one column below that.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QLayout, QWidget


class ReflowGrid(QWidget):
    """A grid of cells in reading order that drops to one column when narrow.

    Signals: none.
    """

    def __init__(self, cells: Sequence[QWidget], columns: int = 2, cell_lines: float = 18.0,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cells, self._columns, self._cell_lines = list(cells), columns, cell_lines
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # its least width: minimumSizeHint
        self._shown = 0
        self._place(columns)

    @property
    def columns(self) -> int:
        """The number of columns in use now."""
        return self._shown

    def columns_for(self, width: int) -> int:
        """How many columns fit ``width`` pixels."""
        return self._columns if width >= self._columns * self._cell_lines * self.fontMetrics().height() else 1

    def minimumSizeHint(self) -> QSize:
        """As narrow as one column: two are a choice made when there is room."""
        hint = super().minimumSizeHint()
        return QSize(max((cell.minimumSizeHint().width() for cell in self._cells), default=0), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        wanted = self.columns_for(event.size().width())
        if wanted != self._shown:
            self._place(wanted)

    def _place(self, columns: int) -> None:
        for cell in self._cells:
            self._grid.removeWidget(cell)
        for i, cell in enumerate(self._cells):
            self._grid.addWidget(cell, i // columns, i % columns)
        for c in range(self._columns):
            self._grid.setColumnStretch(c, 1 if c < columns else 0)
        self._shown = columns
