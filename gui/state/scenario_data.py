"""What a scenario holds: the model, how it is trained, the GPU and the unit of bytes (no Qt: tested headless).

``ScenarioData`` is the frozen pydantic model behind the GUI's shared ``Scenario`` (``gui.state.scenario``), the
value an undo step keeps (``gui.state.scenario_history``) and what a saved file holds (``gui.files.scenario_file``,
its format). ``defaults()`` is the scenario the app starts with and File > Reset returns to.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator

from engine.catalog import DEFAULT_GPU, DEFAULT_MODEL, get_gpu, get_model
from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.units import Unit


class ScenarioData(BaseModel):
    """Everything a scenario holds: the model, how it is trained, the GPU, the unit of bytes (the model behind
    the GUI's shared ``Scenario``, and what a file holds)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelSpec
    setup: TrainingSetup = TrainingSetup()
    gpu: GpuSpec
    unit: Unit = Unit.GB

    @model_validator(mode="after")
    def _layout_suits_the_model(self) -> ScenarioData:
        """A parallel layout must suit the model (tp dividing its heads, pp within its layers, ...): the engine's
        rule (``engine.training.layout``, its ``LayoutError`` naming it), checked here so that no page is ever
        handed a scenario it cannot estimate, and a control that would make one is put back; so must the stack's
        rules (``engine.training.stacks.check``: what a stack cannot run, its ``StackError`` naming it), and the
        options a model cannot take as the engine costs them (``engine.training.refusals.check``: more trainable
        tokens than the vocabulary, an option not traced on a token mixer, ..., its ``OptionError`` naming it)."""
        if self.setup.layout_active:
            from engine.training.layout import layout  # the layout rules need the model: checked only with one

            layout(self.model, self.setup)
        from engine.training import refusals
        from engine.training.stacks import check

        refusals.check(self.model, self.setup)
        check(self.model, self.setup)
        return self


def defaults() -> ScenarioData:
    """The seed's scenario: Llama 2 7B, full fine-tuning in bf16 mixed precision, 4,096 tokens, one A100 80GB."""
    return ScenarioData(model=get_model(DEFAULT_MODEL), gpu=get_gpu(DEFAULT_GPU))
