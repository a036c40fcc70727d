"""The predicted memory of steps 1 and 2, moment by moment, stacked by term; a measured snapshot laid over it.

The x axis is the prediction's moments (``engine.training.timeline``: each layer's forward and backward, the
loss, the optimizer step), ticked where each phase begins; y is bytes in the scenario's unit. Each term is a band
(``pyqtgraph.FillBetweenItem`` between running totals) in its colour from ``gui.look.palette``; the peak is marked
(its value is the side panel's headline: a label beside the dot sat on the step labels and the reserved line). The
predicted reserved memory is the caching allocator's replay of the same moments (dotted, ``engine.allocator``),
or, where the engine does not replay the step, the estimate's reserved level.
A measurement (``engine.snapshot.overlay.Overlay``) adds the measured allocated curve (solid) and reserved curve
(dashed), and its peak. Hovering moves a cursor and emits ``hovered`` with the nearest moment; the page says
what it holds. Every number drawn is the engine's; this widget only places it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QLabel, QWidget

from engine.snapshot.overlay import Overlay
from engine.training.timeline import Timeline
from engine.units import Unit
from gui.look.palette import colors_for
from gui.text.words import phase_name
from gui.widgets.chart import Chart, cache_axes, nice_ceiling, tick_room
from gui.widgets.term_legend import unbroken

# the term bands' opacity (the measured lines stay readable on top)
BAND_ALPHA = 215
# how far a phase's label may reach past the end of the axis (the optimizer step's, at the last moment)
LABEL_OVERFLOW_PX = 40
PLOT_LINES = 15.0  # the chart's least height in lines of text


class TimelineChart(Chart):
    """Stacked term bands over the prediction's moments, a peak marker, measured curves, a hover cursor.

    Signals:
        hovered(int, float): the predicted moment nearest the pointer, and the pointer's x on the axis.
    """

    hovered = Signal(int, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        plot = self.getPlotItem()
        plot.showGrid(x=False, y=True, alpha=0.2)
        cache_axes(plot)
        plot.getAxis("bottom").setStyle(hideOverlappingLabels=LABEL_OVERFLOW_PX)  # the last phase's label, at the end
        plot.setContentsMargins(0, 0, LABEL_OVERFLOW_PX, 0)  # and the room to draw it
        self._timeline: Timeline | None = None
        self._overlay: Overlay | None = None
        self._unit = Unit.GB
        self._reserved: int | None = None
        self._reserved_curve: np.ndarray | None = None  # the allocator replay's reserved bytes at each moment
        self._bands: list[pg.GraphicsObject] = []
        self._band_names: list[str] = []
        self._measured = [plot.plot([], []), plot.plot([], [])]  # allocated, reserved
        self._replayed = plot.plot([], [])  # the predicted reserved curve
        for z, item in enumerate(self._measured):
            item.setZValue(20 - z)
        self._reserved_line = pg.InfiniteLine(angle=0, movable=False)
        self._steps = [pg.InfiniteLine(angle=90, movable=False) for _ in range(2)]
        self._step_labels = [pg.InfLineLabel(line, text="", position=0.97, anchors=[(0, 0), (0, 0)])
                             for line in self._steps]
        self._cursor = pg.InfiniteLine(angle=90, movable=False)
        self._peak = pg.ScatterPlotItem(size=11, symbol="o")
        self._measured_peak = pg.ScatterPlotItem(size=12, symbol="d")
        for item in (self._reserved_line, *self._steps, self._cursor, self._peak, self._measured_peak):
            plot.addItem(item)
        for item in (self._peak, self._measured_peak):
            item.setZValue(30)
        self._cursor.setVisible(False)
        self.scene().sigMouseMoved.connect(self._mouse_moved)
        self.setMinimumHeight(round(PLOT_LINES * self.fontMetrics().height()))  # grows with the type
        tick_room(plot, self.fontMetrics().height())
        plot.vb.sigResized.connect(self._show_ticks)  # which phase labels fit depends on the width
        self._restyle()
        self.follow_palette()

    def show_prediction(self, t: Timeline, unit: Unit, reserved_bytes: int | None = None,
                        reserved_curve: Sequence[int] | None = None) -> None:
        """Draw ``t``'s bands and peak; ``reserved_bytes``: the estimate's reserved memory, as a level, or, with
        ``reserved_curve`` (one value per moment: the caching allocator's replay, ``engine.allocator.step``), as
        that curve."""
        self._timeline, self._unit, self._reserved = t, unit, reserved_bytes
        fits = reserved_curve is not None and len(reserved_curve) == len(t.points)
        self._reserved_curve = np.asarray(reserved_curve, dtype=np.float64) if fits else None
        self._redraw()

    def reserved_curve(self) -> list[float]:
        """The predicted reserved curve as drawn (display unit; empty when the level is drawn instead)."""
        _, y = self._replayed.getData()
        return [] if y is None else list(y)

    def show_measured(self, overlay: Overlay | None) -> None:
        """Lay a measurement over the prediction (``None``: remove it)."""
        self._overlay = overlay
        self._redraw()

    def hover_at(self, x: float) -> int:
        """Put the cursor at axis position ``x``; returns (and emits) the nearest predicted moment."""
        if self._timeline is None:
            return -1
        index = int(np.clip(round(x), 0, len(self._timeline.points) - 1))
        self._cursor.setPos(index)
        self._cursor.setVisible(True)
        self.hovered.emit(index, float(x))
        return index

    def totals(self) -> list[float]:
        """The top of the stacked bands at each moment, in the display unit (what the eye reads as the curve)."""
        if self._timeline is None:
            return []
        return [p.allocated_bytes / self._unit.size for p in self._timeline.points]

    def measured_curves(self) -> tuple[list[float], list[float], list[float]]:
        """The measured curves as drawn: x, allocated and reserved (display unit)."""
        x, y = self._measured[0].getData()
        _, r = self._measured[1].getData()
        return ([] if x is None else list(x)), ([] if y is None else list(y)), ([] if r is None else list(r))

    def band_names(self) -> list[str]:
        """The terms drawn as bands, bottom to top."""
        return list(self._band_names)

    def palette_changed(self) -> None:
        self._restyle()
        self._redraw()

    def _mouse_moved(self, pos: QPointF) -> None:
        vb = self.getPlotItem().vb
        if self._timeline is not None and vb.sceneBoundingRect().contains(pos):
            self.hover_at(vb.mapSceneToView(pos).x())

    def _restyle(self) -> None:
        c = colors_for(self)
        plot = self.getPlotItem()
        for side in ("left", "bottom"):
            plot.getAxis(side).setPen(pg.mkPen(c.muted))
            plot.getAxis(side).setTextPen(pg.mkPen(c.foreground))
        self._measured[0].setPen(pg.mkPen(c.foreground, width=c.pen(1.6)))
        self._measured[1].setPen(pg.mkPen(c.muted, width=c.pen(1.4), style=Qt.PenStyle.DashLine))
        self._reserved_line.setPen(pg.mkPen(c.limit, width=c.pen(1), style=Qt.PenStyle.DotLine))
        self._replayed.setPen(pg.mkPen(c.limit, width=c.pen(1.2), style=Qt.PenStyle.DotLine))
        for line, label in zip(self._steps, self._step_labels, strict=True):
            line.setPen(pg.mkPen(c.grid, width=c.pen(1), style=Qt.PenStyle.DashLine))
            label.setColor(c.muted)
        self._cursor.setPen(pg.mkPen(c.muted, width=c.pen(1)))
        self._peak.setBrush(pg.mkBrush(c.over))
        self._peak.setPen(pg.mkPen(c.background, width=c.pen(1.5)))
        self._measured_peak.setBrush(pg.mkBrush(c.foreground))
        self._measured_peak.setPen(pg.mkPen(c.background, width=c.pen(1.5)))

    def _redraw(self) -> None:
        t = self._timeline
        if t is None:
            return
        self._draw_bands(t)
        self._draw_marks(t)
        self._draw_measured()
        self._set_ranges(t)

    def _draw_bands(self, t: Timeline) -> None:
        plot = self.getPlotItem()
        for item in self._bands:
            plot.removeItem(item)
        self._bands, self._band_names = [], []
        c = colors_for(self)
        x = np.arange(len(t.points), dtype=np.float64)
        names = [n for n in t.points[0].terms if any(p.terms[n] for p in t.points)]
        below = np.zeros(len(t.points))
        lower = pg.PlotDataItem(x, below)
        for name in names:
            top = below + np.array([p.terms[name] for p in t.points], dtype=np.float64) / self._unit.size
            upper = pg.PlotDataItem(x, top)
            color = QColor(c.term(name))
            color.setAlpha(BAND_ALPHA)
            band = pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(color))
            plot.addItem(band)
            self._bands.append(band)
            self._band_names.append(name)
            lower, below = upper, top
        self._bands.append(plot.plot(x, below, pen=pg.mkPen(c.foreground, width=c.pen(0.8))))  # the total

    def _draw_marks(self, t: Timeline) -> None:
        peak = t.points[t.peak_index]
        y = peak.allocated_bytes / self._unit.size
        self._peak.setData([float(t.peak_index)], [y])
        starts = [next(p.index for p in t.points if p.step == step) for step in (1, 2)]
        for line, label, at, step in zip(self._steps, self._step_labels, starts, (1, 2), strict=True):
            line.setPos(at)
            label.setFormat(self.tr("Step {n}").format(n=step))
        curve = self._reserved_curve
        self._reserved_line.setVisible(self._reserved is not None and curve is None)  # its value: the key's
        if self._reserved is not None:
            self._reserved_line.setPos(self._reserved / self._unit.size)
        if curve is None:
            self._replayed.setData([], [])
        else:
            self._replayed.setData(np.arange(len(curve), dtype=np.float64), curve / self._unit.size)
        self._show_ticks()
        self.getPlotItem().setLabel("left", self._unit.value)

    def _show_ticks(self) -> None:
        """The phase labels that fit side by side at the chart's width (left to right, half a line apart)."""
        if self._timeline is None:
            return
        ticks = self._phase_ticks(self._timeline)
        box, n = self.getPlotItem().vb, len(self._timeline.points)
        px = box.width() / (n * 1.03 + 1.5) if box.width() > 0 else 0.0
        metrics = QFontMetrics(self.getPlotItem().getAxis("bottom").font())
        kept: list[tuple[float, str]] = []
        right = -math.inf
        for x, text in ticks:
            half = metrics.horizontalAdvance(text) / 2
            if px <= 0 or x * px - half >= right + metrics.height() / 2:
                kept.append((x, text))
                right = x * px + half
        axis = self.getPlotItem().getAxis("bottom")
        if getattr(self, "_ticks", None) != kept:
            self._ticks = kept
            axis.setTicks([kept])

    def _phase_ticks(self, t: Timeline) -> list[tuple[float, str]]:
        """One label per phase of each step, at the middle of its moments; the optimizer step (one moment, right
        after backward's label) gets a short one."""
        spans: dict[tuple[int, str], list[int]] = {}
        for p in t.points:
            spans.setdefault((p.step, p.phase), []).append(p.index)
        short = {"optimizer_step": self.tr("optimizer")}
        return [((idx[0] + idx[-1]) / 2, short.get(phase) or phase_name(phase)) for (_, phase), idx in spans.items()]

    def _draw_measured(self) -> None:
        o = self._overlay
        if o is None:
            for item in (*self._measured, self._measured_peak):
                item.setData([], [])
            return
        size = self._unit.size
        self._measured[0].setData(o.x, o.allocated / size)
        self._measured[1].setData(o.x, o.reserved / size)
        n = len(self._timeline.points) if self._timeline is not None else 0
        if -0.5 <= o.peak_x <= n:
            self._measured_peak.setData([o.peak_x], [o.difference.measured_bytes / size])
        else:
            self._measured_peak.setData([], [])

    def _set_ranges(self, t: Timeline) -> None:
        tops = [t.peak_allocated_bytes, self._reserved or 0]
        if self._reserved_curve is not None:
            tops.append(int(self._reserved_curve.max()))
        if self._overlay is not None and self._overlay.x.size:
            tops += [int(self._overlay.allocated.max()), int(self._overlay.reserved.max())]
        n = len(t.points)
        self.setXRange(-0.5, n * 1.03 + 1, padding=0)
        self.setYRange(0, nice_ceiling(max(tops) / self._unit.size * 1.08), padding=0)



class TimelineKey(QLabel):
    """The chart's key, under it (a line of text wraps where a legend inside the plot would not): the predicted
    reserved level and, with a snapshot, the measured curves, each with a sample of its line.

    Signals: none; call :meth:`show_entries`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self._entries: list[str] = []

    def show_entries(self, measured: bool, reserved: str = "") -> None:
        """The lines' names; ``reserved`` is the predicted reserved level's value (the line carries no label)."""
        c = colors_for(self)
        entries = [(c.limit, "┈┈┈", self.tr("reserved (predicted)") + (f" {reserved}" if reserved else ""))]
        if measured:
            entries += [(c.foreground, "━━━", self.tr("measured: allocated")),
                        (c.muted, "╍╍╍", self.tr("measured: reserved"))]
        self._entries = [text for _, _, text in entries]
        self.setText("&nbsp;&nbsp;&nbsp; ".join(
            f'<span style="color:{color}">{line}</span>&nbsp;{unbroken(text)}'
            for color, line, text in entries))

    def entries(self) -> list[str]:
        return list(self._entries)
