"""Every quantity a goal can name reads a value of its kind on a real situation, and is labelled in both
languages; inputs read the situation itself, results the engine's own objects."""

from __future__ import annotations

import pytest

from engine.alignment import Stage, stage_memory
from engine.lessons import Kind, Results, Situation, registry
from engine.lessons.quantities import TERM_WORDS
from engine.training.estimate import TERM_ORDER

SITUATION = Situation.default()
RESULTS = Results(SITUATION)


@pytest.mark.parametrize("name", list(registry()))
def test_each_quantity_reads_a_value_of_its_kind(name: str) -> None:
    q = registry()[name]
    value = q.read(RESULTS)
    if q.kind is Kind.BOOL:
        assert isinstance(value, bool)
    elif q.kind is Kind.CHOICE:
        assert q.choices is not None
        assert value in q.choices()
    else:
        assert isinstance(value, int | float)
        assert not isinstance(value, bool)
    assert q.label.en
    assert q.label.zh_TW
    shown = q.show(value)
    assert shown.en
    assert shown.zh_TW


def test_results_are_the_engines() -> None:
    reg = registry()
    e = RESULTS.estimate
    assert reg["estimate.device_bytes"].read(RESULTS) == e.device_bytes
    assert {t: reg[f"estimate.{t}"].read(RESULTS) for t in TERM_ORDER} == {t.name: t.bytes for t in e.terms}
    assert reg["estimate.biggest_term"].read(RESULTS) == "optimizer_states"  # 12 bytes x 6.74B, the seed's bill
    ppo = stage_memory(Stage.PPO, SITUATION.model, SITUATION.setup, SITUATION.gpu, SITUATION.alignment)
    assert reg["alignment.ppo.models"].read(RESULTS) == ppo.models == 4
    assert reg["model.params"].read(RESULTS) == 6_738_415_616
    assert reg["attention.step_bytes"].read(RESULTS) == 4096 * 4096 * 2  # X: b x s x hidden x 2 bytes


def test_inputs_are_the_only_keepable_quantities() -> None:
    inputs = {q.name for q in registry().values() if q.is_input}
    assert {"model", "gpu", "method", "seq_len", "serving.tokens", "alignment.grpo_reward_model",
            "attention.step"} <= inputs
    assert not any(n.startswith(("estimate.", "serving.kv_bytes", "alignment.ppo")) for n in inputs)
    assert set(TERM_WORDS) == set(TERM_ORDER)
