"""Horizontal stacked bars of memory terms, one row per estimate, with the GPU's capacity as a line.

Each row is one ``pyqtgraph.BarGraphItem`` per term, placed with ``x0`` (the running total) so the segments
stack; hovering a segment shows the term, its bytes, its share, its formula and its source (all from the
engine's ``Term``). Colours come from ``gui.look.palette`` and follow the theme.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QCursor, QFont, QFontMetrics
from PySide6.QtWidgets import QToolTip, QWidget

from engine.results import Term
from engine.units import Unit, format_bytes, to_unit
from gui.look.palette import colors_for, ink_on
from gui.text.words import term_title
from gui.widgets.chart import Chart, cache_axes, nice_ceiling


@dataclass(frozen=True, slots=True)
class Row:
    """One bar: a label and the terms it stacks."""

    label: str
    terms: Sequence[Term]
    highlight: bool = False


#: the segments' labels against the widget's type (8.5 pt beside the usual 9 pt)
LABEL_SCALE = 0.94
LINE_Z, LABEL_Z = 5, 10  # the capacity line over the bars, the labels (on patches of their bar colour) over it


class BreakdownChart(Chart):
    """Stacked horizontal bars in bytes (shown in GB or GiB), a capacity line, hover tooltips.

    Signals: none; call :meth:`show_rows` with new data.
    """

    BAR_HEIGHT = 0.62

    def __init__(self, parent: QWidget | None = None, min_label_share: float = 0.07) -> None:
        super().__init__(parent)
        self._rows: list[Row] = []
        self._capacity = 0.0
        self._unit = Unit.GB
        self._unit_label: Unit | None = None  # the unit the bottom axis is labelled with
        self._min_label_share = min_label_share
        self._bars: list[pg.BarGraphItem] = []
        self._labels: list[pg.TextItem] = []
        self._ticks: list[list[tuple[int, str]]] = []
        self._label_font = QFont()
        self._label_font.setPointSizeF(self.font().pointSizeF() * LABEL_SCALE)  # grows with presentation mode
        self.getPlotItem().showGrid(x=True, y=False, alpha=0.25)
        cache_axes(self.getPlotItem())
        self._line = pg.InfiniteLine(angle=90, movable=False)
        self._line.setZValue(LINE_Z)
        self.addItem(self._line)
        self.scene().sigMouseMoved.connect(self._hover)
        self.getPlotItem().vb.sigResized.connect(self._on_resized)  # which labels fit depends on the width
        self._restyle()
        self.follow_palette()

    def show_rows(self, rows: Sequence[Row], capacity_bytes: float, unit: Unit) -> None:
        """Draw ``rows`` against a capacity in bytes (a GPU's, a node's RAM; 0: none, no line)."""
        self._rows, self._capacity, self._unit = list(rows), capacity_bytes, unit
        self._redraw()

    def rows(self) -> list[Row]:
        return list(self._rows)

    def shows_capacity(self) -> bool:
        """Whether the capacity line is drawn (a capacity was given)."""
        return bool(self._line.isVisible())

    def palette_changed(self) -> None:
        self._restyle()
        self._redraw()

    def _restyle(self) -> None:
        c = colors_for(self)
        axis_pen = pg.mkPen(c.muted)
        for name in ("left", "bottom"):
            axis = self.getPlotItem().getAxis(name)
            axis.setPen(axis_pen)
            axis.setTextPen(pg.mkPen(c.foreground))
        self._line.setPen(pg.mkPen(c.limit, width=c.pen(2), style=Qt.PenStyle.DashLine))

    def _on_resized(self, *_args: object) -> None:
        if self._rows:
            self._redraw()

    def _redraw(self) -> None:
        """Update one bar item per row and a pool of labels in place (creating items only when rows grow)."""
        c = colors_for(self)
        n = len(self._rows)
        while len(self._bars) < n:
            bar = pg.BarGraphItem(x0=[0.0], y=[0.0], width=[0.0], height=self.BAR_HEIGHT)
            self.addItem(bar)
            self._bars.append(bar)
        for extra in self._bars[n:]:
            extra.setOpts(x0=[0.0], y=[0.0], width=[0.0])
        labels: list[tuple[str, float, float, float, str]] = []
        top = 0.0
        for i, row in enumerate(self._rows):
            terms = [t for t in row.terms if t.bytes > 0]
            widths = [to_unit(t.bytes, self._unit) for t in terms]
            starts = [sum(widths[:j]) for j in range(len(widths))]
            y = n - i  # rows sit at 1..n: pyqtgraph drops a tick label placed at 0
            pen = pg.mkPen(c.foreground, width=c.pen(2)) if row.highlight else pg.mkPen(c.background, width=1)
            self._bars[i].setOpts(
                x0=starts, y=[y] * len(terms), width=widths, height=self.BAR_HEIGHT,
                brushes=[pg.mkBrush(c.term(t.name)) for t in terms], pen=pen,
            )
            labels += [
                (f"{term_title(t.name)}\n{format_bytes(t.bytes, self._unit, 1)}", x0 + w / 2, y, w, c.term(t.name))
                for t, x0, w in zip(terms, starts, widths, strict=True)
                if t.share >= self._min_label_share
            ]
            top = max(top, sum(widths))
        cap = to_unit(self._capacity, self._unit)
        x_max = nice_ceiling(max(top, cap) * 1.02)
        self._show_labels(self._fitting(labels, x_max))
        self._line.setValue(cap)
        self._line.setVisible(cap > 0)  # no capacity given (a node's RAM left blank): no line
        ticks = [[(n - i, r.label) for i, r in enumerate(self._rows)]]
        if ticks != self._ticks:
            self._ticks = ticks
            axis = self.getPlotItem().getAxis("left")
            axis.setTicks(ticks)
            # size the axis for its widest label now: pyqtgraph otherwise widens it only after a first paint
            # that silently drops the labels that did not fit
            widest = max((QFontMetrics(axis.font()).horizontalAdvance(r.label) for r in self._rows), default=0)
            axis.setWidth(widest + 18)
        if self._unit_label is not self._unit:  # a label re-draws the axis from scratch: only when the unit changes
            self._unit_label = self._unit
            self.getPlotItem().setLabel("bottom", self._unit.value)
        self.setXRange(0, x_max, padding=0)
        self.setYRange(0.5, n + 0.5, padding=0.02)

    def _fitting(self, labels: list[tuple[str, float, float, float, str]],
                 x_max: float) -> list[tuple[str, float, float, str]]:
        """The labels whose text fits inside their segment at the chart's current size, across and down (all of
        them, by share alone, before the chart has a size)."""
        box = self.getPlotItem().vb
        px = box.width() / x_max if x_max > 0 else 0.0
        if px <= 0:
            return [(text, x, y, fill) for text, x, y, _, fill in labels]
        metrics = QFontMetrics(self._label_font)
        bar_px = self.BAR_HEIGHT * box.height() / (max(len(self._rows), 1) * 1.04)  # setYRange's 2% padding
        return [
            (text, x, y, fill) for text, x, y, w, fill in labels
            if max(metrics.horizontalAdvance(line) for line in text.split("\n")) + 6 <= w * px
            and metrics.height() * len(text.split("\n")) <= bar_px
        ]

    def _show_labels(self, labels: list[tuple[str, float, float, str]]) -> None:
        """Each label in the ink that reads on its segment, on a patch of the segment's colour (the capacity line
        passes under the text, not through it)."""
        while len(self._labels) < len(labels):
            label = pg.TextItem("", anchor=(0.5, 0.5))
            label.setFont(self._label_font)
            label.textItem.document().setDocumentMargin(1)  # the patch hugs the text: no box beyond the bar
            label.setZValue(LABEL_Z)
            self.addItem(label)
            self._labels.append(label)
        for item, (text, x, y, fill) in zip(self._labels, labels, strict=False):
            if item.toPlainText() != text:
                item.setText(text)
            item.setColor(ink_on(fill))
            item.fill = pg.mkBrush(fill)
            item.setPos(x, y)
            item.setVisible(True)
            item.update()
        for item in self._labels[len(labels):]:
            item.setVisible(False)

    def segment_at(self, x: float, y: float) -> tuple[Row, Term] | None:
        """The row and term under a point in data coordinates (None if none)."""
        n = len(self._rows)
        i = n - round(y)
        if not 0 <= i < n or abs(y - round(y)) > self.BAR_HEIGHT / 2:
            return None
        x0 = 0.0
        for t in self._rows[i].terms:
            width = to_unit(max(t.bytes, 0), self._unit)
            if x0 <= x < x0 + width:
                return self._rows[i], t
            x0 += width
        return None

    def tooltip_for(self, row: Row, t: Term) -> str:
        detail = f"<br>{t.detail}" if t.detail else ""
        return (
            f"<b>{term_title(t.name)}</b> — {row.label}<br>{format_bytes(t.bytes, self._unit)} "
            f"({t.share:.1%}){detail}<br><i>{t.formula}</i><br><small>{t.source}</small>"
        )

    def _hover(self, pos: QPointF) -> None:
        point = self.getPlotItem().vb.mapSceneToView(pos)
        hit = self.segment_at(point.x(), point.y())
        if hit is None:
            QToolTip.hideText()
            return
        QToolTip.showText(QCursor.pos(), self.tooltip_for(*hit), self)
