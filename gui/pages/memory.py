"""Memory calculator: pick a model and a method, see every byte per GPU, and what would make it fit.

Data flow: the settings panel writes the shared scenario; the page reads all of it, and recomputes by the one
policy of every page (``gui.recompute``): once per event-loop turn while shown (a drag never queues stale work),
not at all while hidden. The headline (peak, verdict, breakdown bar: one bar per pipeline stage with a pipeline
layout, the most loaded outlined) is recomputed and repainted in that turn; the secondary views (Full / LoRA /
QLoRA comparison, the two curves, the roadmap), whose charts cost more to paint, follow once input has paused for
``SECONDARY_MS``, one view per event-loop turn, so that no frame of a drag waits for them (bench/gui_latency.py
measures both paths). The Host RAM and Layout planner tabs (``gui.pages.memory_host``, ``memory_planner``)
recompute only while shown; the planner searches in a background thread.
At start-up the headline's figures are there at the window's first paint; the charts and the roadmap (pyqtgraph)
are built and drawn the turn after it (``gui.widgets.lazy_tab.LazyView``; bench/startup.py), and the tabs when
first opened. While input goes on, the legend keeps the lines it has wrapped to (nothing under it moves).
No view computes a number: each gets its result from the engine.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict
from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QLabel,
    QMessageBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.specs import GpuCount, Method, Sharding, TrainingSetup
from engine.training import Estimate, estimate
from engine.training.accuracy import gpu_runs, summarize
from engine.training.advisor import ROADMAP_GPU_LIMIT, host_fits, logits_over_weights, max_batch, max_seq_len, roadmap
from engine.training.sweep import sweep_gpus, sweep_seq_len
from engine.units import format_bytes
from gui import ranges
from gui.binding import Binder
from gui.breakdown_table import Breakdown, Stage, training_title
from gui.choices import method_label
from gui.page_state import PageState
from gui.pages import page_title
from gui.pages.memory_controls import MemoryControls
from gui.recompute import PAUSE_MS, Recompute
from gui.scenario import EVERYTHING, Scenario
from gui.widgets.lazy_tab import LazyTab, LazyView
from gui.widgets.page_layout import scroll_area
from gui.widgets.peak_summary import PeakSummary
from gui.widgets.reflow_grid import ReflowGrid
from gui.widgets.roadmap_view import RoadmapView
from gui.widgets.term_legend import TermLegend

if TYPE_CHECKING:  # the Host RAM and Layout planner tabs load when first shown (LazyTab), the charts (pyqtgraph)
    # just after the window's first paint (LazyView): nothing before the first paint waits for them
    from gui.pages.memory_host import HostSection
    from gui.pages.memory_planner import PlannerSection
    from gui.widgets.breakdown_chart import BreakdownChart, Row
    from gui.widgets.curve_plot import CurvePlot

# x of the sequence-length curve: 48 points, log-spaced over the slider's range
SEQ_POINTS = [round(ranges.SEQ_LEN[0] * (ranges.SEQ_LEN[1] / ranges.SEQ_LEN[0]) ** (i / 47)) for i in range(48)]
GPU_POINTS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
SECONDARY_MS = PAUSE_MS
# sizes in lines of text (and characters), so that they grow with the type (presentation mode's 150-200%):
# the breakdown chart with one bar, each more bar (a pipeline stage), the comparison and the curves
BAR_CHART_LINES, PER_BAR_LINES, COMPARE_LINES, CURVE_LINES = 7.0, 3.2, 10.5, 12.0
# the overview's cells side by side while each can be this many lines wide (else one under another)
OVERVIEW_CELL_LINES = 18.0
# the settings column's width: at least and at most this many digits' widths; the results beside it at least this
# many lines of text wide (else the settings go under the results)
SETTINGS_CHARS = (43.5, 50.0)
RESULTS_LINES = 24.0
QWIDGETSIZE_MAX = (1 << 24) - 1



#: the methods the comparison chart always shows (the setup's own joins them when it is another)
COMPARED = (Method.FULL, Method.LORA, Method.QLORA)

class MemoryTab(StrEnum):
    """The tabs under the headline."""

    OVERVIEW = "overview"
    HOST = "host"
    PLANNER = "planner"


class MemoryView(BaseModel):
    """The page's own state (kept across a rebuild of the window): the tab shown and the planner's GPU limit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tab: MemoryTab = MemoryTab.OVERVIEW
    max_gpus: GpuCount = ROADMAP_GPU_LIMIT


class MemoryPage(QWidget):
    """The memory calculator page.

    Signals: none (it recomputes when ``scenario.changed`` names any field: it reads them all).
    """

    page_id = "memory"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.view = PageState(MemoryView(), self)
        self.controls = MemoryControls(scenario, self)
        self.controls.import_failed.connect(self._import_failed)
        self.controls.import_noted.connect(self._import_noted)
        self.summary = PeakSummary(self)
        # the charts and the roadmap: built and drawn just after the page's first paint, or when first asked for
        # (the properties below); the headline's figures are right from the first paint (gui.widgets.lazy_tab)
        self._breakdown = LazyView(lambda: _bar_chart(self), lambda _: self._show_breakdown(), self)
        self._breakdown.setMinimumHeight(self._lines(BAR_CHART_LINES))
        self.stages_note = QLabel(self, wordWrap=True)
        self.logits_note = QLabel(self, wordWrap=True)
        self.legend = TermLegend(self)
        self._compare = LazyView(lambda: _bar_chart(self, min_label_share=0.12), lambda _: self._show_comparison(),
                                 self)
        self._compare.setMinimumHeight(self._lines(COMPARE_LINES))
        self._seq_curve = LazyView(lambda: _curve(self.tr("tokens (log scale)"), True, self),
                                   lambda _: self._show_seq_curve(), self)
        self._gpu_curve = LazyView(lambda: _curve(self.tr("GPUs"), False, self), lambda _: self._show_gpu_curve(), self)
        for plot in (self._seq_curve, self._gpu_curve):
            plot.setMinimumHeight(self._lines(CURVE_LINES))
        self._roadmap = LazyView(lambda: RoadmapView(self), lambda _: self._show_roadmap(), self)
        self._views = (self._breakdown, self._compare, self._seq_curve, self._gpu_curve, self._roadmap)
        self.notes = QLabel(self, wordWrap=True)
        # built when first shown: the page's first paint does not pay for them (gui.widgets.lazy_tab)
        self._host_tab = LazyTab(lambda: _host_section(scenario), self)
        self._planner_tab = LazyTab(lambda: _planner_section(scenario, self.view), self)
        self.tabs = QTabWidget(self)
        self._layout()
        later = [self._fit_legend, self._show_comparison, self._show_seq_curve, self._show_gpu_curve,
                 self._show_roadmap]
        self.recompute = Recompute(self, now=self._show_headline, later=later, pause_ms=SECONDARY_MS)
        self.recompute.watch(scenario, EVERYTHING)
        self.recompute.flush()

    def title(self) -> str:
        return page_title(self.page_id)

    def export_chart(self) -> QWidget:
        """The chart File > Export writes: this setup's breakdown bar."""
        return self.breakdown

    def export_breakdown(self) -> Breakdown:
        """This setup's terms per GPU, as the engine computed them; with a pipeline layout, the most loaded
        stage's, and every stage's as the per-stage table."""
        self.flush()
        sc, e = self.scenario, self.current
        stages = tuple(Stage(r.stage, r.layers, r.device_terms, r.stage == e.most_loaded_stage) for r in e.ranks
                       ) if len(e.ranks) > 1 else ()
        return Breakdown.of(training_title(sc.model, sc.setup, sc.gpu), e.device_terms, stages)

    def view_state(self) -> dict[str, Any]:
        return self.view.value.model_dump(mode="json")

    def restore_view_state(self, state: dict[str, Any]) -> None:
        self.view.replace(MemoryView.model_validate(state))

    def import_model(self, path: str) -> bool:
        """Import a config.json or a model folder as the settings panel's Import button does (a dropped file)."""
        return self.controls.import_config(path)

    def _layout(self) -> None:
        left = self._settings = scroll_area(self.controls, self)
        left.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        overview = QWidget(self)
        self.overview_grid = ReflowGrid([
            self._titled(self.tr("Same settings, three methods"), self._compare), self._roadmap,
            self._titled(self.tr("Per GPU against sequence length"), self._seq_curve),
            self._titled(self.tr("Per GPU against GPU count"), self._gpu_curve)], cell_lines=OVERVIEW_CELL_LINES,
            parent=overview)
        o = QVBoxLayout(overview)
        o.setContentsMargins(0, 4, 0, 0)
        o.addWidget(self.overview_grid, 1)
        o.addWidget(self.notes)
        self.tabs.addTab(overview, self.tr("Overview"))
        self.tabs.addTab(self._host_tab, self.tr("Host RAM"))
        self.tabs.addTab(self._planner_tab, self.tr("Layout planner"))
        self.tabs.setDocumentMode(True)
        tabs = list(MemoryTab)
        Binder(self.view, self).custom(self.tabs, "tab", read=lambda: tabs[self.tabs.currentIndex()],
                                       show=lambda t: self.tabs.setCurrentIndex(tabs.index(t)),
                                       changed=self.tabs.currentChanged)
        right = QWidget(self)
        v = QVBoxLayout(right)
        v.addWidget(self.summary)
        v.addWidget(self._breakdown)
        v.addWidget(self.stages_note)
        v.addWidget(self.legend)
        v.addWidget(self.logits_note)
        v.addWidget(self.tabs, 1)
        scroll = scroll_area(right, self)
        self._split = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._split.addWidget(left)
        self._split.addWidget(scroll, 1)
        self._place_settings(beside=True)

    def _settings_width(self) -> tuple[int, int]:
        digit = self.fontMetrics().horizontalAdvance("0123456789") / 10  # a Latin width, in CJK fonts too
        return round(SETTINGS_CHARS[0] * digit), round(SETTINGS_CHARS[1] * digit)

    def _place_settings(self, beside: bool) -> None:
        """The settings column beside the results, or, when the page is too narrow for both (a large type with
        the Lessons drawer open), the results on top and the settings under them, each scrolling."""
        least, most = self._settings_width()
        self._settings.setMinimumWidth(least if beside else 0)
        self._settings.setMaximumWidth(most if beside else QWIDGETSIZE_MAX)
        self._split.setDirection(QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.BottomToTop)
        self._split.setStretch(0, 0 if beside else 2)
        self._split.setStretch(1, 1 if beside else 3)
        self._beside = beside

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        beside = event.size().width() >= self._settings_width()[0] + self._lines(RESULTS_LINES)
        if beside != self._beside:
            self._place_settings(beside)

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

    @property
    def breakdown(self) -> BreakdownChart:
        """This setup's breakdown bar(s) (built now if it was not yet)."""
        return self._breakdown.content()

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
    def host(self) -> HostSection:
        """The Host RAM tab's content (built now if it was not yet)."""
        return self._host_tab.content()

    @property
    def planner(self) -> PlannerSection:
        """The Layout planner tab's content (built now if it was not yet)."""
        return self._planner_tab.content()

    def flush(self) -> None:
        """Write pending control values and run any pending recompute now, every view of the tabs built so far but
        the planner's background search (tests, export)."""
        binders = [self.controls.binder, self.controls.long_context.binder, self.controls.parallel.binder]
        binders += [self.host.binder] if self._host_tab.built else []
        binders += [self.planner.binder] if self._planner_tab.built else []
        for binder in binders:
            binder.flush()
        for view in self._views:
            view.content()
        self.recompute.flush()
        if self._host_tab.built:
            self.host.flush()

    def _show_headline(self) -> None:
        """Peak, verdict, breakdown bar(s), legend and notes: recomputed in the change's own turn."""
        m, s, gpu, unit = self.scenario.model, self.scenario.setup, self.scenario.gpu, self.scenario.unit
        e = estimate(m, s, gpu)
        self.current = e
        self.summary.show_estimate(e, unit)
        bars = len(e.ranks) if len(e.ranks) > 1 else 1  # one per pipeline stage (_stage_rows)
        height = self._lines(BAR_CHART_LINES + PER_BAR_LINES * (bars - 1))
        if self._breakdown.minimumHeight() != height:
            self._breakdown.setMinimumHeight(height)
        if self._breakdown.built:  # else drawn when built, just after the first paint
            self._show_breakdown()
        self.legend.show_terms(e.device_terms, unit)
        self._hold_legend_height()
        self._show_stages_note(e)
        self._show_logits_note(e)
        host_tab = list(MemoryTab).index(MemoryTab.HOST)
        title = self.tr("Host RAM") if host_fits(e) else self.tr("Host RAM ✗")
        if self.tabs.tabText(host_tab) != title:  # a new title lays the tab bar out again: only when it changes
            self.tabs.setTabText(host_tab, title)

    def _hold_legend_height(self) -> None:
        """While input goes on (a drag), the legend keeps the most lines its text has wrapped to, so that the tabs
        under it do not shrink and grow by a line as its figures and terms change (each time, every chart in them
        laid out and drawn again: bench/gui_latency.py); ``_fit_legend`` lets it go once input pauses."""
        height = self.legend.heightForWidth(self.legend.width())
        if height > self.legend.minimumHeight():
            self.legend.setMinimumHeight(height)

    def _fit_legend(self) -> None:
        """The legend at its own height again (the first of the views that wait for a pause in the input)."""
        self.legend.setMinimumHeight(0)

    def _show_breakdown(self) -> None:
        """The breakdown bar(s) of the estimate the headline shows."""
        from gui.widgets.breakdown_chart import Row

        e = self.current
        rows = self._stage_rows(e) or [Row(self.tr("This setup"), e.device_terms, highlight=True)]
        self.breakdown.show_rows(rows, self.scenario.gpu.memory_bytes, self.scenario.unit)

    def _stage_rows(self, e: Estimate) -> list[Row]:
        """One bar per pipeline stage (none without a pipeline): the most loaded outlined."""
        from gui.widgets.breakdown_chart import Row

        if len(e.ranks) < 2:
            return []
        return [Row(self.tr("Stage {n} · layers {first}–{last}").format(n=r.stage, first=r.layers[0],
                                                                        last=r.layers[1]),
                    r.device_terms, highlight=r.stage == e.most_loaded_stage) for r in e.ranks]

    def _show_stages_note(self, e: Estimate) -> None:
        lay = e.layout
        if lay is None or len(e.ranks) < 2 or e.most_loaded_stage is None:
            self.stages_note.hide()
            return
        r = e.ranks[e.most_loaded_stage]
        self.stages_note.setText(self.tr(
            "One bar per pipeline stage, on one of its GPUs: stage {n} (layers {first}–{last}) is the most loaded "
            "(outlined), and the figures above are its. Pipeline bubble {bubble:.0%}. Hover a bar for its terms."
        ).format(n=r.stage, first=r.layers[0], last=r.layers[1], bubble=lay.bubble))
        self.stages_note.show()

    def _show_logits_note(self, e: Estimate) -> None:
        """Issue 19's one line, when the engine says the logits outgrow the weights."""
        over = logits_over_weights(e)
        if over is None:
            self.logits_note.hide()
            return
        unit = self.scenario.unit
        self.logits_note.setText(self.tr(
            "The logits ({logits}) are larger than the weights ({weights}): LoRA and QLoRA do not shrink them; a "
            "chunked loss or a shorter sequence does."
        ).format(logits=format_bytes(over[0], unit, 1), weights=format_bytes(over[1], unit, 1)))
        self.logits_note.show()

    def _show_comparison(self) -> None:
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

    def _show_seq_curve(self) -> None:
        if not self._seq_curve.built:  # drawn when built
            return
        m, s, gpu = self.scenario.model, self.scenario.setup, self.scenario.gpu
        seq = sweep_seq_len(m, s, gpu, SEQ_POINTS)
        now = (s.seq_len, estimate(m, s, gpu).device_bytes)
        self.seq_curve.show_curve(seq.x, seq.device, gpu.memory_bytes, now, self.scenario.unit)

    def _curve_setup(self) -> TrainingSetup:
        """The GPU-count curve shards with ZeRO-3 when the setup does not shard (or it would be flat)."""
        s = self.scenario.setup
        return s if s.sharding is not Sharding.NONE or s.gpus > 1 else s.with_(sharding=Sharding.ZERO3)

    def _show_gpu_curve(self) -> None:
        if not self._gpu_curve.built:  # drawn when built
            return
        m, gpu, wide = self.scenario.model, self.scenario.gpu, self._curve_setup()
        counts = [n for n in GPU_POINTS if ranges.GPUS[0] <= n <= ranges.GPUS[1]]
        g = sweep_gpus(m, wide, gpu, counts)
        now = (wide.gpus, estimate(m, wide, gpu).device_bytes)
        self.gpu_curve.show_curve(g.x, g.device, gpu.memory_bytes, now, self.scenario.unit)

    def _show_roadmap(self) -> None:
        if not self._roadmap.built:  # drawn when built
            return
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


def _host_section(scenario: Scenario) -> HostSection:
    from gui.pages.memory_host import HostSection

    return HostSection(scenario)


def _planner_section(scenario: Scenario, view: PageState[MemoryView]) -> PlannerSection:
    from gui.pages.memory_planner import PlannerSection

    return PlannerSection(scenario, view)


def _bar_chart(page: QWidget, **options: float) -> BreakdownChart:
    from gui.widgets.breakdown_chart import BreakdownChart  # pyqtgraph: after the first paint

    return BreakdownChart(page, **options)


def _curve(x_label: str, log_x: bool, page: QWidget) -> CurvePlot:
    from gui.widgets.curve_plot import CurvePlot  # pyqtgraph: after the first paint

    return CurvePlot(x_label, log_x=log_x, parent=page)
