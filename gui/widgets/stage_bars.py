"""The four stages side by side: one horizontal bar each, per GPU, split by role, against the GPU's memory.

Segments are ``StageMemory.segments()`` (each role's resident bytes, the working set that sets the peak, the
allocator's reserve and the CUDA context), so a bar's length is the stage's device total: a colocated rollout
engine's share is a segment of it. A vLLM server's bytes, on GPUs of their own, are named after the total, not
drawn. A dashed line marks the GPU's memory (named under the axis); a click on a bar selects that stage.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QWidget

from engine.alignment import StageMemory
from engine.units import Unit, format_bytes
from gui.look.palette import colors_for
from gui.widgets.chart import Chart
from gui.widgets.role_style import role_color

BAR = 0.62
ROWS_OF_TEXT = 11  # the minimum height in lines of the type: four bars, the axis and its label, at any type size
LABEL_WIDTH = 130  # the stage labels' narrowest column (pyqtgraph would otherwise size it late, or not at all)


class StageBars(Chart):
    """Per-GPU totals of the stages.

    Signals:
        stage_clicked(str): the user clicked a stage's bar (its ``Stage`` value).
    """

    stage_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.invertY(True)
        self.getAxis("left").setWidth(LABEL_WIDTH)
        self.getAxis("bottom").setStyle(autoExpandTextSpace=False, tickTextHeight=QFontMetrics(self.font()).height())
        self.setMinimumHeight(max(150, QFontMetrics(self.font()).height() * ROWS_OF_TEXT))
        self._args: tuple[list[StageMemory], str, Unit, dict[str, str]] | None = None
        self.scene().sigMouseClicked.connect(self._clicked)
        self.follow_palette()

    def sizeHint(self) -> QSize:
        return QSize(600, 180)

    def set_stages(self, stages: Sequence[StageMemory], selected: str, unit: Unit, labels: dict[str, str]) -> None:
        """Draw ``stages`` top to bottom; ``labels`` maps a stage value to its axis label."""
        self._args = (list(stages), selected, unit, labels)
        self._redraw()

    def totals(self) -> dict[str, float]:
        """Each bar's length in the unit shown (the stage's device total)."""
        if self._args is None:
            return {}
        stages, _, unit, _ = self._args
        return {s.stage.value: sum(b for _, _, b in s.segments()) / unit.size for s in stages}

    def palette_changed(self) -> None:
        if self._args is not None:
            self._redraw()

    def _redraw(self) -> None:
        assert self._args is not None
        stages, selected, unit, labels = self._args
        c = colors_for(self)
        self.clear()
        for y, sm in enumerate(stages):
            x = 0.0
            pen = pg.mkPen(c.foreground, width=c.pen(1.5)) if sm.stage.value == selected else pg.mkPen(None)
            for role, part, size in sm.segments():
                colour = role_color(c, role) if role else QColor(c.muted)
                colour.setAlpha({"resident": 230, "working_set": 110}.get(part, 80))
                width = size / unit.size
                self.addItem(pg.BarGraphItem(x0=[x], width=[width], y=[y], height=[BAR], brush=colour, pen=pen))
                x += width
            verdict = "✓" if sm.fits else "✗"
            server = self.tr(" + {bytes} on the vLLM server").format(bytes=format_bytes(sm.elsewhere_bytes, unit))
            text = pg.TextItem(f" {format_bytes(sm.device_bytes, unit)} {verdict}"
                               + (server if sm.elsewhere_bytes else ""), anchor=(0, 0.5),
                               color=c.fits if sm.fits else c.over)
            text.setPos(x, y)
            self.addItem(text)
        if stages:
            gpu = stages[0].gpu
            line = pg.InfiniteLine(pos=gpu.memory_bytes / unit.size, angle=90,
                                   pen=pg.mkPen(c.limit, width=c.pen(1.5), style=pg.QtCore.Qt.PenStyle.DashLine))
            self.addItem(line)
            longest = max(*self.totals().values(), gpu.memory_bytes / unit.size)
            self.setXRange(0, longest * 1.22, padding=0)
        self.setYRange(-0.6, len(stages) - 0.4, padding=0)
        ticks = [(y, labels.get(s.stage.value, s.stage.value)) for y, s in enumerate(stages)]
        self.getAxis("left").setTicks([ticks])
        widest = max((QFontMetrics(self.getAxis("left").font()).horizontalAdvance(t) for _, t in ticks), default=0)
        self.getAxis("left").setWidth(max(LABEL_WIDTH, widest + 18))  # a larger type (presentation) or language
        for side in ("left", "bottom"):
            self.getAxis(side).setPen(pg.mkPen(c.muted))
            self.getAxis(side).setTextPen(pg.mkPen(c.foreground))
        # the GPU is named under the axis: a label on the line sat on the first bar's total, or above the plot
        gpu_name = stages[0].gpu.name if stages else ""
        self.setLabel("bottom", self.tr("{unit} per GPU · dashed line: {gpu}").format(unit=unit.value, gpu=gpu_name)
                      if stages else unit.value)

    def _clicked(self, event: object) -> None:
        if self._args is None:
            return
        pos = self.getPlotItem().vb.mapSceneToView(event.scenePos())  # type: ignore[attr-defined]
        index = round(pos.y())
        if 0 <= index < len(self._args[0]):
            self.stage_clicked.emit(self._args[0][index].stage.value)
