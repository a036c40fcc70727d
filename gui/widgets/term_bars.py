"""Two stacked bars, before and after a lever, one segment per memory term; the terms it moves stand out.

One ``pg.BarGraphItem`` per term holds both bars (x = 0 and 1), stacked with ``y0``; the terms the lever is meant
to move are drawn in their full colour with an outline, the others faded, so that they read as "unchanged".
Colours come from ``gui.look.palette`` and follow the theme (re-read on ``QEvent.PaletteChange``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QWidget

from engine.terms import Scope, in_scope
from engine.units import Unit
from gui.look.palette import colors_for
from gui.widgets.chart import Chart

FADED_ALPHA = 70
BAR_WIDTH = 0.6
MIN_LINES = 9.0  # the chart's least height in lines of text (grows with presentation mode's type)


@dataclass(frozen=True, slots=True)
class BarRow:
    """One term: bytes before and after, and whether the lever is meant to move it."""

    name: str
    before: float
    after: float
    touched: bool


class TermBars(Chart):
    """Before / after stacked bars of memory terms, in the scenario's unit.

    Signals: none.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        metrics = QFontMetrics(self.font())  # room for the tick labels at any type size (presentation mode)
        self.setMinimumHeight(max(150, round(MIN_LINES * metrics.height())))
        self.getAxis("left").setStyle(autoExpandTextSpace=False, tickTextWidth=metrics.horizontalAdvance("00000"))
        self.getAxis("bottom").setStyle(autoExpandTextSpace=False, tickTextHeight=metrics.height())
        left, _top, right, bottom = self.getPlotItem().layout.getContentsMargins()
        self.getPlotItem().layout.setContentsMargins(left, metrics.height() / 2, right, bottom)  # the top label's half
        self._rows: list[BarRow] = []
        self._unit = Unit.GB
        self._labels = ("before", "after")
        self._items = {n: pg.BarGraphItem(x=[0, 1], height=[0, 0], y0=[0, 0], width=BAR_WIDTH)
                       for n in in_scope(Scope.TRAINING)}
        for item in self._items.values():
            self.addItem(item)
        self.setXRange(-0.5, 1.5, padding=0)
        self.follow_palette()

    def sizeHint(self) -> QSize:
        return QSize(220, 190)

    def set_rows(self, rows: Sequence[BarRow], unit: Unit, labels: tuple[str, str]) -> None:
        """Show ``rows`` (bytes) in ``unit``, the two bars labelled ``labels``."""
        self._rows, self._unit, self._labels = list(rows), unit, labels
        self._redraw()

    def segments(self) -> dict[str, tuple[float, float]]:
        """Height of each term's segment (before, after) in the unit shown: what a test can check."""
        return {r.name: (r.before / self._unit.size, r.after / self._unit.size) for r in self._rows}

    def palette_changed(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        c = colors_for(self)
        bottom = [0.0, 0.0]
        shown = {r.name: r for r in self._rows}
        for name, item in self._items.items():
            row = shown.get(name)
            heights = [row.before / self._unit.size, row.after / self._unit.size] if row else [0.0, 0.0]
            colour = QColor(c.term(name))
            if row is not None and not row.touched:
                colour.setAlpha(FADED_ALPHA)
            pen = pg.mkPen(c.foreground, width=c.pen(1.5)) if row is not None and row.touched else pg.mkPen(None)
            item.setOpts(x=[0, 1], height=heights, y0=list(bottom), width=BAR_WIDTH, brush=colour, pen=pen)
            bottom = [bottom[0] + heights[0], bottom[1] + heights[1]]
        axis_pen = pg.mkPen(c.muted)
        for side in ("left", "bottom"):
            axis = self.getAxis(side)
            axis.setPen(axis_pen)
            axis.setTextPen(pg.mkPen(c.foreground))
        self.getAxis("bottom").setTicks([[(0, self._labels[0]), (1, self._labels[1])]])
        self.setLabel("left", self._unit.value)
        self.setYRange(0, max(*bottom, 1e-9) * 1.05, padding=0)
