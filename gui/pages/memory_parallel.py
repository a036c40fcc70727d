"""The memory page's Parallelism group: tensor, pipeline, context and expert parallel sizes, bound to the scenario.

Every control writes one field of ``setup.parallel`` through the page's ``Binder``; the engine validates it, with
the model (``gui.state.scenario_data.ScenarioData`` asks ``engine.training.layout``): a layout the model cannot take
(tp not dividing its heads, more stages than layers, a GPU count that is no multiple of tp x pp x cp) is refused,
the control is put back and the page's reason note says which rule it broke. The group shows while the run has
more than one GPU (or a layout is set, so that it can be undone); a control that does not apply (sequence
parallelism without TP, a schedule without PP, experts on a dense model) is disabled unless it is set.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QLabel, QSpinBox, QWidget

from engine.specs import CpCommType, ParallelSpec, PipelineSchedule
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import Fields, touches
from gui.state.scenario import Scenario

# what the group's visibility and enabled states read
READS = frozenset({"setup.parallel", "setup.gpus", "model"})


class ParallelControls(QGroupBox):
    """TP, PP, CP, EP, sequence parallelism, micro-batches, schedule, virtual stages — bound to ``scenario``.

    Signals: none (``binder.rejected`` carries a refused value's reason).
    """

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Parallelism (TP × PP × CP × EP)"), parent)
        self.scenario = scenario
        self.binder = Binder(scenario, self)
        self.tp = self._spin("parallel.tp", ranges.LAYOUT_TP, self.tr("Tensor parallelism: splits every layer's "
                                                                       "linears over t GPUs of a node"))
        self.pp = self._spin("parallel.pp", ranges.LAYOUT_PP, self.tr("Pipeline parallelism: consecutive layers "
                                                                       "on p stages"))
        self.cp = self._spin("parallel.cp", ranges.LAYOUT_CP, self.tr("Context parallelism: splits the sequence "
                                                                       "over c GPUs (ring attention)"))
        self.ep = self._spin("parallel.ep", ranges.LAYOUT_EP, self.tr("Expert parallelism: a MoE layer's experts "
                                                                       "spread over e GPUs"))
        self.cp_comm = QComboBox(self)
        self.binder.combo(self.cp_comm, "parallel.cp_comm_type", [
            (self.tr("Ring attention"), CpCommType.P2P), (self.tr("Ulysses all-to-all"), CpCommType.A2A)])
        self.cp_comm.setToolTip(self.tr("How context parallelism exchanges the sequence: ring attention's key/value "
                                        "chunks, or DeepSpeed-Ulysses' all-to-all of q, k, v"))
        self.sequence_parallel = QCheckBox(self.tr("Sequence parallelism (with TP)"), self)
        self.binder.toggle(self.sequence_parallel, "parallel.sequence_parallel")
        self.micro_batches = self._spin("parallel.micro_batches", ranges.MICRO_BATCHES,
                                        self.tr("Micro-batches per step flowing through the pipeline"))
        self.schedule = QComboBox(self)
        self.binder.combo(self.schedule, "parallel.schedule", [
            ("GPipe", PipelineSchedule.GPIPE), ("1F1B", PipelineSchedule.ONE_F_ONE_B),
            (self.tr("Interleaved 1F1B"), PipelineSchedule.INTERLEAVED)])
        self.virtual_stages = self._spin("parallel.virtual_stages", ranges.VIRTUAL_STAGES,
                                         self.tr("Model chunks per stage (interleaved schedule)"))
        self.data_parallel = QLabel(self, wordWrap=True)
        form = QFormLayout(self)
        form.addRow(self.tr("TP"), self.tp)
        form.addRow(self.tr("PP"), self.pp)
        form.addRow(self.tr("CP"), self.cp)
        form.addRow(self.tr("CP exchange"), self.cp_comm)
        form.addRow(self.tr("EP"), self.ep)
        form.addRow(self.sequence_parallel)
        form.addRow(self.tr("Micro-batches"), self.micro_batches)
        form.addRow(self.tr("Schedule"), self.schedule)
        form.addRow(self.tr("Virtual stages"), self.virtual_stages)
        form.addRow(self.data_parallel)
        scenario.changed.connect(self._sync)
        self._sync(READS)

    def _spin(self, field: str, window: tuple[int, int], tip: str) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setRange(*window)
        spin.setKeyboardTracking(False)
        spin.setToolTip(tip)
        self.binder.spin(spin, field)
        return spin

    def _sync(self, fields: Fields) -> None:
        """Visibility, enabled states and the data-parallel size, re-read from the scenario."""
        if not touches(fields, READS):
            return
        s, m = self.scenario.setup, self.scenario.model
        p = s.parallel
        self.setVisible(s.gpus > 1 or s.layout_active)
        self.sequence_parallel.setEnabled(p.tp > 1 or p.sequence_parallel)
        staged = p.pp > 1 or p.micro_batches > 1 or p.schedule is not ParallelSpec().schedule
        for w in (self.micro_batches, self.schedule):
            w.setEnabled(staged)
        self.virtual_stages.setEnabled(p.schedule is PipelineSchedule.INTERLEAVED or p.virtual_stages > 1)
        self.ep.setEnabled(m.moe is not None or p.ep > 1)
        self.data_parallel.setText(self.tr("Data parallelism: {dp} = {gpus} GPUs / (TP {tp} × PP {pp} × CP {cp})")
                                   .format(dp=s.dp, gpus=s.gpus, tp=p.tp, pp=p.pp, cp=p.cp))
