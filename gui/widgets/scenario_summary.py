"""One line that says which scenario a page is showing: model, method, precision, tokens, GPUs; the loss and
activation offloading when they are not the defaults (issue 19's long-context levers)."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QWidget

from engine.specs import Loss
from gui.state.page_state import Fields, touches
from gui.state.scenario import Scenario
from gui.text.choices import method_label, short_label

# what the line shows (everything but the unit)
READS = frozenset({"model", "setup", "gpu"})


class ScenarioSummary(QLabel):
    """Re-reads the scenario when a field it shows changes (a label: cheap, so at once, hidden or not).

    Signals: none.
    """

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self.setWordWrap(True)
        self.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        scenario.changed.connect(self._changed)
        self.refresh()

    def _changed(self, fields: Fields) -> None:
        if touches(fields, READS):
            self.refresh()

    def refresh(self) -> None:
        sc = self._scenario
        s = sc.setup
        sharding = "" if s.gpus == 1 else f", {short_label(s.sharding)}"
        self.setText(
            self.tr("For your setup: {model}, {method}, {precision}, {optimizer}, batch {batch} × {seq} tokens, "
                    "{attention}, {ckpt}, {gpus} × {gpu}{sharding}").format(
                model=sc.model.label, method=method_label(s.method), precision=s.precision.value,
                optimizer=short_label(s.optimizer), batch=s.batch, seq=f"{s.seq_len:,}",
                attention=short_label(s.attention), ckpt=short_label(s.checkpointing), gpus=s.gpus, gpu=sc.gpu.name,
                sharding=sharding)
            + self._long_context()
        )

    def _long_context(self) -> str:
        s = self._scenario.setup
        loss = f", {short_label(s.loss)}" if s.loss is not Loss.STANDARD else ""
        return loss + (self.tr(", activations offloaded") if s.activation_offload else "")
