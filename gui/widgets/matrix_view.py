"""A heat map of one small matrix: coloured cells, the numbers in them, token labels on rows and columns.

Rows are read top to bottom, as printed. Masked cells (−∞) get their own grey and the text ``−∞``; cells not
computed yet are left blank, so a page can reveal a product cell by cell (``set_shown``) and point at the row
and column being multiplied (``set_highlight``). Colours follow the theme (``gui.look.palette``) and are re-read on
a palette change. The view only shows numbers it is given; it computes none.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QWidget

from gui.look.palette import colors_for
from gui.widgets.cell_text import CellTextItem, cell_label
from gui.widgets.chart import Chart
from gui.widgets.heat_colors import cell_rgba, heat_colors, ink_for


def label_sizes(line: int) -> tuple[int, int]:
    """The row labels' axis width and the column labels' axis height for text ``line`` pixels tall (a larger
    type, presentation mode's, needs larger axes: pyqtgraph drops a label that does not fit its axis)."""
    return max(52, round(3.1 * line)), max(24, round(1.45 * line))


def chrome(line: int) -> tuple[int, int]:
    """Pixels around the cells (labels, title, frame), so that a layout can give every cell the same square size."""
    width, height = label_sizes(line)
    return width + 2, height + max(32, round(1.9 * line))


class MatrixView(Chart):
    """One matrix as a heat map with numbers; rows labelled on the left, columns on top."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._values: npt.NDArray[np.float64] = np.zeros((0, 0))
        self._shown: npt.NDArray[np.bool_] = np.zeros((0, 0), dtype=bool)
        self._title = ""
        self._by_row = False
        self._labels: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self._rgba = np.zeros((0, 0, 4), dtype=np.uint8)
        self._image = pg.ImageItem(axisOrder="row-major")
        self._text = CellTextItem()
        self._mark = QGraphicsRectItem()
        self._mark.setZValue(10)
        self._mark.hide()
        plot = self.getPlotItem()
        for item in (self._image, self._text, self._mark):
            plot.addItem(item)
        plot.invertY(True)
        plot.hideAxis("bottom")
        plot.showAxis("top")
        label_w, label_h = label_sizes(self.fontMetrics().height())
        plot.getAxis("left").setWidth(label_w)
        plot.getAxis("top").setHeight(label_h)
        plot.getViewBox().setDefaultPadding(0.0)
        self.setMinimumSize(90, 90)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a click focuses the page, whose keys drive the steps
        self._apply_theme()
        self.follow_palette()

    # -- what is shown ---------------------------------------------------------------------------------------
    def set_matrix(
        self, values: npt.NDArray[np.float64], rows: tuple[str, ...], cols: tuple[str, ...], title: str = ""
    ) -> None:
        """Show a new matrix (every cell shown); labels name its rows and columns."""
        self._values = np.asarray(values, dtype=np.float64)
        self._shown = np.ones(self._values.shape, dtype=bool)
        n_rows, n_cols = self._values.shape
        self._labels = (rows, cols)
        plot = self.getPlotItem()
        plot.getAxis("left").setTicks([[(i + 0.5, _elide(t)) for i, t in enumerate(rows)]])
        plot.getAxis("top").setTicks([[(j + 0.5, _elide(t)) for j, t in enumerate(cols)]])
        self._title = title
        plot.setTitle(title, color=colors_for(self).foreground, size=self._title_size())
        plot.getViewBox().setRange(QRectF(0, 0, n_cols, n_rows), padding=0.0)
        self._mark.hide()
        self._redraw()

    def set_values(
        self, values: npt.NDArray[np.float64], shown: npt.NDArray[np.bool_] | None = None, by_row: bool = False
    ) -> None:
        """Change the numbers (same shape, same labels), which cells are shown, and whether colours are
        scaled row by row; cheap, for animation (nothing is redrawn when nothing changed)."""
        new_values = np.asarray(values, dtype=np.float64)
        new_shown = np.ones(new_values.shape, dtype=bool) if shown is None else np.asarray(shown, dtype=bool)
        same = np.array_equal(new_values, self._values) and np.array_equal(new_shown, self._shown)
        if same and by_row == self._by_row:
            return
        self._values, self._shown, self._by_row = new_values, new_shown, by_row
        self._redraw()

    def set_highlight(self, rows: tuple[int, int] | None, cols: tuple[int, int] | None = None) -> None:
        """Outline rows ``[r0, r1)`` x columns ``[c0, c1)`` (None: every row / column); both None: no outline."""
        if rows is None and cols is None:
            self._mark.hide()
            return
        n_rows, n_cols = self._values.shape
        r0, r1 = rows if rows is not None else (0, n_rows)
        c0, c1 = cols if cols is not None else (0, n_cols)
        self._mark.setRect(QRectF(c0, r0, c1 - c0, r1 - r0))
        self._mark.show()

    # -- for tests and the page -------------------------------------------------------------------------------
    def matrix_shape(self) -> tuple[int, int]:
        n_rows, n_cols = self._values.shape
        return n_rows, n_cols

    def cell_text(self, row: int, col: int) -> str:
        """The text a cell shows now ('' when it is not shown yet)."""
        return cell_label(float(self._values[row, col])) if self._shown[row, col] else ""

    def labels(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(row labels, column labels) as given."""
        return self._labels

    def title(self) -> str:
        return self._title

    def cell_color(self, row: int, col: int) -> str:
        """A cell's fill as ``#rrggbb``."""
        r, g, b = (int(x) for x in self._rgba[row, col, :3])
        return f"#{r:02x}{g:02x}{b:02x}"

    def highlight_rect(self) -> QRectF | None:
        return self._mark.rect() if self._mark.isVisible() else None

    # -- drawing ----------------------------------------------------------------------------------------------
    def _redraw(self) -> None:
        if not self._values.size:
            return
        n_rows, n_cols = self._values.shape
        rgba = self._rgba = cell_rgba(self._values, self._shown, heat_colors(colors_for(self)), self._by_row)
        self._image.setImage(rgba, autoLevels=False, rect=QRectF(0, 0, n_cols, n_rows))
        inks = ink_for(rgba, "#14181f", "#f5f7fa")
        texts = [[self.cell_text(r, c) for c in range(n_cols)] for r in range(n_rows)]
        self._text.set_cells(texts, inks)

    def _apply_theme(self) -> None:
        colors = colors_for(self)
        pen = pg.mkPen(colors.foreground)
        plot = self.getPlotItem()
        for side in ("left", "top"):
            axis = plot.getAxis(side)
            axis.setPen(pg.mkPen(colors.grid))
            axis.setTextPen(pen)
            axis.setStyle(tickLength=0)
        mark_pen = QPen(QColor(colors.foreground), 2.5)
        mark_pen.setCosmetic(True)
        self._mark.setPen(mark_pen)
        plot.setTitle(self._title, color=colors.foreground, size=self._title_size())
        self._redraw()

    def _title_size(self) -> str:
        """The title in the widget's own type (pyqtgraph's default stays at 9 pt in presentation mode)."""
        return f"{self.font().pointSizeF():.1f}pt"

    def palette_changed(self) -> None:
        self._apply_theme()


def _elide(text: str, limit: int = 9) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
