"""engine.training.moments: the moments of a step, coarse and fine, and the per-layer sums they use."""

from __future__ import annotations

import numpy as np
import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Attention, Checkpointing, Method, Precision, TrainingSetup
from engine.training import estimate
from engine.training.context import stage_context
from engine.training.estimate import peak_index, step_table, tokens_of
from engine.training.moments import Cost, MomentKind, moments
from engine.training.plan import resolve

H200 = get_gpu("h200")


def test_cost_is_affine_in_tokens_and_their_square() -> None:
    c = Cost(10.0, 2.0, 0.5) + Cost(1.0, 1.0, 0.0)
    assert c.at(100, 10_000) == 11 + 3 * 100 + 0.5 * 10_000
    assert (c - Cost(1.0, 1.0, 0.0)) == Cost(10.0, 2.0, 0.5)


def test_coarse_moments_list_the_first_and_last_layer_of_each_run() -> None:
    """DeepSeek-V2-Lite: one dense layer, then 26 MoE layers: two runs, top run first in backward; in the forward,
    with activation offloading, the last layer of each run (where the in-flight layer can peak)."""
    c = stage_context(resolve(get_model("deepseek-v2-lite"), TrainingSetup()), 0)
    assert c.run_bounds == ((0, 0), (1, 26))
    offloaded = stage_context(resolve(get_model("deepseek-v2-lite"), TrainingSetup(activation_offload=True)), 0)
    forward = [(mo.kind, mo.layer) for mo in moments(offloaded.run_bounds, offloaded.offloaded) if mo.step == 1][:2]
    assert forward == [(MomentKind.FORWARD_LAYER, 0), (MomentKind.FORWARD_LAYER, 26)]
    step1 = [(mo.kind, mo.layer) for mo in moments(c.run_bounds, c.offloaded) if mo.step == 1]
    assert step1 == [
        (MomentKind.FORWARD_END, None), (MomentKind.BACKWARD_START, None),
        (MomentKind.BACKWARD_LAYER, 26), (MomentKind.BACKWARD_LAYER, 1),
        (MomentKind.BACKWARD_LAYER, 0), (MomentKind.BACKWARD_LAYER, 0),
        (MomentKind.BACKWARD_END, None), (MomentKind.OPTIMIZER_STEP, None),
    ]


def test_fine_moments_cover_every_layer_both_ways() -> None:
    c = stage_context(resolve(get_model("llama-2-7b"), TrainingSetup()), 0)
    fine = moments(c.run_bounds, c.offloaded, fine=True)
    assert len(fine) == 2 * (2 * 32 + 4)
    assert [mo.layer for mo in fine if mo.step == 1 and mo.kind is MomentKind.FORWARD_LAYER] == list(range(32))
    assert [mo.layer for mo in fine if mo.step == 2 and mo.kind is MomentKind.BACKWARD_LAYER] == list(
        reversed(range(32)))


SETUPS = [
    TrainingSetup(),
    TrainingSetup(method=Method.LORA, checkpointing=Checkpointing.FULL, seq_len=2048),
    TrainingSetup(method=Method.QLORA, attention=Attention.EAGER, seq_len=1024),
    TrainingSetup(precision=Precision.AMP_BF16, checkpointing=Checkpointing.FULL, seq_len=512),
    TrainingSetup(grad_accum=4, batch=2),
]


@pytest.mark.parametrize("s", SETUPS)
@pytest.mark.parametrize("model", ["llama-2-7b", "deepseek-v2-lite", "gemma-2-2b"])
def test_the_fine_step_peaks_exactly_where_the_estimate_does(model: str, s: TrainingSetup) -> None:
    """Every coarse moment is among the fine ones and the total is linear between them: same maximum."""
    m = get_model(model)
    fine = step_table(m, s, fine=True)
    values = fine.values(*tokens_of(s))
    i = peak_index(values.sum(axis=1), fine.steps)
    e = estimate(m, s, H200)
    assert round(float(values.sum(axis=1)[i])) == pytest.approx(e.peak_allocated_bytes, abs=len(e.terms))
    assert [round(float(v)) for v in values[i]] == [t.bytes for t in e.terms]
    assert (fine.moments[i].phase, fine.moments[i].step) == (e.peak_phase, e.peak_step)


def test_forward_grows_layer_by_layer_and_backward_frees_them() -> None:
    m, s = get_model("llama-2-7b"), TrainingSetup(seq_len=2048)
    fine = step_table(m, s, fine=True)
    act = fine.values(*tokens_of(s))[:, fine.names.index("activations")]
    forward = [a for mo, a in zip(fine.moments, act, strict=True)
               if mo.step == 2 and mo.kind is MomentKind.FORWARD_LAYER]
    backward = [a for mo, a in zip(fine.moments, act, strict=True)
                if mo.step == 2 and mo.kind is MomentKind.BACKWARD_LAYER]
    assert np.all(np.diff(forward) > 0)
    assert np.all(np.diff(backward) < 0)
    per_layer = forward[1] - forward[0]
    assert per_layer == pytest.approx(backward[0] - backward[1])


def test_peak_index_prefers_the_later_step_on_a_tie() -> None:
    steps = np.array([1, 1, 2, 2])
    assert peak_index([5.0, 7.0, 7.0, 7.0], steps) == 2
    assert peak_index([5.0, 9.0, 7.0, 7.0], steps) == 1
