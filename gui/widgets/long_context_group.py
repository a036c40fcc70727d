"""The memory page's long-context settings: the loss over the vocabulary, its chunks, activation offloading and
the checkpointing granularity, each bound to the shared scenario through ``gui.state.binding``.

The levers that move the logits and the activations when they, not the model states, are the biggest term (issue
19; ``engine.training.loss``, ``engine.training.terms.offloaded``, ``engine.specs.Checkpointing``). The memory
switches' "Gradient checkpointing" box is a view of the checkpointing picker here (``Binder.switch``): ticked for
full, selective or per-operator. The chunk count means something only for the chunked losses: it is disabled for
the others.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QSpinBox, QWidget

from engine.specs import Checkpointing, Loss
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import Fields, touches
from gui.state.scenario import Scenario

# the losses whose chunk count the engine reads (``engine.training.loss``)
CHUNKED = (Loss.CHUNKED, Loss.CHUNKED_OUTPUT, Loss.CHUNKED_BACKWARD)
# the chunk spin box's value for "the tool's own" (``loss_chunks`` None), shown as its special text
TOOLS_OWN = ranges.LOSS_CHUNKS[0] - 1


class LongContextGroup(QGroupBox):
    """Loss, loss chunks, activation offload, checkpointing — bound to ``scenario``.

    Signals: none (its controls write to the scenario, which signals).
    """

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Long context"), parent)
        self.scenario = scenario
        self.binder = Binder(scenario, self)
        self.loss = self.binder.picker(self, "loss", [
            (self.tr("Standard (whole fp32 logits)"), Loss.STANDARD),
            (self.tr("Chunked (TRL chunked_nll)"), Loss.CHUNKED),
            (self.tr("Chunked output (torchtune)"), Loss.CHUNKED_OUTPUT),
            (self.tr("Fused linear CE (Liger)"), Loss.FUSED_LINEAR_CE),
            (self.tr("Chunked backward (torchtitan)"), Loss.CHUNKED_BACKWARD)])
        self.loss.setToolTip(self.tr("How the loss over the vocabulary is computed: a chunked or fused loss never "
                                     "holds the whole fp32 logits"))
        self.chunks = QSpinBox(self)
        self.chunks.setRange(TOOLS_OWN, ranges.LOSS_CHUNKS[1])
        self.chunks.setSpecialValueText(self.tr("the tool's own"))
        self.chunks.setKeyboardTracking(False)
        self.chunks.setToolTip(self.tr("Chunks of a chunked loss; the tool's own: TRL's 256-token chunks, "
                                       "torchtune's 8 chunks"))
        self.binder.custom(self.chunks, "loss_chunks", read=self._read_chunks, show=self._show_chunks,
                           changed=self.chunks.valueChanged, coalesce=True)
        self.offload = QCheckBox(self.tr("Offload activations to CPU RAM"), self)
        self.offload.setToolTip(self.tr("The saved activations go to host RAM in forward and come back in "
                                        "backward (torchtune / TRL OffloadActivations)"))
        self.binder.toggle(self.offload, "activation_offload")
        self.checkpointing = self.binder.picker(self, "checkpointing", [
            (self.tr("None"), Checkpointing.NONE), (self.tr("Full (each layer's input)"), Checkpointing.FULL),
            (self.tr("Selective (attention only)"), Checkpointing.SELECTIVE),
            (self.tr("Per operator (torchtitan)"), Checkpointing.OP_SELECTIVE)])
        form = QFormLayout(self)
        form.addRow(self.tr("Loss"), self.loss)
        form.addRow(self.tr("Loss chunks"), self.chunks)
        form.addRow(self.offload)
        form.addRow(self.tr("Checkpointing"), self.checkpointing)
        scenario.changed.connect(self._sync_enabled)
        self._sync_enabled(frozenset({"setup.loss"}))

    def _read_chunks(self) -> int | None:
        return None if self.chunks.value() == TOOLS_OWN else self.chunks.value()

    def _show_chunks(self, chunks: int | None) -> None:
        self.chunks.setValue(TOOLS_OWN if chunks is None else chunks)

    def _sync_enabled(self, fields: Fields) -> None:
        if touches(fields, {"setup.loss"}):
            self.chunks.setEnabled(self.scenario.setup.loss in CHUNKED)

    def flush(self) -> None:
        """Write a pending chunk count now (tests)."""
        self.binder.flush()
