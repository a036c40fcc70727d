"""Memory calculator: pick a model and a method, see every byte per GPU, and what would make it fit.

Data flow: the settings panel writes the shared scenario; the page reads all of it, and recomputes by the one
policy of every page (``gui.recompute``): once per event-loop turn while shown (a drag never queues stale work),
not at all while hidden. The headline (peak, verdict, breakdown bar) is recomputed and repainted in that turn;
the secondary views (Full / LoRA / QLoRA comparison, the two curves, the roadmap), whose charts cost more to
paint, follow once input has paused for ``SECONDARY_MS``, one view per event-loop turn, so that no frame of a
drag waits for them (bench/gui_latency.py measures both paths).
No view computes a number: each gets its result from the engine.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from engine.specs import Method, Sharding, TrainingSetup
from engine.training import estimate
from engine.training.accuracy import gpu_runs, summarize
from engine.training.advisor import max_batch, max_seq_len, roadmap
from engine.training.sweep import sweep_gpus, sweep_seq_len
from gui import ranges
from gui.breakdown_table import Breakdown, training_title
from gui.choices import method_label
from gui.pages import page_title
from gui.pages.memory_controls import MemoryControls
from gui.recompute import PAUSE_MS, Recompute
from gui.scenario import EVERYTHING, Scenario
from gui.widgets.breakdown_chart import BreakdownChart, Row
from gui.widgets.curve_plot import CurvePlot
from gui.widgets.page_layout import scroll_area
from gui.widgets.peak_summary import PeakSummary
from gui.widgets.roadmap_view import RoadmapView
from gui.widgets.term_legend import TermLegend

#: x of the sequence-length curve: 48 points, log-spaced over the slider's range
SEQ_POINTS = [round(ranges.SEQ_LEN[0] * (ranges.SEQ_LEN[1] / ranges.SEQ_LEN[0]) ** (i / 47)) for i in range(48)]
GPU_POINTS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
SECONDARY_MS = PAUSE_MS


class MemoryPage(QWidget):
    """The memory calculator page.

    Signals: none (it recomputes when ``scenario.changed`` names any field: it reads them all).
    """

    page_id = "memory"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.controls = MemoryControls(scenario, self)
        self.controls.import_failed.connect(self._import_failed)
        self.controls.import_noted.connect(self._import_noted)
        self.summary = PeakSummary(self)
        self.breakdown = BreakdownChart(self)
        self.breakdown.setMinimumHeight(96)
        self.legend = TermLegend(self)
        self.compare = BreakdownChart(self, min_label_share=0.12)
        self.compare.setMinimumHeight(150)
        self.seq_curve = CurvePlot(self.tr("sequence length (tokens, log scale)"), log_x=True, parent=self)
        self.gpu_curve = CurvePlot(self.tr("GPUs"), parent=self)
        for plot in (self.seq_curve, self.gpu_curve):
            plot.setMinimumHeight(170)
        self.roadmap = RoadmapView(self)
        self.notes = QLabel(self, wordWrap=True)
        self._layout()
        later = [self._show_comparison, self._show_seq_curve, self._show_gpu_curve, self._show_roadmap]
        self.recompute = Recompute(self, now=self._show_headline, later=later, pause_ms=SECONDARY_MS)
        self.recompute.watch(scenario, EVERYTHING)
        self.recompute.flush()

    def title(self) -> str:
        return page_title(self.page_id)

    def export_chart(self) -> QWidget:
        """The chart File > Export writes: this setup's breakdown bar."""
        return self.breakdown

    def export_breakdown(self) -> Breakdown:
        """This setup's terms per GPU, as the engine computed them."""
        self.flush()
        sc = self.scenario
        return Breakdown.of(training_title(sc.model, sc.setup, sc.gpu), self.current.device_terms)

    def import_model(self, path: str) -> bool:
        """Import a config.json or a model folder as the settings panel's Import button does (a dropped file)."""
        return self.controls.import_config(path)

    def _layout(self) -> None:
        left = scroll_area(self.controls, self)
        left.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        left.setMinimumWidth(330)
        left.setMaximumWidth(380)
        grid = QGridLayout()
        grid.addWidget(self._titled(self.tr("Same settings, three methods"), self.compare), 0, 0)
        grid.addWidget(self.roadmap, 0, 1)
        grid.addWidget(self._titled(self.tr("Per GPU against sequence length"), self.seq_curve), 1, 0)
        grid.addWidget(self._titled(self.tr("Per GPU against GPU count"), self.gpu_curve), 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        right = QWidget(self)
        v = QVBoxLayout(right)
        v.addWidget(self.summary)
        v.addWidget(self.breakdown)
        v.addWidget(self.legend)
        v.addLayout(grid, 1)
        v.addWidget(self.notes)
        scroll = scroll_area(right, self)
        h = QHBoxLayout(self)
        h.addWidget(left)
        h.addWidget(scroll, 1)

    def _titled(self, title: str, w: QWidget) -> QWidget:
        holder = QWidget(self)
        v = QVBoxLayout(holder)
        v.setContentsMargins(0, 0, 0, 0)
        label = QLabel(f"<b>{title}</b>", holder)
        v.addWidget(label)
        v.addWidget(w, 1)
        return holder

    def flush(self) -> None:
        """Run any pending recompute now, every view (tests, export)."""
        self.recompute.flush()

    def _show_headline(self) -> None:
        """Peak, verdict, breakdown bar and legend: recomputed in the change's own turn."""
        m, s, gpu, unit = self.scenario.model, self.scenario.setup, self.scenario.gpu, self.scenario.unit
        e = estimate(m, s, gpu)
        self.current = e
        self.summary.show_estimate(e, unit)
        self.breakdown.show_rows([Row(self.tr("This setup"), e.device_terms, highlight=True)], gpu.memory_bytes, unit)
        self.legend.show_terms(e.device_terms, unit)

    def _show_comparison(self) -> None:
        m, s, gpu = self.scenario.model, self.scenario.setup, self.scenario.gpu
        rows = [Row(method_label(k), estimate(m, s.with_(method=k), gpu).device_terms, highlight=k is s.method)
                for k in Method]
        self.compare.show_rows(rows, gpu.memory_bytes, self.scenario.unit)

    def _show_seq_curve(self) -> None:
        m, s, gpu = self.scenario.model, self.scenario.setup, self.scenario.gpu
        seq = sweep_seq_len(m, s, gpu, SEQ_POINTS)
        now = (s.seq_len, estimate(m, s, gpu).device_bytes)
        self.seq_curve.show_curve(seq.x, seq.device, gpu.memory_bytes, now, self.scenario.unit)

    def _curve_setup(self) -> TrainingSetup:
        """The GPU-count curve shards with ZeRO-3 when the setup does not shard (or it would be flat)."""
        s = self.scenario.setup
        return s if s.sharding is not Sharding.NONE or s.gpus > 1 else s.with_(sharding=Sharding.ZERO3)

    def _show_gpu_curve(self) -> None:
        m, gpu, wide = self.scenario.model, self.scenario.gpu, self._curve_setup()
        counts = [n for n in GPU_POINTS if ranges.GPUS[0] <= n <= ranges.GPUS[1]]
        g = sweep_gpus(m, wide, gpu, counts)
        now = (wide.gpus, estimate(m, wide, gpu).device_bytes)
        self.gpu_curve.show_curve(g.x, g.device, gpu.memory_bytes, now, self.scenario.unit)

    def _show_roadmap(self) -> None:
        m, s, gpu = self.scenario.model, self.scenario.setup, self.scenario.gpu
        self.roadmap.show_steps(roadmap(m, s, gpu), max_seq_len(m, s, gpu, ranges.SEQ_LEN[1] * 8),
                                max_batch(m, s, gpu, 4096), self.scenario.unit)
        self._show_notes(self._curve_setup().sharding)

    def _show_notes(self, curve_sharding: Sharding) -> None:
        acc = summarize(gpu_runs())
        accuracy = ""
        if acc is not None:
            accuracy = self.tr(
                "Accuracy: the allocated peak is within {worst:.1%} of {n} real training steps measured on an H200 "
                "(median {median:.1%}); see docs/accuracy.md."
            ).format(worst=acc.worst_abs_error, n=acc.runs, median=acc.median_abs_error)
        self.notes.setText(
            self.tr(
                "Assumptions: activations counted tensor by tensor for Hugging Face layers (the method of "
                "Korthikanti et al. 2022); LoRA adapters in fp32 (PEFT's default); QLoRA stores the frozen "
                "linear layers in 4-bit NF4 with double quantization, embeddings and output layer in 16 bits; "
                "the GPU-count curve uses {sharding}."
            ).format(sharding="ZeRO-3" if curve_sharding is Sharding.ZERO3 else curve_sharding.value)
            + " "
            + accuracy
        )

    def _import_failed(self, reason: str) -> None:
        QMessageBox.warning(self, self.tr("Could not import the config"), reason)

    def _import_noted(self, notes: str) -> None:
        QMessageBox.information(self, self.tr("Import notes"), notes)
