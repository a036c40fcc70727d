"""The memory page's Overview tab: the same settings costed with Full / LoRA / QLoRA (and the setup's own method),
the bytes per GPU against the sequence length and against the GPU count, the roadmap to a fit, and the notes on what
is assumed.

Its views cost more to paint than the headline above the tabs, so the page draws them only once input has paused
(``steps``: the page's recompute runs them as its ``later`` work, one per event-loop turn, so that no frame of a
drag waits for them; bench/gui_latency.py). Each view is built and drawn the turn after its first paint
(``gui.widgets.lazy_tab.LazyView``: the charts are pyqtgraph's, imported after the window's first paint), or at once
when asked for (``flush``). No view computes a number: each gets its result from the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.specs import Method, Sharding, TrainingSetup
from engine.timing.choices import fitting_options
from engine.training import estimate
from engine.training.accuracy import gpu_runs, summarize
from engine.training.advisor import max_batch, max_seq_len, roadmap
from engine.training.stacks import widest_sharding
from engine.training.sweep import sweep_gpus, sweep_seq_len
from gui.state import ranges
from gui.state.scenario import Scenario
from gui.text.choices import method_label, short_label
from gui.widgets.lazy_tab import LazyView
from gui.widgets.reflow_grid import ReflowGrid
from gui.widgets.roadmap_view import RoadmapView

if TYPE_CHECKING:  # pyqtgraph: the charts load just after the window's first paint (LazyView)
    from gui.widgets.breakdown_chart import BreakdownChart
    from gui.widgets.curve_plot import CurvePlot

# x of the sequence-length curve: 48 points, log-spaced over the slider's range
SEQ_POINTS = [round(ranges.SEQ_LEN[0] * (ranges.SEQ_LEN[1] / ranges.SEQ_LEN[0]) ** (i / 47)) for i in range(48)]
GPU_POINTS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
# sizes in lines of text, so that they grow with the type (presentation mode's 150-200%): the comparison and the
# curves; the cells side by side while each can be OVERVIEW_CELL_LINES wide (else one under another)
COMPARE_LINES, CURVE_LINES = 10.5, 12.0
OVERVIEW_CELL_LINES = 18.0
#: the methods the comparison chart always shows (the setup's own joins them when it is another)
COMPARED = (Method.FULL, Method.LORA, Method.QLORA)


class OverviewSection(QWidget):
    """The comparison, the two curves, the roadmap and the notes, for the shared scenario.

    Signals: none (the page calls ``steps`` when its scenario changed and input has paused).
    """

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self._compare = LazyView(lambda: _bar_chart(self, min_label_share=0.12), lambda _: self.show_comparison(),
                                 self)
        self._compare.setMinimumHeight(self._lines(COMPARE_LINES))
        self._seq_curve = LazyView(lambda: _curve(self.tr("tokens (log scale)"), True, self),
                                   lambda _: self.show_seq_curve(), self)
        self._gpu_curve = LazyView(lambda: _curve(self.tr("GPUs"), False, self), lambda _: self.show_gpu_curve(), self)
        for plot in (self._seq_curve, self._gpu_curve):
            plot.setMinimumHeight(self._lines(CURVE_LINES))
        self._roadmap = LazyView(lambda: RoadmapView(self), lambda _: self.show_roadmap(), self)
        # the notes (assumptions, and the accuracy against measured steps: an estimate of each) are below the
        # charts: written the turn after they are first painted, not before the window's first paint
        self._notes = LazyView(lambda: QLabel(self, wordWrap=True), lambda _: self._show_notes(), self)
        self.views = (self._compare, self._seq_curve, self._gpu_curve, self._roadmap, self._notes)
        self.grid = ReflowGrid([
            self._titled(self.tr("Same settings, three methods"), self._compare), self._roadmap,
            self._titled(self.tr("Per GPU against sequence length"), self._seq_curve),
            self._titled(self.tr("Per GPU against GPU count"), self._gpu_curve)], cell_lines=OVERVIEW_CELL_LINES,
            parent=self)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 4, 0, 0)
        v.addWidget(self.grid, 1)
        v.addWidget(self._notes)

    def steps(self) -> list[Callable[[], None]]:
        """What a change redraws here, one step per event-loop turn; a view not built yet is drawn when built."""
        return [self.show_comparison, self.show_seq_curve, self.show_gpu_curve, self.show_roadmap]

    def build_views(self) -> None:
        """Build (and draw) every view now (tests, export)."""
        for view in self.views:
            view.content()

    @property
    def compare(self) -> BreakdownChart:
        """Full / LoRA / QLoRA side by side (built now if it was not yet)."""
        return self._compare.content()

    @property
    def seq_curve(self) -> CurvePlot:
        return self._seq_curve.content()

    @property
    def gpu_curve(self) -> CurvePlot:
        return self._gpu_curve.content()

    @property
    def roadmap(self) -> RoadmapView:
        return self._roadmap.content()

    @property
    def notes(self) -> QLabel:
        return self._notes.content()

    def _lines(self, n: float) -> int:
        """``n`` lines of the page's text, in pixels."""
        return round(n * self.fontMetrics().height())

    def _titled(self, title: str, w: QWidget) -> QWidget:
        holder = QWidget(self)
        v = QVBoxLayout(holder)
        v.setContentsMargins(0, 0, 0, 0)
        label = QLabel(f"<b>{title}</b>", holder, wordWrap=True)
        v.addWidget(label)
        v.addWidget(w, 1)
        return holder

    def show_comparison(self) -> None:
        if not self._compare.built:  # drawn when built
            return
        from gui.widgets.breakdown_chart import Row

        m, s, gpu = self.scenario.model, self.scenario.setup, self.scenario.gpu
        rows = []
        for k in (*COMPARED, *((s.method,) if s.method not in COMPARED else ())):  # the seed's three, and yours
            try:
                terms = estimate(m, s.with_(method=k), gpu).device_terms
                label = method_label(k)
            except ValueError:  # QLoRA's 4-bit base cannot be split by this layout (engine.training.layout)
                terms, label = (), self.tr("{method}: n/a").format(method=method_label(k))
            rows.append(Row(label, terms, highlight=k is s.method))
        self.compare.show_rows(rows, gpu.memory_bytes, self.scenario.unit)

    def show_seq_curve(self) -> None:
        if not self._seq_curve.built:  # drawn when built
            return
        m, s, gpu = self.scenario.model, self.scenario.setup, self.scenario.gpu
        seq = sweep_seq_len(m, s, gpu, SEQ_POINTS)
        now = (s.seq_len, estimate(m, s, gpu).device_bytes)
        self.seq_curve.show_curve(seq.x, seq.device, gpu.memory_bytes, now, self.scenario.unit)

    def curve_setup(self) -> TrainingSetup:
        """The GPU-count curve shards as far as the stack does (ZeRO-3; Megatron-LM's ZeRO-1:
        ``engine.training.stacks.widest_sharding``) when the setup does not shard (or it would be flat), unless the
        setup cannot be sharded so (an 8-bit base, an optimizer whose states follow each tensor, freeze / BAdam:
        ``TrainingSetup``'s checks); then it is the setup's own."""
        s = self.scenario.setup
        if s.sharding is not Sharding.NONE or s.gpus > 1:
            return s
        try:
            return s.with_(sharding=widest_sharding(s))
        except ValueError:
            return s

    def show_gpu_curve(self) -> None:
        if not self._gpu_curve.built:  # drawn when built
            return
        m, gpu, wide = self.scenario.model, self.scenario.gpu, self.curve_setup()
        counts = [n for n in GPU_POINTS if ranges.GPUS[0] <= n <= ranges.GPUS[1]]
        g = sweep_gpus(m, wide, gpu, counts)
        now = (wide.gpus, estimate(m, wide, gpu).device_bytes)
        self.gpu_curve.show_curve(g.x, g.device, gpu.memory_bytes, now, self.scenario.unit)

    def show_roadmap(self) -> None:
        if not self._roadmap.built:  # drawn when built
            return
        m, s, gpu = self.scenario.model, self.scenario.setup, self.scenario.gpu
        steps = roadmap(m, s, gpu)
        self.roadmap.show_steps(steps, max_seq_len(m, s, gpu, ranges.SEQ_LEN[1] * 8),
                                max_batch(m, s, gpu, 4096), self.scenario.unit)
        self.roadmap.show_options(fitting_options(m, s, gpu, steps) if steps else [])  # fastest first (issue 29)
        self._show_notes()

    def _show_notes(self) -> None:
        if not self._notes.built:  # written when built
            return
        curve_sharding = self.curve_setup().sharding
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
                "linear layers in 4-bit NF4 with double quantization, embeddings, norms and output layer in fp32 "
                "under the Hugging Face Trainer (PEFT's preparation), in 16 bits elsewhere; "
                "the GPU-count curve uses {sharding}."
            ).format(sharding=short_label(curve_sharding))
            + " "
            + accuracy
        )


def _bar_chart(parent: QWidget, **options: float) -> BreakdownChart:
    from gui.widgets.breakdown_chart import BreakdownChart  # pyqtgraph: after the first paint

    return BreakdownChart(parent, **options)


def _curve(x_label: str, log_x: bool, parent: QWidget) -> CurvePlot:
    from gui.widgets.curve_plot import CurvePlot  # pyqtgraph: after the first paint

    return CurvePlot(x_label, log_x=log_x, parent=parent)
