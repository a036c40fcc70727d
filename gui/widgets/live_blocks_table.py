"""The largest blocks live at a snapshot's measured peak: size, term, phase, when allocated, and the frames.

Rows are the engine's ``LiveBlock``s (``engine.snapshot.attribution``; the report keeps the 20 largest), in its
order; the frames column shows the innermost few frames and the tooltip all of them, as the engine formatted them.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from engine.snapshot.attribution import LiveBlock
from engine.units import Unit, format_bytes
from gui.text.words import phase_name, term_title

# frames shown in the cell (innermost first); the tooltip has them all
SHOWN_FRAMES = 3


class LiveBlocksTable(QTableWidget):
    """A read-only table of live blocks.

    Signals: none; call :meth:`show_blocks`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 5, parent)
        self.setHorizontalHeaderLabels([self.tr("Size"), self.tr("Term"), self.tr("Phase"), self.tr("Allocated at"),
                                        self.tr("Stack frames (innermost first)")])
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        for column in range(4):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)

    def show_blocks(self, blocks: Sequence[LiveBlock], unit: Unit) -> None:
        self.setRowCount(len(blocks))
        for row, b in enumerate(blocks):
            when = self.tr("before recording") if b.event < 0 else self.tr("event {n}").format(n=f"{b.event:,}")
            frames = " ← ".join(b.frames[:SHOWN_FRAMES]) if b.frames else self.tr("(no frames recorded)")
            cells = [format_bytes(b.bytes, unit), term_title(b.term), phase_name(b.phase), when, frames]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 4 and b.frames:
                    item.setToolTip("\n".join(b.frames))
                self.setItem(row, column, item)
