"""The memory page's Host RAM tab: the CPU side of the bill, per process and per node, against the node's RAM.

The controls are bound to ``setup.host.*`` (``gui.state.binding``): how the checkpoint is loaded, the training set's
size and storage, the DataLoader's workers, pinned memory, the nodes and one node's RAM. The source guide's three
strategies for saving CPU memory are switches, views of the fields they set (``Binder.switch``): load the data
iteratively (streaming), keep it in Arrow or Parquet, and use DataLoader workers. The numbers are the engine's
(``engine.training.host``): two stacked bars, the busiest process and the whole node, coloured by host term, against
the node's RAM when it is given. The tab recomputes only while it is shown (``gui.state.recompute``).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.specs import DatasetStorage, ModelLoading
from engine.training import estimate
from engine.training.host import HostEstimate, host_of
from engine.training.result import Verdict
from engine.units import GB, Unit, format_bytes
from gui.look.palette import colors_for
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.recompute import Recompute
from gui.state.scenario import EVERYTHING, Scenario
from gui.widgets.breakdown_chart import BreakdownChart, Row
from gui.widgets.reason_note import ReasonNote
from gui.widgets.term_legend import TermLegend

MILLION = 1_000_000
# the storage kinds the switches mean: streamed (iterative loading), and Arrow or Parquet (streaming reads Parquet)
STREAMED = (DatasetStorage.STREAMING,)
ARROW_OR_PARQUET = (DatasetStorage.ARROW_MMAP, DatasetStorage.STREAMING)
# the "DataLoader workers" switch: on for any count above 0; ticked, it gives back the last count (else 4)
WITH_WORKERS = tuple(range(1, ranges.DATALOADER_WORKERS[1] + 1))
DEFAULT_WORKERS = 4
# the bars' height, in lines of text
CHART_LINES = 10


class HostSection(QWidget):
    """Host RAM controls, bars and verdict for the shared scenario.

    Signals: none (``binder.rejected`` carries a refused value's reason, shown in ``reason``).
    """

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.binder = Binder(scenario, self)
        self.current: HostEstimate | None = None
        self.summary = QLabel(self, wordWrap=True)
        self.chart = BreakdownChart(self, min_label_share=0.12)
        self.chart.setMinimumHeight(CHART_LINES * self.fontMetrics().height())  # grows with the type
        self.legend = TermLegend(self)
        self.reason = ReasonNote(self)
        self.binder.rejected.connect(self.reason.show_reason)
        scenario.changed.connect(self.reason.clear_reason)
        controls = QHBoxLayout()
        controls.addWidget(self._data_box(), 1)
        controls.addWidget(self._run_box(), 1)
        v = QVBoxLayout(self)
        v.addWidget(self.summary)
        v.addWidget(self.chart)
        v.addWidget(self.legend)
        v.addLayout(controls)
        v.addWidget(self.reason)
        v.addStretch(1)
        self.recompute = Recompute(self, now=self._show)
        self.recompute.watch(scenario, EVERYTHING)

    # -- controls -------------------------------------------------------------------------------------------
    def _data_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("The training data"), self)
        self.dataset_tokens = QSpinBox(box)
        self.dataset_tokens.setRange(ranges.DATASET_TOKENS[0] // MILLION, ranges.DATASET_TOKENS[1] // MILLION)
        self.dataset_tokens.setSuffix(self.tr(" M tokens"))
        self.dataset_tokens.setSpecialValueText(self.tr("none given"))
        self.dataset_tokens.setKeyboardTracking(False)
        self.dataset_tokens.setToolTip(self.tr("Tokens in the tokenized training set, in millions"))
        self.binder.custom(self.dataset_tokens, "host.dataset_tokens",
                           read=lambda: self.dataset_tokens.value() * MILLION,
                           show=lambda v: self.dataset_tokens.setValue(round(v / MILLION)),
                           changed=self.dataset_tokens.valueChanged, coalesce=True)
        self.storage = self.binder.picker(box, "host.dataset_storage", [
            (self.tr("Python lists (parsed JSON)"), DatasetStorage.PYTHON_LISTS),
            (self.tr("NumPy array (int32)"), DatasetStorage.NUMPY),
            (self.tr("Arrow file, memory-mapped"), DatasetStorage.ARROW_MMAP),
            (self.tr("Streamed from Parquet"), DatasetStorage.STREAMING)])
        self.streaming = QCheckBox(self.tr("Load it iteratively (streaming)"), box)
        self.streaming.setToolTip(self.tr("Read the data as it goes, a shuffle buffer per reader, instead of "
                                          "holding all of it"))
        self.binder.switch(self.streaming, "host.dataset_storage", on=STREAMED, default_on=DatasetStorage.STREAMING,
                           default_off=DatasetStorage.ARROW_MMAP)
        self.arrow = QCheckBox(self.tr("Arrow / Parquet storage"), box)
        self.arrow.setToolTip(self.tr("A binary columnar file, memory-mapped: its pages are shared by every "
                                      "process and worker of the node, not copied"))
        self.binder.switch(self.arrow, "host.dataset_storage", on=ARROW_OR_PARQUET,
                           default_on=DatasetStorage.ARROW_MMAP, default_off=DatasetStorage.PYTHON_LISTS)
        form = QFormLayout(box)
        form.addRow(self.tr("Dataset"), self.dataset_tokens)
        form.addRow(self.tr("Held as"), self.storage)
        form.addRow(self.streaming)
        form.addRow(self.arrow)
        return box

    def _run_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Processes and nodes"), self)
        self.loading = self.binder.picker(box, "host.model_loading", [
            (self.tr("Every process loads the whole checkpoint"), ModelLoading.FULL_PER_PROCESS),
            (self.tr("Rank 0 loads it, then broadcasts"), ModelLoading.RANK0_BROADCAST),
            (self.tr("Each process loads its shard (meta device)"), ModelLoading.META_SHARDED)])
        self.workers_on = QCheckBox(self.tr("DataLoader workers"), box)
        self.workers_on.setToolTip(self.tr("Worker processes prepare the next batches while the GPU computes"))
        self.binder.switch(self.workers_on, "host.num_workers", on=WITH_WORKERS, default_on=DEFAULT_WORKERS,
                           default_off=0)
        self.workers = self._spin(box, "host.num_workers", ranges.DATALOADER_WORKERS)
        self.prefetch = self._spin(box, "host.prefetch_factor", ranges.PREFETCH_FACTOR)
        self.pin_memory = QCheckBox(self.tr("Pinned memory (pin_memory=True)"), box)
        self.binder.toggle(self.pin_memory, "host.pin_memory")
        self.nodes = self._spin(box, "host.nodes", ranges.NODES)
        self.ram = QSpinBox(box)
        self.ram.setRange(0, ranges.NODE_RAM[1] // GB)
        self.ram.setSuffix(" GB")
        self.ram.setSpecialValueText(self.tr("not given"))
        self.ram.setKeyboardTracking(False)
        self.binder.custom(self.ram, "host.ram_bytes", read=lambda: self.ram.value() * GB or None,
                           show=lambda v: self.ram.setValue(round((v or 0) / GB)), changed=self.ram.valueChanged,
                           coalesce=True)
        form = QFormLayout(box)
        form.addRow(self.tr("Model loading"), self.loading)
        form.addRow(self.workers_on, self.workers)
        form.addRow(self.tr("Prefetch per worker"), self.prefetch)
        form.addRow(self.pin_memory)
        form.addRow(self.tr("Nodes"), self.nodes)
        form.addRow(self.tr("RAM per node"), self.ram)
        return box

    def _spin(self, parent: QWidget, field: str, window: tuple[int, int]) -> QSpinBox:
        spin = QSpinBox(parent)
        spin.setRange(*window)
        spin.setKeyboardTracking(False)
        self.binder.spin(spin, field)
        return spin

    # -- view -----------------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Write pending spin values and run any pending recompute now (tests, export)."""
        self.binder.flush()
        self.recompute.flush()

    def _show(self) -> None:
        sc = self.scenario
        h = host_of(estimate(sc.model, sc.setup, sc.gpu))
        self.current = h
        unit = sc.unit
        rows = [Row(self.tr("Busiest process"), h.as_terms(per_node=False)),
                Row(self.tr("Whole node"), h.as_terms(), highlight=True)]
        self.chart.show_rows(rows, h.ram_bytes or 0, unit)
        self.legend.show_terms(h.as_terms(), unit)
        self.summary.setText(self._summary(h, unit))
        self.prefetch.setEnabled(sc.setup.host.num_workers > 0)

    def _summary(self, h: HostEstimate, unit: Unit) -> str:
        c = colors_for(self)
        phase = self.tr("loading the checkpoint") if h.peak.name == "loading" else self.tr("training")
        head = self.tr("<b>{node}</b> of host RAM per node, {process} for the busiest of its {n} processes; the "
                       "peak comes while {phase}.").format(
            node=format_bytes(h.per_node_bytes, unit, 1), n=h.processes_per_node,
            process=format_bytes(h.per_process_bytes, unit, 1), phase=phase)
        if h.disk_bytes:  # NVMe offload (ZeRO-Infinity): what goes to disk instead of RAM
            head += " " + self.tr("NVMe offload writes {disk} per node to disk; host RAM holds its pinned "
                                  "buffers.").format(disk=format_bytes(h.disk_bytes, unit, 1))
        if h.ram_bytes is None or h.headroom_bytes is None:
            return head + " " + self.tr("Give the RAM per node for a verdict.")
        ram = format_bytes(h.ram_bytes, unit, 0)
        if h.verdict is Verdict.OVER:
            text, color = self.tr("Does not fit in {ram}: short by {x}."), c.over
        elif h.verdict is Verdict.TIGHT:
            text, color = self.tr("Tight in {ram}: {x} left."), c.term("temporaries")
        else:
            text, color = self.tr("Fits in {ram} with {x} to spare."), c.fits
        verdict = text.format(ram=ram, x=format_bytes(abs(h.headroom_bytes), unit, 1))
        return f'{head} <b style="color:{color}">{verdict}</b>'

