"""The memory page's Layout planner tab: every way of spreading the run over at most N GPUs that fits, as a table.

The search is the engine's (``engine.training.planner.plan``, 0.5 to 2 s), each row then timed
(``engine.timing``): it runs in a background thread (``PlanSearch``), never in the event loop, with a progress
bar; a change of the scenario cancels it and, once input has paused, starts a new one. It searches from the
scenario as it is trained (model, method, precision, sequence, GPU, ...) with the layout, the GPU count, the ZeRO
stage and checkpointing left to it (``search_setup``), so choosing a row, which makes that row's setup the
scenario's in one update, does not start a search again. The search runs only while the tab is shown
(``gui.state.recompute``).
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.timing import StepTime
from engine.timing.choices import time_or_reason
from engine.training.planner import PlanCancelledError, PlanRow, plan, search_base
from gui.pages.memory_gpus import epochs_box
from gui.state import ranges
from gui.state.binding import Bindable, Binder
from gui.state.page_state import Fields, StateError, touches
from gui.state.recompute import Recompute
from gui.state.scenario import Scenario
from gui.widgets.plan_table import PlanTable, PlanTableModel
from gui.widgets.reason_note import reason_of

# the setup fields the planner chooses itself: a change of one of them does not start a new search
CHOSEN = ("parallel", "gpus", "sharding", "checkpointing", "offload_params", "host")
# what a search reads: the model, the GPU and how the run is trained (of the host, only how many nodes)
READS: Fields = frozenset({"model", "gpu", "setup.host.nodes",
                           *(f"setup.{f}" for f in TrainingSetup.model_fields if f not in CHOSEN)})
# how long input must pause before a new search starts
SEARCH_PAUSE_MS = 300


def search_setup(s: TrainingSetup) -> TrainingSetup:
    """The setup a search starts from: the scenario's, as ``python -m engine plan`` starts
    (``engine.training.planner.search_base``)."""
    return search_base(s)


@dataclass(frozen=True, slots=True)
class Job:
    """What one search is asked: ``plan(model, setup, gpu, max_gpus)``."""

    model: ModelSpec
    setup: TrainingSetup
    gpu: GpuSpec
    max_gpus: int


class PlanSearch(QObject):
    """``plan()`` in a background thread; a newer ``start`` or ``cancel`` makes an older search stop and stay
    silent.

    Signals:
        progressed(int, int): layout shapes searched so far, and in all.
        found(object): the rows (``list[PlanRow]``) of the latest search; their step times are ``times`` then.
        failed(str): the latest search failed (its one-line reason).
    """

    progressed = Signal(int, int)
    found = Signal(object)
    failed = Signal(str)
    # from the worker thread (queued to this object's thread); the first argument is the search's generation
    _progress = Signal(int, int, int)
    _done = Signal(int, object)
    _error = Signal(int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._generation = 0
        self.times: dict[TrainingSetup, StepTime | str] = {}
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._progress.connect(self._on_progress)
        self._done.connect(self._on_done)
        self._error.connect(self._on_error)

    def start(self, m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, max_gpus: int) -> None:
        """Cancel any running search and start one for these inputs."""
        self.cancel()
        self._generation += 1
        self._cancel = threading.Event()
        job = Job(m, s, gpu, max_gpus)
        self._thread = threading.Thread(target=self._run, args=(self._generation, self._cancel, job),
                                        name="vramlab-plan", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        """Stop the running search (it ends at its next layout shape) and forget it."""
        self._cancel.set()
        self._generation += 1

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the current thread has ended (tests, shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, generation: int, cancel: threading.Event, job: Job) -> None:
        """The worker thread: the engine's search, its progress and its result sent back as queued signals."""
        try:
            rows = plan(job.model, job.setup, job.gpu, job.max_gpus, cancelled=cancel.is_set,
                        progress=lambda done, total: self._send(self._progress, generation, done, total))
            times = {r.setup: time_or_reason(job.model, r.setup, job.gpu) for r in rows if not cancel.is_set()}
        except PlanCancelledError:
            return
        except Exception as err:  # a worker reports every failure to the window, never dies mute
            self._send(self._error, generation, str(err))
            return
        if not cancel.is_set():
            self._send(self._done, generation, (rows, times))

    @staticmethod
    def _send(signal: Any, *args: object) -> None:
        with contextlib.suppress(RuntimeError):  # the window was closed while the search ran: nobody to tell
            signal.emit(*args)

    def _on_progress(self, generation: int, done: int, total: int) -> None:
        if generation == self._generation:
            self.progressed.emit(done, total)

    def _on_done(self, generation: int, result: object) -> None:
        if generation == self._generation:
            assert isinstance(result, tuple)
            rows, self.times = result
            self.found.emit(rows)

    def _on_error(self, generation: int, reason: str) -> None:
        if generation == self._generation:
            self.failed.emit(reason)


class PlannerSection(QWidget):
    """The planner tab: "at most N GPUs", the search's state, the table and "Use this layout".

    Signals: none (choosing a row updates the scenario).
    """

    def __init__(self, scenario: Scenario, view: Bindable, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.view_state = view
        self.binder = Binder(view, self)
        self.search = PlanSearch(self)
        self.stale = True
        self.max_gpus = QSpinBox(self)
        self.max_gpus.setRange(*ranges.GPU_COUNT)
        self.max_gpus.setKeyboardTracking(False)
        self.max_gpus.setSuffix(self.tr(" GPUs"))
        self.binder.spin(self.max_gpus, "max_gpus")
        self.order = QComboBox(self)
        self.binder.combo(self.order, "fastest", [(self.tr("Fewest GPUs first"), False),
                                                  (self.tr("Fastest first"), True)])
        self.epochs = epochs_box(self, self.binder)
        self.status = QLabel(self, wordWrap=True)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(12 * self.fontMetrics().height())
        self.progress.setTextVisible(False)
        self.use = QPushButton(self.tr("Use this layout"), self)
        self.use.setEnabled(False)
        self.model = PlanTableModel(self)
        self.table = PlanTable(self.model, self)
        self.table.setMinimumHeight(16 * self.fontMetrics().height())
        self._layout()
        self.use.clicked.connect(self._choose_selected)
        self.table.activated.connect(self._choose)
        self.table.selectionModel().selectionChanged.connect(lambda *_a: self._sync_button())
        self.search.progressed.connect(self._on_progress)
        self.search.found.connect(self._on_found)
        self.search.failed.connect(self._on_failed)
        scenario.changed.connect(self._on_scenario)
        view.changed.connect(self._on_view)
        self.destroyed.connect(self.search.cancel)
        self.recompute = Recompute(self, now=self._invalidate, later=[self._start], pause_ms=SEARCH_PAUSE_MS)
        self.recompute.watch(scenario, READS).watch(view, {"max_gpus"})

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("At most"), self))
        top.addWidget(self.max_gpus)
        top.addWidget(self.order)
        top.addWidget(self.epochs)
        top.addWidget(self.progress)
        top.addWidget(self.status, 1)
        top.addWidget(self.use)
        intro = QLabel(self.tr(
            "Every layout that fits, fewest GPUs first, then the smallest device total: tensor (TP), pipeline "
            "(PP), context (CP) and expert (EP) parallelism, a ZeRO stage and checkpointing; with each one's speed "
            "(tokens/s over all its GPUs) and the run's hours for the dataset's tokens (Host RAM tab) times the "
            "epochs. Click a header to sort; double-click a row, or select it and press “Use this layout”, to "
            "make it the scenario."), self)
        intro.setWordWrap(True)
        v = QVBoxLayout(self)
        v.addLayout(top)
        v.addWidget(intro)
        v.addWidget(self.table, 1)

    # -- the search -----------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Start any pending search now (it still runs in its thread: ``search.wait()`` to block on it)."""
        self.binder.flush()
        self.recompute.flush()

    def _invalidate(self) -> None:
        """The inputs changed: stop the running search; the rows shown are no longer the scenario's."""
        self.search.cancel()
        self.stale = True
        self.table.setEnabled(False)
        self.progress.setRange(0, 0)  # busy until the new search reports
        self.progress.show()
        self.status.setText(self.tr("Waiting for the settings to settle…"))
        self._sync_button()

    def _start(self) -> None:
        sc = self.scenario
        self.status.setText(self.tr("Searching layouts…"))
        self.search.start(sc.model, search_setup(sc.setup), sc.gpu, int(self.view_state.get("max_gpus")))

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.status.setText(self.tr("Searching layouts… {done} of {total}").format(done=done, total=total))

    def _on_found(self, rows: object) -> None:
        assert isinstance(rows, list)
        self.stale = False
        self.progress.hide()
        self.table.setEnabled(True)
        self.model.set_rows(rows, self.scenario.unit, self.scenario.setup)
        self._show_times()
        n = int(self.view_state.get("max_gpus"))
        self.status.setText(self.tr("{rows} layouts fit on at most {n} GPUs.").format(rows=len(rows), n=n) if rows
                            else self.tr("No layout fits on {n} GPUs or fewer: allow more GPUs, or try LoRA, QLoRA "
                                         "or a shorter sequence.").format(n=n))
        self._sync_button()

    def _run_tokens(self) -> float:
        return float(self.scenario.setup.host.dataset_tokens) * float(self.view_state.get("epochs"))

    def _show_times(self) -> None:
        self.model.set_times(self.search.times, self._run_tokens())
        self.table.sort_fastest(bool(self.view_state.get("fastest")))

    def _on_view(self, fields: Fields) -> None:
        if touches(fields, {"max_gpus"}):
            self._invalidate()
        elif touches(fields, {"fastest", "epochs"}) and not self.stale:
            self._show_times()

    def _on_failed(self, reason: str) -> None:
        self.progress.hide()
        self.status.setText(self.tr("The search failed: {reason}").format(reason=reason))

    def _on_scenario(self, fields: Fields) -> None:
        """A change the search reads makes the rows stale at once (shown or not: none can be chosen); one it does
        not read (a row chosen, the unit) redraws them, marking the current one."""
        if touches(fields, READS):
            self._invalidate()
        elif not self.stale and touches(fields, {"setup", "unit"}):
            self.model.set_rows(self.model.rows(), self.scenario.unit, self.scenario.setup)
            self._show_times()

    # -- choosing a row -------------------------------------------------------------------------------------
    def _sync_button(self) -> None:
        self.use.setEnabled(not self.stale and self.table.selected() is not None)

    def _choose_selected(self, *_args: object) -> None:
        row = self.table.selected()
        if row is not None:
            self.choose(row)

    def _choose(self, index: QModelIndex) -> None:
        if index.isValid():
            self.choose(self.table.source_row(index))

    def choose(self, row: PlanRow) -> bool:
        """Make ``row``'s setup the scenario's (one update); False when the rows are stale or it was refused."""
        if self.stale:
            return False
        try:
            return self.scenario.update(setup=row.setup)
        except StateError as err:
            self.status.setText(reason_of(str(err)))
            return False
