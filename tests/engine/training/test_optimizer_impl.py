"""torch AdamW's implementation as a memory fact (issue 25, ``--optimizer-impl``, ``--stack``).

The checks are transformers' real Trainer steps traced with fake tensors (calibration/stacks/, bundled in
engine/catalog/stack_traces.json): foreach AdamW's whole-model ``_foreach_sqrt`` temporary, the for-loop's two
copies of the largest parameter, and nothing for the fused kernel (calibration/stacks/NOTES.md section 2).
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from engine.catalog import get_gpu, get_model
from engine.params import count_params
from engine.specs import Method, Optimizer, OptimizerImpl, Precision, Stack, TrainingSetup
from engine.training.accuracy import stack_traces
from engine.training.estimate import estimate
from engine.training.result import Estimate

BUNDLED = json.loads(resources.files("engine.catalog").joinpath("stack_traces.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", BUNDLED["runs"], ids=lambda r: r["id"])
def test_each_stack_trace_within_two_percent(row: dict[str, object]) -> None:
    [comparison] = [c for rows in stack_traces().values() for c in rows if c.id == row["id"]]
    assert comparison.comparable
    assert abs(comparison.error) < 0.02, f"{row['id']}: estimate {comparison.error:+.2%} off the trace"


def test_every_implementation_is_traced() -> None:
    impls = {r["setup"]["optimizer_impl"] for r in BUNDLED["runs"] if "optimizer_impl" in r["setup"]}
    assert impls == {"fused", "foreach", "forloop"}


def _full(impl: OptimizerImpl | None, stack: Stack = Stack.HF_TRAINER) -> TrainingSetup:
    return TrainingSetup(method=Method.FULL, precision=Precision.BF16, batch=1, seq_len=512, stack=stack,
                         optimizer_impl=impl)


def _step(e: Estimate) -> float:
    """The live total at step 2's optimizer step."""
    return float(next(p.total for p in e.phases if p.name == "optimizer_step" and p.step == 2))


def test_foreach_adds_one_copy_of_the_states_in_the_step() -> None:
    m, gpu = get_model("llama-2-7b"), get_gpu("h200")
    fused, foreach = estimate(m, _full(OptimizerImpl.FUSED), gpu), estimate(m, _full(OptimizerImpl.FOREACH), gpu)
    assert foreach.peak_phase == "optimizer_step"
    # bf16 states: 2 bytes per parameter, every parameter's exp_avg_sq square-rooted at once
    assert _step(foreach) - _step(fused) == 2 * count_params(m).total


def test_forloop_adds_two_copies_of_the_largest_parameter() -> None:
    m, gpu = get_model("llama-3.2-1b"), get_gpu("h200")
    fused, loop = estimate(m, _full(OptimizerImpl.FUSED), gpu), estimate(m, _full(OptimizerImpl.FORLOOP), gpu)
    assert _step(loop) - _step(fused) == 2 * 2 * m.vocab_size * m.hidden_size  # the bf16 embedding, twice


def test_the_stack_sets_the_default_implementation() -> None:
    assert _full(None).adamw_impl is OptimizerImpl.FUSED  # transformers >= 4.54 with torch >= 2.8
    assert _full(None, Stack.LITGPT).adamw_impl is OptimizerImpl.FOREACH  # litgpt passes neither to torch
    assert TrainingSetup(optimizer=Optimizer.PAGED_ADAMW_8BIT).adamw_impl is None  # bitsandbytes' own


def test_setup_json_names_the_stack_and_the_implementation_costed() -> None:
    out = _full(None, Stack.LITGPT).as_json()
    assert (out["stack"], out["optimizer_impl"]) == ("litgpt", "foreach")
    sgd = TrainingSetup(optimizer=Optimizer.SGD, stack=Stack.TORCHTUNE).as_json()
    assert (sgd["stack"], sgd["optimizer_impl"]) == ("torchtune", None)
    # issue 25's contract: both always, the default run's too (the stack's fused AdamW)
    default = TrainingSetup().as_json()
    assert (default["stack"], default["optimizer_impl"]) == ("hf-trainer", "fused")


def test_an_implementation_for_an_optimizer_without_one_is_refused() -> None:
    with pytest.raises(ValueError, match="optimizer_impl foreach is torch AdamW's implementation"):
        TrainingSetup(optimizer=Optimizer.PAGED_ADAMW_8BIT, optimizer_impl=OptimizerImpl.FOREACH)
