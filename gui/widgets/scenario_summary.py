"""One line that says which scenario a page is showing: model, method, precision, tokens, GPUs."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QWidget

from gui.scenario import Scenario


class ScenarioSummary(QLabel):
    """Re-reads the scenario on every change.

    Signals: none.
    """

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self.setWordWrap(True)
        self.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        scenario.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        sc = self._scenario
        s = sc.setup
        sharding = "" if s.gpus == 1 else f", {s.sharding.value}"
        self.setText(
            self.tr("For your setup: {model}, {method}, {precision}, {optimizer}, batch {batch} × {seq} tokens, "
                    "{attention} attention, checkpointing {ckpt}, {gpus} × {gpu}{sharding}").format(
                model=sc.model.label, method=s.method.value, precision=s.precision.value,
                optimizer=s.optimizer.value, batch=s.batch, seq=f"{s.seq_len:,}", attention=s.attention.value,
                ckpt=s.checkpointing.value, gpus=s.gpus, gpu=sc.gpu.name, sharding=sharding)
        )
