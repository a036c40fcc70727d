"""A curve of per-GPU memory against one setting (sequence length, GPU count), with the GPU's capacity as a
horizontal line and the current setting marked. The data are the engine's sweeps (``engine.training.sweep``)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from engine.units import Unit
from gui.look.palette import colors_for
from gui.widgets.chart import Chart, cache_axes, nice_ceiling


class DecadeAxis(pg.AxisItem):  # type: ignore[misc]
    """An axis that, on a log scale, ticks every power of ten with a label and 2x to 9x each power without one:
    pyqtgraph labels those too when it judges there is room, and on a wide chart they run into each other
    ("3·10²4·10²"); at some widths its major level is half a decade and the powers lose their labels altogether."""

    def tickValues(self, low: float, high: float, size: float) -> list[tuple[float | None, list[float]]]:
        if not self.logMode:
            return list(super().tickValues(low, high, size))
        powers = [float(p) for p in range(math.ceil(low), math.floor(high) + 1)]
        minor = [p + math.log10(m) for p in range(math.floor(low), math.ceil(high)) for m in range(2, 10)]
        return [(1.0, powers), (None, [v for v in minor if low < v < high])]

    def tickStrings(self, values: list[float], scale: float, spacing: float | None) -> list[str]:
        strings: list[str] = super().tickStrings(values, scale, spacing)
        if not self.logMode:
            return strings
        if spacing is None:  # pyqtgraph's minor level (1x-9x each power): the powers are the major level's
            return [""] * len(strings)
        return [text if abs(v - round(v)) < 1e-9 else "" for v, text in zip(values, strings, strict=True)]


class CurvePlot(Chart):
    """Bytes (shown in GB or GiB) against x, optionally on a log-2 x axis.

    Signals: none; call :meth:`show_curve`.
    """


    def __init__(self, x_label: str, log_x: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent, axisItems={"bottom": DecadeAxis("bottom")})
        self._log_x = log_x
        item = self.getPlotItem()
        item.setLogMode(x=log_x, y=False)
        item.showGrid(x=True, y=True, alpha=0.2)
        item.setLabel("bottom", x_label)
        cache_axes(item)
        self._curve = item.plot([], [])
        self._limit = pg.InfiniteLine(angle=0, movable=False)
        self.addItem(self._limit)
        self._marker = pg.ScatterPlotItem(size=11)
        self.addItem(self._marker)
        self._data: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] = (np.zeros(0), np.zeros(0))
        self._unit_label: Unit | None = None  # the unit the left axis is labelled with
        self._restyle()
        self.follow_palette()

    def show_curve(
        self,
        x: npt.ArrayLike,
        y_bytes: npt.ArrayLike,
        capacity_bytes: float,
        current: tuple[float, float],
        unit: Unit,
    ) -> None:
        """Plot ``y_bytes`` over ``x``; ``current`` is the (x, bytes) of the present setting."""
        xs = np.asarray(x, dtype=np.float64)
        ys = np.asarray(y_bytes, dtype=np.float64) / unit.size
        self._data = (xs, ys)
        self._curve.setData(xs, ys)
        self._limit.setValue(capacity_bytes / unit.size)
        cx, cy = current
        self._marker.setData([np.log10(cx) if self._log_x else cx], [cy / unit.size])
        if self._unit_label is not unit:  # a label re-draws the axis from scratch: only when the unit changes
            self._unit_label = unit
            self.getPlotItem().setLabel("left", unit.value)
        # keep the capacity line and the current point legible: a curve that leaves the top is the lesson
        cap = capacity_bytes / unit.size
        top = min(float(ys.max()) if ys.size else cap, max(2 * cap, 1.3 * cy / unit.size))
        self.setYRange(0, nice_ceiling(max(top, cap) * 1.05), padding=0)

    def data(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The plotted (x, y in the display unit)."""
        return self._data

    def palette_changed(self) -> None:
        self._restyle()

    def _restyle(self) -> None:
        c = colors_for(self)
        for name in ("left", "bottom"):
            axis = self.getPlotItem().getAxis(name)
            axis.setPen(pg.mkPen(c.muted))
            axis.setTextPen(pg.mkPen(c.foreground))
        self._curve.setPen(pg.mkPen(c.term("weights"), width=c.pen(2.5)))
        self._limit.setPen(pg.mkPen(c.limit, width=c.pen(1.5), style=Qt.PenStyle.DashLine))
        self._marker.setBrush(pg.mkBrush(c.over))
        self._marker.setPen(pg.mkPen(c.background, width=c.pen(1.5)))
