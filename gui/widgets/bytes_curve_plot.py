"""A small log-log plot of bytes against sequence length: the square growth of the attention scores beside
the straight growth of Q, K, V and of what FlashAttention keeps, with the GPU's memory as a ceiling.

On log-log axes a quadratic is a line twice as steep as a linear one, which is the point of the picture. The
curves' numbers come from the engine (``engine.attention_sizes.bytes_curve``); this widget draws them and
places ticks (powers of ten), nothing more.

Signals: none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from gui.look.palette import colors_for
from gui.widgets.chart import Chart

_BYTE_NAMES = ("B", "kB", "MB", "GB", "TB", "PB", "EB")
_COUNT_NAMES = ("", "k", "M")
PLOT_LINES = 10.0  # the plot's least height in lines of text


@dataclass(frozen=True)
class Curve:
    name: str  # shown in the legend (already translated)
    values: npt.NDArray[np.float64]  # bytes at each length
    role: str  # "scores", "linear" or "flash": picks the colour and the line


def _labels(lo: float, hi: float, names: tuple[str, ...], unit_suffix: str) -> list[tuple[float, str]]:
    """Ticks at powers of ten between lo and hi (log10 positions), named 1 kB, 10 kB, 100 kB, 1 MB, ..."""
    ticks = []
    for e in range(max(0, math.floor(lo)), math.ceil(hi) + 1):
        group = min(e // 3, len(names) - 1)
        ticks.append((float(e), f"{10 ** (e - 3 * group)}{unit_suffix}{names[group]}"))
    return ticks


class BytesCurvePlot(Chart):
    """Bytes per layer against tokens, log-log, with a marker at the current length."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        plot = self.getPlotItem()
        plot.setLogMode(x=True, y=True)
        size = f"{self.font().pointSizeF() * 0.9:.1f}pt"  # the page's type, a little smaller: presentation scales it
        self._legend = plot.addLegend(offset=(-4, -4), labelTextSize=size)  # bottom right: empty there
        self._items: list[pg.PlotDataItem] = []
        self._limit = pg.InfiniteLine(angle=0, movable=False)
        self._limit_label = pg.InfLineLabel(self._limit, text="", position=0.03, anchors=[(0, 1), (0, 1)])
        self._marker = pg.ScatterPlotItem(size=9)
        plot.addItem(self._limit)
        plot.addItem(self._marker)
        self._curves: tuple[npt.NDArray[np.float64], list[Curve], tuple[float, str] | None] = (np.ones(1), [], None)
        self._marker_at = (1.0, 1.0)
        self.setMinimumHeight(round(PLOT_LINES * self.fontMetrics().height()))  # grows with the type
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.follow_palette()

    def set_curves(
        self, lengths: npt.NDArray[np.float64], curves: list[Curve], limit: tuple[float, str] | None = None
    ) -> None:
        """Draw ``curves`` over ``lengths`` and a ceiling at ``limit`` (bytes, label); skipped when unchanged."""
        old_lengths, old_curves, old_limit = self._curves
        if old_limit == limit and len(old_curves) == len(curves) and np.array_equal(old_lengths, lengths):
            pairs = zip(old_curves, curves, strict=True)
            if all(a.name == b.name and np.array_equal(a.values, b.values) for a, b in pairs):
                return
        self._curves = (lengths, curves, limit)
        self._redraw()

    def set_marker(self, length: float, n_bytes: float) -> None:
        """Put the dot at (length, bytes): the tensor of the step on screen."""
        self._marker_at = (length, n_bytes)
        self._marker.setData([math.log10(length)], [math.log10(max(n_bytes, 1.0))])

    def curve_names(self) -> list[str]:
        return [cv.name for cv in self._curves[1]]

    def _redraw(self) -> None:
        lengths, curves, limit = self._curves
        if not curves:
            return
        plot = self.getPlotItem()
        for item in self._items:
            plot.removeItem(item)
        self._legend.clear()
        c = colors_for(self)
        pens = {"scores": pg.mkPen(c.over, width=c.pen(2.5)), "linear": pg.mkPen(c.term("weights"), width=c.pen(2)),
                "flash": pg.mkPen(c.fits, width=c.pen(2), style=Qt.PenStyle.DashLine)}  # fmt: skip
        self._legend.setLabelTextColor(c.foreground)  # before the items: labels take the colour when made
        self._items = [plot.plot(lengths, cv.values, pen=pens[cv.role], name=cv.name) for cv in curves]
        self._marker.setBrush(pg.mkBrush(c.foreground))
        self._marker.setPen(pg.mkPen(c.background))
        self.set_marker(*self._marker_at)
        self._limit.setVisible(limit is not None)
        if limit is not None:
            self._limit.setPos(math.log10(max(limit[0], 1.0)))  # a log axis has no 0
            self._limit.setPen(pg.mkPen(c.limit, width=c.pen(1), style=Qt.PenStyle.DotLine))
            self._limit_label.setFormat(limit[1])
            self._limit_label.setColor(c.muted)
        self._axes(lengths, curves)

    def _axes(self, lengths: npt.NDArray[np.float64], curves: list[Curve]) -> None:
        plot = self.getPlotItem()
        c = colors_for(self)
        top = max(float(np.max(cv.values)) for cv in curves)
        bottom = min(float(np.min(cv.values)) for cv in curves)
        x0, x1 = math.log10(float(lengths[0])), math.log10(float(lengths[-1]))
        y0 = math.log10(max(bottom, 1.0))
        y1 = max(math.log10(max(top, 1.0)), y0 + 1.0)  # a log axis has no 0, and needs some height
        plot.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.04)
        plot.getAxis("bottom").setTicks([_labels(x0, x1, _COUNT_NAMES, "")])
        plot.getAxis("left").setTicks([[t for t in _labels(y0, y1, _BYTE_NAMES, " ") if int(t[0]) % 3 == 0]])
        for side in ("left", "bottom"):
            plot.getAxis(side).setTextPen(pg.mkPen(c.muted))
            plot.getAxis(side).setPen(pg.mkPen(c.grid))

    def palette_changed(self) -> None:
        self._redraw()
