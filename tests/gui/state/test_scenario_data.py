"""gui.state.scenario_data: what a scenario holds, its defaults, and the layout rule it checks."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Method, ParallelSpec, TrainingSetup
from engine.units import Unit
from gui.state import scenario_data
from gui.state.scenario_data import ScenarioData


def test_defaults_are_the_seeds() -> None:
    d = scenario_data.defaults()
    assert (d.model.id, d.gpu.id, d.setup, d.unit) == ("llama-2-7b", "a100-80gb", TrainingSetup(), Unit.GB)


def test_a_layout_must_suit_the_model() -> None:
    """A valid training setup is refused beside a model it cannot lay out, and accepted beside one it can."""
    s = TrainingSetup(gpus=8, parallel=ParallelSpec(pp=8))
    assert ScenarioData(model=get_model("llama-2-7b"), setup=s, gpu=get_gpu("h100-80gb")).setup == s
    with pytest.raises(ValueError, match=r"pp \(8\) cannot exceed the layers \(6\)"):
        ScenarioData(model=get_model("gpt2").model_copy(update={"num_layers": 6}), setup=s, gpu=get_gpu("h100-80gb"))


def test_an_option_the_model_cannot_take_is_refused_by_name() -> None:
    """Fuzz seed 108 (a bug): 65,536 trainable tokens beside Llama 2 7B's 32,000-token vocabulary reached the pages,
    whose estimates raised; the engine's per-model refusals (``engine.training.refusals``) are checked here too."""
    s = TrainingSetup(method=Method.LORA, trainable_tokens=65_536)
    with pytest.raises(ValueError, match=r"trainable_tokens \(65,536\) exceeds Llama 2 7B's vocabulary"):
        ScenarioData(model=get_model("llama-2-7b"), setup=s, gpu=get_gpu("a100-80gb"))
    assert ScenarioData(model=get_model("llama-3.1-8b"), setup=s, gpu=get_gpu("a100-80gb")).setup == s
