"""Timeline: what the training step should hold, moment by moment, and the user's own PyTorch snapshot over it.

Data flow: the page reads the whole shared scenario (model, setup, GPU, unit) and its own state, a ``PageState``
over the engine's ``Alignment`` (the side panel's spin boxes are bound to it), and recomputes by the one policy of
every page (``gui.state.recompute``). ``refresh`` asks the engine for the predicted timeline
(``engine.training.timeline``: steps 1 and 2 layer by layer, whose largest point is the estimate's allocated peak)
and, once a snapshot is open, for its overlay (``engine.snapshot.overlay``), and hands them to the views.

A snapshot is read in a worker thread (``gui.files.snapshot_loader``), with a progress bar and Cancel; a file the
engine refuses gets the engine's one-line reason in a dialog, and the page keeps what it showed. ``open_snapshot``
is the entry point of File > Open PyTorch snapshot… and of a file dropped on the window (``gui.actions.snapshot_open``).
An open snapshot, its alignment and a read in progress survive a rebuild of the window (``view_state``: kept in
memory, never written anywhere).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QVBoxLayout, QWidget

from engine.allocator.total import with_device_total
from engine.snapshot import Measurement
from engine.snapshot.compare import compare
from engine.snapshot.overlay import Alignment, Overlay, default_alignment, overlay
from engine.training import estimate
from engine.training.result import Estimate
from engine.training.timeline import Timeline, timeline
from engine.units import format_bytes
from gui.files.breakdown_table import Breakdown, training_title
from gui.files.snapshot_dialog import ask_path
from gui.files.snapshot_loader import SnapshotLoader
from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for
from gui.pages import page_title
from gui.pages.timeline_controls import TimelineControls
from gui.pages.timeline_texts import measured_html, moment_html
from gui.state.page_state import PageState
from gui.state.recompute import Recompute
from gui.state.scenario import EVERYTHING, Scenario
from gui.widgets.live_blocks_table import LiveBlocksTable
from gui.widgets.page_layout import fill_with_scroll, page_heading
from gui.widgets.scenario_summary import ScenarioSummary
from gui.widgets.term_table import Row
from gui.widgets.timeline_chart import TimelineChart, TimelineKey

# the blocks table's height, in rows
TABLE_ROWS = 8


class TimelinePage(FollowsPalette, QWidget):
    """The predicted step, stacked by term, with a measured snapshot over it.

    Signals: none of its own (see ``SnapshotLoader``; it recomputes when ``scenario.changed`` names any field,
    and on any change of its own ``state``).
    """

    page_id = "timeline"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page-timeline")
        self.scenario = scenario
        self.state = PageState(Alignment(), parent=self)
        self.recompute = Recompute(self, now=self.refresh).watch(scenario, EVERYTHING).watch(self.state)
        self.measurement: Measurement | None = None
        self.overlay: Overlay | None = None
        self.loader = SnapshotLoader(self)
        self.chart_box = QWidget(self)  # the chart and its key: what File > Export writes
        self.chart = TimelineChart(self.chart_box)
        self.key = TimelineKey(self.chart_box)
        self.readout = QLabel(self)
        self.readout.setWordWrap(True)
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.controls = TimelineControls(self.state, self)
        self.blocks_title = QLabel(self.tr("Largest blocks live at the measured peak"), self)
        font = self.blocks_title.font()
        font.setBold(True)
        self.blocks_title.setFont(font)
        self.blocks = LiveBlocksTable(self)
        self._hover = (-1, 0.0)
        self._layout()
        self._wire()
        self.recompute.flush()
        self.follow_palette()

    def title(self) -> str:
        return page_title(self.page_id)

    def flush(self) -> None:
        """Run any pending recompute now (tests, export)."""
        self.recompute.flush()

    def export_chart(self) -> QWidget:
        """The timeline chart and its key, with the measured curves when a snapshot is open."""
        return self.chart_box

    def export_breakdown(self) -> Breakdown:
        """The terms at the predicted peak (the estimate's allocated peak, term by term)."""
        self.flush()
        sc = self.scenario
        return Breakdown.of(training_title(sc.model, sc.setup, sc.gpu), self.current[1].terms)

    def view_state(self) -> dict[str, Any]:
        return {"alignment": self.state.value.model_dump(mode="json"), "measurement": self.measurement,
                "loading": str(self.loader.path) if self.loader.is_busy() else None}

    def restore_view_state(self, state: dict[str, Any]) -> None:
        if isinstance(state.get("measurement"), Measurement):
            self.measurement = state["measurement"]
            self.controls.set_step_count(len(state["measurement"].report.steps))
        if "alignment" in state:
            self.state.replace(Alignment.model_validate(state["alignment"]))
        self.recompute.request()
        if state.get("loading"):
            self.open_snapshot(Path(state["loading"]))

    def open_snapshot(self, path: Path) -> None:
        """Read the snapshot at ``path`` in a worker thread (returns at once; a read in progress is abandoned)."""
        self.loader.start(Path(path))

    def ask_open(self) -> None:
        path = ask_path(self)
        if path is not None:
            self.open_snapshot(path)

    def _layout(self) -> None:
        content = QWidget(self)
        v = QVBoxLayout(content)
        v.setContentsMargins(24, 16, 24, 16)
        intro = QLabel(self.tr(
            "What a training step should hold, moment by moment: steps 1 and 2 layer by layer (forward, the loss, "
            "backward, the optimizer step), stacked by term, from the same model as the estimate; the highest "
            "point is the estimate's allocated peak. Open a snapshot of your own run to lay what PyTorch "
            "measured over it."), content)
        intro.setWordWrap(True)
        for w in (page_heading(self.title(), content), intro, ScenarioSummary(self.scenario, content)):
            v.addWidget(w)
        box = QVBoxLayout(self.chart_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.chart, 1)
        box.addWidget(self.key)
        left = QVBoxLayout()
        left.addWidget(self.chart_box, 1)
        left.addWidget(self.readout)
        row = QHBoxLayout()
        row.addLayout(left, 1)
        row.addSpacing(12)
        row.addWidget(self.controls)
        v.addLayout(row, 1)
        v.addWidget(self.blocks_title)
        v.addWidget(self.blocks)
        self.blocks.setFixedHeight(self.blocks.horizontalHeader().sizeHint().height()
                                   + TABLE_ROWS * self.blocks.verticalHeader().defaultSectionSize() + 4)
        self.chart.setMinimumHeight(300)
        fill_with_scroll(self, content)

    def _wire(self) -> None:
        self.chart.hovered.connect(self._hovered)
        self.controls.open_requested.connect(self.ask_open)
        self.controls.cancel_requested.connect(self._cancel)
        self.controls.reset_requested.connect(self._reset_alignment)
        self.loader.started.connect(self.controls.show_loading)
        self.loader.progressed.connect(self.controls.progress.setValue)
        self.loader.loaded.connect(self._loaded)
        self.loader.failed.connect(self._failed)
        self.loader.cancelled.connect(lambda: self.controls.show_loading(None))

    def refresh(self) -> None:
        """Ask the engine for the prediction (and the overlay of an open snapshot) and show them."""
        sc = self.scenario
        t = timeline(sc.model, sc.setup, sc.gpu)
        e = with_device_total(estimate(sc.model, sc.setup, sc.gpu))  # reserved from the allocator's replay
        self.current: tuple[Timeline, Estimate] = (t, e)
        self.overlay = None if self.measurement is None else overlay(self.measurement, t, self.state.value)
        replayed = e.device_detail.replay.reserved if e.device_detail is not None and t.stage is None else None
        self.chart.show_prediction(t, sc.unit, e.reserved_bytes, replayed)
        self.chart.show_measured(self.overlay)
        self.key.show_entries(measured=self.overlay is not None, reserved=format_bytes(e.reserved_bytes, sc.unit))
        self.controls.show_peak(t, sc.unit)
        report = None if self.measurement is None else self.measurement.report
        self.controls.show_terms(self._term_rows(e), report is not None, sc.unit)
        self.controls.show_measurement(report, self.overlay, sc.unit)
        self.blocks.show_blocks([] if report is None else report.peak_blocks, sc.unit)
        for w in (self.blocks_title, self.blocks):
            w.setVisible(report is not None)
        index = self._hover[0] if 0 <= self._hover[0] < len(t.points) else t.peak_index
        self._hovered(index, self._hover[1] if self._hover[0] >= 0 else float(index))

    def _term_rows(self, e: Estimate) -> list[Row]:
        """Each term at the predicted peak, and at the measured one (``engine.snapshot.compare``'s ``by_term``)."""
        if self.measurement is None:
            return [(t.name, [t.bytes]) for t in e.terms]
        predicted = {t.name for t in e.terms}
        by_term = compare(self.measurement.report, e)["by_term"]
        return [(name, [v["estimated_bytes"] if name in predicted else None, v["measured_bytes"]])
                for name, v in by_term.items()]

    def _hovered(self, index: int, x: float) -> None:
        """Say what the prediction (and the measurement, near ``x``) holds at moment ``index``."""
        self._hover = (index, x)
        t, unit = self.current[0], self.scenario.unit
        text = moment_html(t, index, unit, colors_for(self))
        if self.overlay is not None:
            text += "<br>" + measured_html(self.overlay, x, unit)
        self.readout.setText(text)

    def _loaded(self, measurement: Measurement) -> None:
        self.controls.show_loading(None)
        self.measurement = measurement
        self.controls.set_step_count(len(measurement.report.steps))
        self.state.replace(default_alignment(measurement.report))
        self.recompute.request()

    def _failed(self, reason: str) -> None:
        self.controls.show_loading(None)
        kept = self.tr("The page keeps what it showed.")
        QMessageBox.warning(self, self.tr("Could not open the snapshot"), f"{reason}\n\n{kept}")

    def _cancel(self) -> None:
        self.controls.show_cancelling()
        self.loader.cancel()

    def _reset_alignment(self) -> None:
        if self.measurement is not None:
            self.state.replace(default_alignment(self.measurement.report))

    def palette_changed(self) -> None:
        self.recompute.request()  # the swatches and the difference's colour follow the theme
