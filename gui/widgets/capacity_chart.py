"""A stacked bar per scenario (weights, workspace, CUDA context, KV cache) against one GPU's memory.

Each bar is a stack of ``BarGraphItem`` segments (``y0`` for stacking), one item per term; two horizontal lines
mark the GPU's memory and the share the serving engine may use. The key (each term's colour, each line's style)
is a wrapped line of text under the plot, in the page's type: a legend or a line label inside the plot would sit on
the lines (the two lines are a few pixels apart) and would not grow with presentation mode's type.
The numbers are the engine's (``engine.serving.serving_fit``); this widget only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.results import Term
from engine.units import Unit, to_unit
from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for
from gui.text.words import term_name
from gui.widgets.chart import hold_still, tick_room
from gui.widgets.term_legend import unbroken

Bars = Sequence[tuple[str, Sequence[Term]]]
BAR_WIDTH = 0.55
PLOT_LINES = 15.0  # the plot's height in lines of text (grows with presentation mode's type)
SOLID, DASHED = "━━", "╍╍"


@dataclass(frozen=True, slots=True)
class _Shown:
    """What the chart last drew, kept to redraw it in a new palette."""

    bars: Bars
    lines: Sequence[tuple[str, int, bool]]
    unit: Unit


class CapacityChart(FollowsPalette, QWidget):
    """Stacked bars of per-GPU terms, the GPU's memory and the usable budget as lines, and their key under them.

    Signals: none.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget(self)
        hold_still(self.plot)
        self.plot.setMinimumHeight(round(PLOT_LINES * self.fontMetrics().height()))
        tick_room(self.plot.getPlotItem(), self.fontMetrics().height())
        self.key = QLabel(self, wordWrap=True)
        self.key.setObjectName("capacityKey")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        layout.addWidget(self.key)
        self._shown: _Shown | None = None
        self.bar_items: dict[str, pg.BarGraphItem] = {}
        self.follow_palette()

    def show_bars(
        self,
        bars: Bars,
        lines: Sequence[tuple[str, int, bool]],
        unit: Unit,
    ) -> None:
        """Draw ``bars`` (name, terms bottom-up) and ``lines`` (label, bytes, dashed); terms are named as
        everywhere (``gui.text.words.term_name``)."""
        self._shown = _Shown(bars, lines, unit)
        self._draw()

    def _draw(self) -> None:
        if self._shown is None:
            return
        bars, lines, unit = self._shown.bars, self._shown.lines, self._shown.unit
        c = colors_for(self)
        item = self.plot.getPlotItem()
        item.clear()
        self.plot.setBackground(c.background)
        names = list(dict.fromkeys(t.name for _, terms in bars for t in terms))
        self.bar_items = {}
        for name in names:
            self._add_term(item, name, c.term(name))
        for _label, value, dashed in lines:
            style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
            pen = pg.mkPen(c.limit if not dashed else c.muted, width=c.pen(2), style=style)
            item.addItem(pg.InfiniteLine(pos=to_unit(value, unit), angle=0, pen=pen))
        self._style_axes(item, [name for name, _ in bars], unit, c.foreground)
        top = max([to_unit(v, unit) for _, v, _ in lines] + [self._stack_top(bars, unit)])
        item.setYRange(0, top * 1.08, padding=0)
        item.setXRange(-0.6, len(bars) - 0.4, padding=0)
        self.key.setText(self._key(names, lines))

    def _key(self, names: list[str], lines: Sequence[tuple[str, int, bool]]) -> str:
        """Each term's swatch and name, then each line's style and label; no break inside an entry."""
        c = colors_for(self)
        entries = [(c.term(n), "■", term_name(n)) for n in names]
        entries += [(c.muted if dashed else c.limit, DASHED if dashed else SOLID, label) for label, _, dashed in lines]
        return "&nbsp;&nbsp; ".join(f'<span style="color:{colour}">{mark}</span>&nbsp;{unbroken(text)}'
                                    for colour, mark, text in entries)

    def _add_term(self, item: pg.PlotItem, name: str, color: str) -> None:
        assert self._shown is not None
        bars, unit = self._shown.bars, self._shown.unit
        xs: list[int] = []
        heights: list[float] = []
        bottoms: list[float] = []
        for x, (_, terms) in enumerate(bars):
            below = 0.0
            for t in terms:
                if t.name == name:
                    xs.append(x)
                    heights.append(to_unit(t.bytes, unit))
                    bottoms.append(below)
                below += to_unit(t.bytes, unit)
        bar = pg.BarGraphItem(x=xs, height=heights, y0=bottoms, width=BAR_WIDTH, brush=color, pen=pg.mkPen(None))
        item.addItem(bar)
        self.bar_items[name] = bar

    @staticmethod
    def _stack_top(bars: Bars, unit: Unit) -> float:
        return max((to_unit(sum(t.bytes for t in terms), unit) for _, terms in bars), default=0.0)

    @staticmethod
    def _style_axes(item: pg.PlotItem, names: list[str], unit: Unit, ink: str) -> None:
        bottom, left = item.getAxis("bottom"), item.getAxis("left")
        bottom.setTicks([list(enumerate(names))])
        for axis in (bottom, left):
            axis.setPen(ink)
            axis.setTextPen(ink)
        left.setLabel(unit.value, color=ink)

    def palette_changed(self) -> None:
        self._draw()
