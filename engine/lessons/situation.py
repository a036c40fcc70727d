"""What a lesson's goal is checked against: the scenario and each page's own settings, and the engine's results.

A :class:`Situation` is everything the learner can change: the shared scenario (model, training setup, GPU) and
the settings that live on one page (the serving page's ``ServingSetup``, the alignment page's
``AlignmentOptions``, the attention page's current step). :class:`Changes` describes a change to it in data (a
lesson's start, its solution): only the fields it names change. :class:`Results` computes engine results on
demand, once each, so a goal that reads only the training estimate costs one estimate (about 40 µs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, TypeVar

from pydantic import AfterValidator, BaseModel

from engine.alignment import AlignmentOptions, Stage, StageMemory, stage_memory
from engine.attention import ATTENTION_DTYPE
from engine.attention_sizes import StepKey, TensorSize, tensor_size
from engine.catalog import DEFAULT_GPU, DEFAULT_MODEL, get_gpu, get_model
from engine.lessons.text import Strict
from engine.params import count_params
from engine.serving import ServingFit, ServingSetup, serving_fit
from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.training import Estimate, estimate

M = TypeVar("M", bound=BaseModel)


def _model_id(name: str) -> str:
    try:
        return get_model(name).id
    except LookupError as err:
        raise ValueError(str(err)) from None


def _gpu_id(name: str) -> str:
    try:
        return get_gpu(name).id
    except LookupError as err:
        raise ValueError(str(err)) from None


ModelId = Annotated[str, AfterValidator(_model_id)]
GpuId = Annotated[str, AfterValidator(_gpu_id)]


@dataclass(frozen=True, slots=True)
class Situation:
    """The learner's current scenario and page settings (what the GUI holds; what the CLI's flags describe)."""

    model: ModelSpec
    gpu: GpuSpec
    setup: TrainingSetup = field(default_factory=TrainingSetup)
    serving: ServingSetup = field(default_factory=ServingSetup)
    alignment: AlignmentOptions = field(default_factory=AlignmentOptions)
    attention_step: StepKey = StepKey.X

    @classmethod
    def default(cls) -> Situation:
        """The seed's scenario: Llama 2 7B, full fine-tuning, bf16 mixed, AdamW, 4,096 x 1, on an A100 80GB."""
        return cls(get_model(DEFAULT_MODEL), get_gpu(DEFAULT_GPU))

    def changed(self, changes: Changes) -> Situation:
        """This situation with ``changes`` applied (``ValueError`` when the result is not a valid setup)."""
        return Situation(
            model=get_model(changes.model) if changes.model else self.model,
            gpu=get_gpu(changes.gpu) if changes.gpu else self.gpu,
            setup=_merged(self.setup, changes.setup),
            serving=_merged(self.serving, changes.serving),
            alignment=_merged(self.alignment, changes.alignment),
            attention_step=changes.attention_step or self.attention_step,
        )


class Changes(Strict):
    """A change to a situation, as a lesson file writes it: only the fields given change.

    ``setup``, ``serving`` and ``alignment`` are the engine's own input models, so their fields, bounds and
    choices are checked as the engine checks them; nested setup fields change one by one
    (``{"lora": {"rank": 64}}`` keeps the other LoRA settings)."""

    model: ModelId | None = None
    gpu: GpuId | None = None
    setup: TrainingSetup | None = None
    serving: ServingSetup | None = None
    alignment: AlignmentOptions | None = None
    attention_step: StepKey | None = None


def _merged(base: M, change: M | None) -> M:
    """``base`` with the fields that ``change`` sets explicitly (recursively for nested models), re-validated."""
    if change is None:
        return base
    data = base.model_dump()
    for name in change.model_fields_set:
        value = getattr(change, name)
        data[name] = _merged(getattr(base, name), value).model_dump() if isinstance(value, BaseModel) else value
    return type(base).model_validate(data)


class Results:
    """The engine's results for one situation, each computed on first use and kept."""

    def __init__(self, situation: Situation) -> None:
        self.situation = situation
        self._stages: dict[Stage, StageMemory] = {}

    @cached_property
    def estimate(self) -> Estimate:
        s = self.situation
        return estimate(s.model, s.setup, s.gpu)

    @cached_property
    def serving(self) -> ServingFit:
        s = self.situation
        return serving_fit(s.model, s.gpu, s.serving)

    @cached_property
    def params(self) -> int:
        return count_params(self.situation.model).total

    @cached_property
    def step_size(self) -> TensorSize:
        """The attention page's current step's tensor in the real model, at the setup's length and batch."""
        s = self.situation
        return tensor_size(s.attention_step, s.model, s.setup.seq_len, ATTENTION_DTYPE, s.setup.batch)

    def stage(self, stage: Stage) -> StageMemory:
        if stage not in self._stages:
            s = self.situation
            self._stages[stage] = stage_memory(stage, s.model, s.setup, s.gpu, s.alignment)
        return self._stages[stage]
