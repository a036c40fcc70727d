"""The Alignment page's controls: method and GPUs (the shared scenario), the variants that change how many
models are held, and PPO / GRPO's rollout (the page's own ``AlignmentChoices``), every one bound through
``gui.state.binding``.

The rollout settings (``RolloutControls``, issue 19; ``engine.alignment.rollout``): "Sample completions" switches
TRL's RL shape on or off as a whole. On, PPO and GRPO train on G completions of C tokens per prompt of P tokens,
sampled by the chosen engine; off, every RL field is unset and the stages count the setup's batch and sequence
as before. A field left unset while the shape is on is TRL's default, and its box shows that value. Unticking
and ticking again gives back the values set before.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLayout,
    QSpinBox,
    QWidget,
)

from engine.alignment import AlignmentOptions, RolloutEngine, Stage
from engine.alignment.rollout import DEFAULT_COMPLETION, DEFAULT_GENERATIONS, DEFAULT_PROMPT
from engine.specs import Method, Sharding
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import Fields, PageState, touches
from gui.state.scenario import Scenario
from gui.text.choices import method_choices

DEFAULTS = AlignmentOptions()
# the RL fields and the value each takes when unset while the RL shape is on (TRL's defaults)
RL_DEFAULTS: dict[str, int] = {"num_generations": DEFAULT_GENERATIONS, "max_prompt_length": DEFAULT_PROMPT,
                               "max_completion_length": DEFAULT_COMPLETION}
RL_FIELDS = (*RL_DEFAULTS, "rollout_engine")
# the stages the rollout settings are for
RL_STAGES = (Stage.PPO, Stage.GRPO)


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
        self.rl = RolloutControls(state, self.own, self)  # the page lays it out, beside the stage it concerns
        self.rollout = self.rl.share
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

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # its least width: minimumSizeHint
        pairs = [(self.tr("Method"), self.method), (self.tr("GPUs"), self.gpus), (self.tr("Sharding"), self.sharding)]
        for i, (text, widget) in enumerate(pairs):  # three pairs a row, the check boxes under them
            grid.addWidget(QLabel(text, self), 0, 3 * i)
            grid.addWidget(widget, 0, 3 * i + 1)
        self._grid, self._boxes, self._box_columns = grid, [self.shared_base, self.precomputed, self.kl_zero,
                                                             self.reward_model], 0
        self._place_boxes(2)
        for col in (2, 5, 8):
            grid.setColumnStretch(col, 1)

    def _place_boxes(self, columns: int) -> None:
        """The variants' check boxes two to a row, or one (a large type on a small screen)."""
        for box in self._boxes:
            self._grid.removeWidget(box)
        for i, box in enumerate(self._boxes):
            r, c = divmod(i, columns)
            self._grid.addWidget(box, 1 + r, 3 * c, 1, (3 + 3 * c) if columns == 2 else 9)
        self._box_columns = columns

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        widths = [box.minimumSizeHint().width() for box in self._boxes]
        two = max(widths[0], widths[2]) + max(widths[1], widths[3]) + self._grid.horizontalSpacing()
        wanted = 2 if event.size().width() >= two else 1
        if wanted != self._box_columns:
            self._place_boxes(wanted)

    def minimumSizeHint(self) -> QSize:
        """As narrow as one check box to a row."""
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), max(box.minimumSizeHint().width() for box in self._boxes)), hint.height())

    def _enable(self, fields: Fields) -> None:
        if touches(fields, {"setup.method"}):
            self.shared_base.setEnabled(self.scenario.setup.method is not Method.FULL)

    def flush(self) -> None:
        """Write pending spin-box values now (tests)."""
        self.binder.flush()
        self.own.flush()


class RolloutControls(QGroupBox):
    """PPO / GRPO's rollout: sample completions or not, G, P, C, the rollout engine and vLLM's share of the GPU,
    bound through the page's ``own`` binder (module docstring). Shown for PPO and GRPO only; ``shape`` is a line
    the page fills with the engine's shape of the step.

    Signals: none (they write to the page's state, which signals).
    """

    def __init__(self, state: PageState[AlignmentChoices], own: Binder, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("PPO / GRPO rollout"), parent)
        self.state, self._own = state, own
        self._last: dict[str, Any] = {**RL_DEFAULTS, "rollout_engine": None}
        self.sample = QCheckBox(self.tr("Sample completions (TRL GRPOConfig)"), self)
        self.sample.setToolTip(self.tr("On: the policy trains on G completions of C tokens per prompt of P tokens, "
                                       "sampled by the rollout engine. Off: the setup's batch and sequence length."))
        own.custom(self.sample, "options", read=self._read_rl, show=self._show_rl, changed=self.sample.toggled)
        self.spins = {field: self._spin(own, field, window) for field, window in (
            ("num_generations", ranges.GENERATIONS), ("max_prompt_length", ranges.PROMPT_TOKENS),
            ("max_completion_length", ranges.COMPLETION_TOKENS))}
        self.engine = QComboBox(self)
        engines = [(self.tr("model.generate (in training)"), RolloutEngine.HF_GENERATE),
                   (self.tr("vLLM colocated"), RolloutEngine.VLLM_COLOCATE),
                   (self.tr("vLLM server (own GPUs)"), RolloutEngine.VLLM_SERVER)]
        self.engine.addItems([label for label, _ in engines])
        values = [value for _, value in engines]
        own.custom(self.engine, "options.rollout_engine", read=lambda: values[self.engine.currentIndex()],
                   show=lambda v: self.engine.setCurrentIndex(values.index(v or state.value.options.engine)),
                   changed=self.engine.currentIndexChanged)
        self.share = QDoubleSpinBox(self)
        self.share.setRange(*ranges.ROLLOUT_SHARE)
        self.share.setSingleStep(0.05)
        self.share.setToolTip(self.tr("vLLM's gpu_memory_utilization: the share of each GPU a colocated rollout "
                                      "engine reserves for its weights and KV cache (TRL's colocate default: "
                                      "0.3). 0: no separate engine."))
        own.spin(self.share, "options.rollout_share")
        self.shape = QLabel(self)
        self.shape.setWordWrap(True)
        own.rejected.connect(lambda _field, why: self.shape.setText("⚠ " + why))
        self._layout()
        state.changed.connect(self._sync)
        self._sync(frozenset({"stage", "options"}))

    def _spin(self, own: Binder, field: str, window: tuple[int, int]) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setRange(*window)
        spin.setKeyboardTracking(False)
        spin.setGroupSeparatorShown(True)
        own.custom(spin, f"options.{field}", read=spin.value,
                   show=lambda v: spin.setValue(RL_DEFAULTS[field] if v is None else v),
                   changed=spin.valueChanged, coalesce=True)
        return spin

    def _layout(self) -> None:
        form = QFormLayout(self)
        form.addRow(self.sample)
        form.addRow(self.tr("Generations per prompt (G)"), self.spins["num_generations"])
        form.addRow(self.tr("Prompt tokens (P)"), self.spins["max_prompt_length"])
        form.addRow(self.tr("Completion tokens (C)"), self.spins["max_completion_length"])
        form.addRow(self.tr("Rollout engine"), self.engine)
        form.addRow(self.tr("vLLM GPU memory utilization"), self.share)
        form.addRow(self.shape)

    def _read_rl(self) -> dict[str, Any]:
        """The options with the RL shape on (the values set before, else TRL's defaults) or off (all unset)."""
        o = self.state.value.options
        if not self.sample.isChecked():
            return {**o.model_dump(), **dict.fromkeys(RL_FIELDS)}
        if o.rl:
            return o.model_dump()
        return {**o.model_dump(), **self._last, "rollout_engine": self._last["rollout_engine"] or o.engine}

    def _show_rl(self, options: AlignmentOptions) -> None:
        self.sample.setChecked(options.rl)

    def _sync(self, fields: Fields) -> None:
        """Shown for PPO and GRPO; each box enabled when it counts; the values set remembered."""
        value = self.state.value
        if touches(fields, {"stage"}):
            self.setVisible(value.stage in RL_STAGES)
        if not touches(fields, {"options"}):
            return
        o = value.options
        if o.rl:
            self._last = {f: getattr(o, f) or RL_DEFAULTS.get(f) for f in RL_FIELDS}
        if o.rollout_engine is None:  # the engine the options imply follows the share
            self._own.refresh(frozenset({"options.rollout_engine"}))
        for widget in (*self.spins.values(), self.engine):
            widget.setEnabled(o.rl)
        self.share.setEnabled(not o.rl or o.engine is RolloutEngine.VLLM_COLOCATE)
