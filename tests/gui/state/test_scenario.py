"""gui.state.scenario: defaults, validated batched updates, one emission per real change."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Method, QuantType, Sharding, TrainingSetup
from engine.units import Unit
from gui.state.scenario import Scenario, ScenarioError


@pytest.fixture
def scenario() -> Scenario:
    return Scenario()


def count_emits(scenario: Scenario) -> list[int]:
    seen: list[int] = []
    scenario.changed.connect(lambda: seen.append(1))
    return seen


def test_defaults(scenario: Scenario) -> None:
    assert scenario.model.id == "llama-2-7b"
    assert scenario.gpu.id == "a100-80gb"
    assert scenario.setup == TrainingSetup()
    assert scenario.unit is Unit.GB


def test_update_sets_several_setup_fields_with_one_emit(scenario: Scenario) -> None:
    seen = count_emits(scenario)
    assert scenario.update(method=Method.LORA, seq_len=2048, batch=4)
    assert (scenario.setup.method, scenario.setup.seq_len, scenario.setup.batch) == (Method.LORA, 2048, 4)
    assert len(seen) == 1


def test_update_mixes_top_level_and_nested_fields(scenario: Scenario) -> None:
    seen = count_emits(scenario)
    scenario.update(model=get_model("llama-3.1-8b"), gpu=get_gpu("h100-80gb"), unit="GiB",
                    **{"lora.rank": 64, "quant.quant_type": QuantType.FP4})  # fmt: skip
    assert scenario.model.id == "llama-3.1-8b"
    assert scenario.gpu.id == "h100-80gb"
    assert scenario.unit is Unit.GIB
    assert scenario.setup.lora.rank == 64
    assert scenario.get("lora.rank") == 64
    assert scenario.setup.quant.quant_type is QuantType.FP4
    assert len(seen) == 1


def test_no_emit_when_nothing_changes(scenario: Scenario) -> None:
    seen = count_emits(scenario)
    assert not scenario.update(seq_len=scenario.setup.seq_len, model=scenario.model)
    assert not scenario.update()
    assert seen == []


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"seq_len": 0}, "seq_len"),
        ({"batch": "many"}, "batch"),
        ({"lora.rank": 0}, "lora.rank"),
        ({"no_such_field": 1}, "no_such_field"),
        ({"lora.nope": 1}, "lora.nope"),
        ({"model": "llama-2-7b"}, "model"),
        ({"unit": "bytes"}, "unit"),
        ({"offload_params": True}, "offload_params"),
    ],
)
def test_invalid_update_raises_naming_the_field_and_changes_nothing(
    scenario: Scenario, fields: dict[str, object], named: str
) -> None:
    before = (scenario.model, scenario.setup, scenario.gpu, scenario.unit)
    seen = count_emits(scenario)
    with pytest.raises(ValueError, match=named.replace(".", r"\.")):
        scenario.update(method=Method.LORA, **fields)
    assert (scenario.model, scenario.setup, scenario.gpu, scenario.unit) == before
    assert seen == []


def test_cross_field_rule_passes_when_both_fields_change_together(scenario: Scenario) -> None:
    scenario.update(sharding=Sharding.ZERO3, offload_params=True)
    assert scenario.setup.offload_params


def test_batch_groups_updates_into_one_emit(scenario: Scenario) -> None:
    seen = count_emits(scenario)
    with scenario.batch():
        scenario.update(method=Method.QLORA)
        scenario.update(checkpointing=Checkpointing.FULL)
        scenario.update(seq_len=1024)
        assert seen == []
    assert len(seen) == 1
    assert scenario.setup.checkpointing is Checkpointing.FULL


def test_get_rejects_unknown_fields(scenario: Scenario) -> None:
    with pytest.raises(ScenarioError, match="nope"):
        scenario.get("nope")


def test_changed_is_a_qt_signal(qtbot: QtBot, scenario: Scenario) -> None:
    with qtbot.waitSignal(scenario.changed, timeout=1000):
        scenario.update(batch=2)


def test_changed_names_the_fields_in_full(scenario: Scenario) -> None:
    seen: list[frozenset[str]] = []
    scenario.changed.connect(seen.append)
    scenario.update(**{"lora.rank": 64})
    scenario.update(method=Method.LORA, gpu=get_gpu("h100-80gb"))
    scenario.update(model=get_model("llama-3.1-8b"), unit="GiB")
    assert seen == [frozenset({"setup.lora.rank"}), frozenset({"setup.method", "gpu"}),
                    frozenset({"model", "unit"})]


def test_short_and_full_names_are_the_same_field(scenario: Scenario) -> None:
    assert scenario.path("seq_len") == scenario.path("setup.seq_len") == "setup.seq_len"
    scenario.update(**{"setup.seq_len": 1024})
    assert scenario.get("seq_len") == 1024


def test_a_whole_new_setup_names_only_what_differs(scenario: Scenario) -> None:
    seen: list[frozenset[str]] = []
    scenario.changed.connect(seen.append)
    scenario.update(setup=scenario.setup.with_(checkpointing=Checkpointing.FULL))
    assert seen == [frozenset({"setup.checkpointing"})]


def test_a_layout_the_model_cannot_take_is_refused_and_changes_nothing(scenario: Scenario) -> None:
    """Llama 2 7B has 32 heads: tp 3 is refused with the engine's rule; its pydantic rules are refused as before;
    the scenario keeps its value and emits nothing."""
    seen = count_emits(scenario)
    before = scenario.value
    with pytest.raises(ScenarioError, match=r"tp \(3\) must divide the attention heads \(32\)"):
        scenario.update(gpus=3, **{"parallel.tp": 3})
    with pytest.raises(ScenarioError, match=r"sequence parallelism .* needs tp > 1"):
        scenario.update(**{"parallel.sequence_parallel": True})
    assert scenario.value is before
    assert seen == []
    scenario.update(gpus=4, **{"parallel.tp": 4})
    with pytest.raises(ScenarioError, match=r"tp \(4\) must divide the key/value heads \(1\)"):
        scenario.update(model=get_model("llama-2-7b").model_copy(update={"num_kv_heads": 1}))
    assert scenario.model == get_model("llama-2-7b")
