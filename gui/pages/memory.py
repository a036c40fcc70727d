"""Memory calculator: pick a model and a method, see every byte per GPU, and what would make it fit.

Data flow: the settings panel writes the shared scenario; the page reads all of it, and recomputes by the one
policy of every page (``gui.state.recompute``): once per event-loop turn while shown (a drag never queues stale work),
not at all while hidden. The headline (peak, verdict, breakdown bar: one bar per pipeline stage with a pipeline
layout, the most loaded outlined) is recomputed and repainted in that turn; the secondary views (Full / LoRA /
QLoRA comparison, the two curves, the roadmap: the Overview tab, ``gui.pages.memory_overview``), whose charts cost
more to paint, follow once input has paused for ``SECONDARY_MS``, one view per event-loop turn, so that no frame of a
drag waits for them (bench/gui_latency.py measures both paths). The Host RAM and Layout planner tabs
(``gui.pages.memory_host``, ``memory_planner``) recompute only while shown; the planner searches in a background
thread.
At start-up the headline's figures are there at the window's first paint; the charts and the roadmap (pyqtgraph)
are built and drawn the turn after it (``gui.widgets.lazy_tab.LazyView``; bench/startup.py), and the tabs when
first opened. While input goes on, the legend keeps the lines it has wrapped to (nothing under it moves).
No view computes a number: each gets its result from the engine.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
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

from engine.specs import GpuCount
from engine.training import Estimate, estimate
from engine.training.advisor import ROADMAP_GPU_LIMIT, host_fits, logits_over_weights
from engine.units import format_bytes
from gui.files.breakdown_table import Breakdown, Stage, training_title
from gui.pages import page_title
from gui.pages.memory_controls import MemoryControls
from gui.pages.memory_overview import OverviewSection
from gui.state.binding import Binder
from gui.state.page_state import PageState
from gui.state.recompute import PAUSE_MS, Recompute
from gui.state.scenario import EVERYTHING, Scenario
from gui.widgets.lazy_tab import LazyTab, LazyView
from gui.widgets.page_layout import scroll_area
from gui.widgets.peak_summary import PeakSummary
from gui.widgets.term_legend import TermLegend

if TYPE_CHECKING:  # the Host RAM and Layout planner tabs load when first shown (LazyTab), the charts (pyqtgraph)
    # just after the window's first paint (LazyView): nothing before the first paint waits for them
    from gui.pages.memory_gpus import GpuChoicesSection
    from gui.pages.memory_host import HostSection
    from gui.pages.memory_planner import PlannerSection
    from gui.widgets.breakdown_chart import BreakdownChart, Row

SECONDARY_MS = PAUSE_MS
# sizes in lines of text (and characters), so that they grow with the type (presentation mode's 150-200%):
# the breakdown chart with one bar, and each more bar (a pipeline stage)
BAR_CHART_LINES, PER_BAR_LINES = 7.0, 3.2
# the settings column's width: at least and at most this many digits' widths; the results beside it at least this
# many lines of text wide (else the settings go under the results)
SETTINGS_CHARS = (43.5, 50.0)
RESULTS_LINES = 24.0
QWIDGETSIZE_MAX = (1 << 24) - 1


class MemoryTab(StrEnum):
    """The tabs under the headline."""

    OVERVIEW = "overview"
    HOST = "host"
    PLANNER = "planner"
    GPUS = "gpus"  # "Which GPUs?"


class MemoryView(BaseModel):
    """The page's own state (kept across a rebuild of the window): the tab shown and the planner's GPU limit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tab: MemoryTab = MemoryTab.OVERVIEW
    max_gpus: GpuCount = ROADMAP_GPU_LIMIT
    #: the planner's order: fewest GPUs first (the engine's) or fastest first (tokens/s)
    fastest: bool = False
    #: passes over the dataset, for the run's hours (the planner, "Which GPUs?")
    epochs: Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0.0, le=10_000.0)] = 1.0
    #: prices per GPU-hour the user typed, by GPU id (none shipped), for "Which GPUs?"
    prices: dict[str, Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0.0, le=1e6)]] = {}
    #: "Which GPUs?" ranks by the run's cost at those prices instead of its hours
    rank_by_cost: bool = False


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
        self.overview = OverviewSection(scenario, self)
        # built when first shown: the page's first paint does not pay for them (gui.widgets.lazy_tab)
        self._host_tab = LazyTab(lambda: _host_section(scenario), self)
        self._planner_tab = LazyTab(lambda: _planner_section(scenario, self.view), self)
        self._gpus_tab = LazyTab(lambda: _gpus_section(scenario, self.view), self)
        self.tabs = QTabWidget(self)
        self._layout()
        later = [self._fit_legend, *self.overview.steps()]
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
        self.tabs.addTab(self.overview, self.tr("Overview"))
        self.tabs.addTab(self._host_tab, self.tr("Host RAM"))
        self.tabs.addTab(self._planner_tab, self.tr("Layout planner"))
        self.tabs.addTab(self._gpus_tab, self.tr("GPU types"))
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

    @property
    def breakdown(self) -> BreakdownChart:
        """This setup's breakdown bar(s) (built now if it was not yet)."""
        return self._breakdown.content()

    @property
    def host(self) -> HostSection:
        """The Host RAM tab's content (built now if it was not yet)."""
        return self._host_tab.content()

    @property
    def planner(self) -> PlannerSection:
        """The Layout planner tab's content (built now if it was not yet)."""
        return self._planner_tab.content()

    @property
    def gpu_choices(self) -> GpuChoicesSection:
        """The "Which GPUs?" tab's content (built now if it was not yet)."""
        return self._gpus_tab.content()

    def flush(self) -> None:
        """Write pending control values and run any pending recompute now, every view of the tabs built so far but
        the planner's background search (tests, export)."""
        binders = [self.controls.binder, self.controls.long_context.binder, self.controls.parallel.binder]
        binders += [self.host.binder] if self._host_tab.built else []
        binders += [self.planner.binder] if self._planner_tab.built else []
        for binder in binders:
            binder.flush()
        self._breakdown.content()
        self.overview.build_views()
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


def _bar_chart(page: QWidget) -> BreakdownChart:
    from gui.widgets.breakdown_chart import BreakdownChart  # pyqtgraph: after the first paint

    return BreakdownChart(page)


def _gpus_section(scenario: Scenario, view: PageState[MemoryView]) -> GpuChoicesSection:
    from gui.pages.memory_gpus import GpuChoicesSection

    return GpuChoicesSection(scenario, view)
