"""The Alignment page's controls: method and GPUs (the shared scenario, through ``gui.binding``) and the
variants that change how many models are held (page-local ``AlignmentOptions``)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QGridLayout, QLabel, QSpinBox, QWidget

from engine.alignment import AlignmentOptions
from engine.specs import UI_GPUS, Method, Sharding
from gui.binding import Binder
from gui.scenario import Scenario

DEFAULTS = AlignmentOptions()


class AlignmentControls(QWidget):
    """Scenario pickers and variant toggles.

    Signals:
        options_changed(): a variant changed (read ``options()``).
    """

    options_changed = Signal()

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self.binder = Binder(scenario, self)
        self.method, self.sharding, self.gpus = QComboBox(self), QComboBox(self), QSpinBox(self)
        self.gpus.setRange(*UI_GPUS)
        self.binder.combo(self.method, "method", [(self.tr("Full fine-tuning"), Method.FULL), ("LoRA", Method.LORA),
                                                  ("QLoRA", Method.QLORA)])
        self.binder.spin(self.gpus, "gpus")
        self.binder.combo(self.sharding, "sharding", [(self.tr("no sharding"), Sharding.NONE),
                                                      ("ZeRO-1", Sharding.ZERO1), ("ZeRO-2", Sharding.ZERO2),
                                                      ("ZeRO-3 / FSDP", Sharding.ZERO3)])
        self.shared_base = QCheckBox(self.tr("LoRA: the reference is the base with adapters off (no copy)"), self)
        self.precomputed = QCheckBox(self.tr("DPO: reference log-probs precomputed"), self)
        self.kl_zero = QCheckBox(self.tr("GRPO: KL coefficient 0, no reference (TRL's default)"), self)
        self.reward_model = QCheckBox(self.tr("GRPO: a reward model instead of a rule"), self)
        self.rollout = QDoubleSpinBox(self)
        self.rollout.setRange(0.0, 0.95)
        self.rollout.setSingleStep(0.05)
        self.rollout.setValue(DEFAULTS.rollout_share)
        self.rollout.setToolTip(self.tr("vLLM's gpu_memory_utilization: the share of each GPU the rollout engine "
                                        "reserves for its weights and KV cache (TRL's colocate default: 0.3). "
                                        "0: no separate engine."))
        self.shared_base.setChecked(DEFAULTS.reference_shares_base)
        self._layout()
        for box in (self.shared_base, self.precomputed, self.kl_zero, self.reward_model):
            box.toggled.connect(self.options_changed)
        self.rollout.valueChanged.connect(self.options_changed)
        scenario.changed.connect(self._enable)
        self._enable()

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        pairs = [(self.tr("Method"), self.method), (self.tr("GPUs"), self.gpus), (self.tr("Sharding"), self.sharding),
                 (self.tr("Rollout share of each GPU"), self.rollout)]
        for i, (text, widget) in enumerate(pairs):  # two pairs a row, each check box under its neighbours
            grid.addWidget(QLabel(text, self), i // 2, 3 * (i % 2))
            grid.addWidget(widget, i // 2, 3 * (i % 2) + 1)
        for i, box in enumerate((self.shared_base, self.precomputed, self.kl_zero, self.reward_model)):
            grid.addWidget(box, 2 + i // 2, 3 * (i % 2), 1, 3)
        grid.setColumnStretch(2, 1)
        grid.setColumnStretch(5, 1)

    def _enable(self) -> None:
        self.shared_base.setEnabled(self._scenario.setup.method is not Method.FULL)

    def options(self) -> AlignmentOptions:
        """The variants as the engine takes them."""
        return AlignmentOptions(
            reference_shares_base=self.shared_base.isChecked(),
            dpo_precomputed_reference=self.precomputed.isChecked(),
            grpo_kl_coef=0.0 if self.kl_zero.isChecked() else DEFAULTS.grpo_kl_coef,
            grpo_reward_model=self.reward_model.isChecked(),
            rollout_share=round(self.rollout.value(), 2),
        )
