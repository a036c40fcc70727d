"""The Alignment page's controls: method and GPUs (the shared scenario) and the variants that change how many
models are held (the page's own ``AlignmentChoices``), every one bound through ``gui.binding``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QGridLayout, QLabel, QSpinBox, QWidget

from engine.alignment import AlignmentOptions, Stage
from engine.specs import Method, Sharding
from gui import ranges
from gui.binding import Binder
from gui.choices import method_choices
from gui.page_state import Fields, PageState, touches
from gui.scenario import Scenario

DEFAULTS = AlignmentOptions()


class AlignmentChoices(BaseModel):
    """The page's own state: the stage drawn and the variants (kept across a rebuild of the window)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stage: Stage = Stage.DPO
    options: AlignmentOptions = DEFAULTS


class AlignmentControls(QWidget):
    """Scenario pickers and variant toggles.

    Signals: none (they write to the scenario and to the page's state, which signal).
    """

    def __init__(
        self, scenario: Scenario, state: PageState[AlignmentChoices], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.scenario, self.state = scenario, state
        self.binder, self.own = Binder(scenario, self), Binder(state, self)
        self.method, self.sharding, self.gpus = QComboBox(self), QComboBox(self), QSpinBox(self)
        self.gpus.setRange(*ranges.GPUS)
        self.binder.combo(self.method, "method", method_choices())
        self.binder.spin(self.gpus, "gpus")
        self.binder.combo(self.sharding, "sharding", [(self.tr("no sharding"), Sharding.NONE),
                                                      ("ZeRO-1", Sharding.ZERO1), ("ZeRO-2", Sharding.ZERO2),
                                                      ("ZeRO-3 / FSDP", Sharding.ZERO3)])
        self.shared_base = QCheckBox(self.tr("LoRA: the reference is the base with adapters off (no copy)"), self)
        self.precomputed = QCheckBox(self.tr("DPO: reference log-probs precomputed"), self)
        self.kl_zero = QCheckBox(self.tr("GRPO: KL coefficient 0, no reference (TRL's default)"), self)
        self.reward_model = QCheckBox(self.tr("GRPO: a reward model instead of a rule"), self)
        self.rollout = QDoubleSpinBox(self)
        self.rollout.setRange(*ranges.ROLLOUT_SHARE)
        self.rollout.setSingleStep(0.05)
        self.rollout.setToolTip(self.tr("vLLM's gpu_memory_utilization: the share of each GPU the rollout engine "
                                        "reserves for its weights and KV cache (TRL's colocate default: 0.3). "
                                        "0: no separate engine."))
        self._bind_options()
        self._layout()
        scenario.changed.connect(self._enable)
        self._enable(frozenset({"setup.method"}))

    def _bind_options(self) -> None:
        self.own.toggle(self.shared_base, "options.reference_shares_base")
        self.own.toggle(self.precomputed, "options.dpo_precomputed_reference")
        self.own.switch(self.kl_zero, "options.grpo_kl_coef", on=(0.0,), default_on=0.0,
                        default_off=DEFAULTS.grpo_kl_coef)
        self.own.toggle(self.reward_model, "options.grpo_reward_model")
        self.own.spin(self.rollout, "options.rollout_share")

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

    def _enable(self, fields: Fields) -> None:
        if touches(fields, {"setup.method"}):
            self.shared_base.setEnabled(self.scenario.setup.method is not Method.FULL)

    def flush(self) -> None:
        """Write pending spin-box values now (tests)."""
        self.binder.flush()
        self.own.flush()
