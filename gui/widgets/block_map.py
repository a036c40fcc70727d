"""A map of KV-cache blocks: one cell per block, coloured by the request holding it, filled as far as used.

A block a request holds is drawn in that request's colour, pale where its token slots are reserved but empty
and solid where they hold tokens; free blocks are outlined only. Reserving the maximum length shows as long
pale bands; paged allocation as nearly solid cells. The widget shows what it is given (``show_frame``) and
computes nothing: frames come from ``engine.serving.simulate``.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from gui.look.follows_palette import FollowsPalette
from gui.look.palette import Colors, colors_for

#: how strongly a reserved but empty slot is tinted (0-255)
EMPTY_ALPHA = 60


class BlockMap(FollowsPalette, QWidget):
    """A grid of ``len(owner)`` blocks, ``columns`` per row, square cells scaled to the widget.

    Signals: none.
    """

    def __init__(self, blocks: int, columns: int = 32, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._columns = columns
        self._owner = np.full(blocks, -1, dtype=np.int32)
        self._fill = np.zeros(blocks, dtype=np.int32)
        self._block_size = 16
        self._colors: Colors = colors_for(self)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumSize(QSize(columns * 6, self.rows * 6))
        self.follow_palette()

    @property
    def rows(self) -> int:
        return -(-len(self._owner) // self._columns)

    def show_frame(self, owner: np.ndarray, fill: np.ndarray, block_size: int) -> None:
        """Show one frame: the owner of each block (-1 free) and the tokens each holds."""
        if len(owner) != len(self._owner):
            raise ValueError(f"expected {len(self._owner)} blocks, got {len(owner)}")
        self._owner, self._fill, self._block_size = owner, fill, block_size
        self.update()

    def owners(self) -> np.ndarray:
        """The block owners now shown (for tests and tooltips)."""
        return self._owner

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return max(self.minimumHeight(), width * self.rows // self._columns)

    def sizeHint(self) -> QSize:
        return QSize(self._columns * 14, self.rows * 14)

    def palette_changed(self) -> None:
        self._colors = colors_for(self)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        cell = min(self.width() / self._columns, self.height() / self.rows)
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(self._colors.background))
        hues = [QColor(c) for c in self._colors.terms.values()]
        grid = QPen(QColor(self._colors.grid))
        for i in range(len(self._owner)):
            rect = QRectF((i % self._columns) * cell, (i // self._columns) * cell, cell, cell).adjusted(1, 1, -1, -1)
            self._paint_block(painter, rect, i, hues, grid)
        painter.end()

    def _paint_block(self, painter: QPainter, rect: QRectF, i: int, hues: list[QColor], grid: QPen) -> None:
        owner, fill = int(self._owner[i]), int(self._fill[i])
        if owner < 0:
            painter.setPen(grid)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect)
            return
        hue = hues[owner % len(hues)]
        pale = QColor(hue)
        pale.setAlpha(EMPTY_ALPHA)
        painter.fillRect(rect, pale)
        if fill:
            used = rect.height() * fill / self._block_size
            painter.fillRect(QRectF(rect.left(), rect.bottom() - used, rect.width(), used), hue)
