"""engine.training.timeline: steps 1 and 2 layer by layer; the largest point is the estimate's peak, exactly."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.catalog import get_gpu, get_model, models
from engine.specs import (
    Attention,
    Checkpointing,
    Method,
    ModelSpec,
    ParallelSpec,
    Precision,
    TrainingSetup,
)
from engine.training import estimate
from engine.training.moments import MomentKind
from engine.training.timeline import timeline
from tests.engine.strategies import costed, setups

GPU = get_gpu("h100-80gb")



@settings(max_examples=200, deadline=None)
@given(st.sampled_from(models()), setups)
def test_the_largest_point_is_the_estimates_peak(m: ModelSpec, s: TrainingSetup) -> None:
    assume(costed(m, s))  # options the model cannot take are refused by name (issue 27)
    t = timeline(m, s)
    e = estimate(m, s, GPU)
    assert max(p.allocated_bytes for p in t.points) == t.peak_allocated_bytes == e.peak_allocated_bytes
    peak = t.points[t.peak_index]
    assert (peak.phase, peak.step) == (e.peak_phase, e.peak_step)
    assert peak.terms == {term.name: term.bytes for term in e.terms}


def test_two_steps_at_layer_resolution() -> None:
    m = get_model("llama-2-7b")
    t = timeline(m, TrainingSetup(seq_len=2048))
    assert len(t.points) == 2 * (2 * m.num_layers + 4)
    step1 = [p for p in t.points if p.step == 1]
    assert [p.layer for p in step1 if p.moment is MomentKind.FORWARD_LAYER] == list(range(m.num_layers))
    assert [p.layer for p in step1 if p.moment is MomentKind.BACKWARD_LAYER] == list(reversed(range(32)))
    assert [p.phase for p in step1][-3:] == ["backward", "backward", "optimizer_step"]
    assert [p.index for p in t.points] == list(range(len(t.points)))
    assert all(sum(p.terms.values()) == p.allocated_bytes for p in t.points)
    # AdamW's states exist from the first optimizer step on
    assert step1[0].terms["optimizer_states"] == 0
    assert t.points[len(step1)].terms["optimizer_states"] == step1[-1].terms["optimizer_states"] > 0


@pytest.mark.parametrize("checkpointing", list(Checkpointing))
def test_activations_pile_up_forward_and_go_backward(checkpointing: Checkpointing) -> None:
    t = timeline(get_model("llama-3.2-1b"), TrainingSetup(seq_len=1024, checkpointing=checkpointing))
    fwd = [p.terms["activations"] for p in t.points if p.step == 2 and p.moment is MomentKind.FORWARD_LAYER]
    assert all(b > a for a, b in pairwise(fwd))


def test_a_parallel_layout_shows_its_most_loaded_stage() -> None:
    m = get_model("llama-2-7b")
    s = TrainingSetup(gpus=8, parallel=ParallelSpec(tp=2, pp=4), seq_len=2048)
    e = estimate(m, s, GPU)
    t = timeline(m, s, GPU)
    assert t.stage == e.most_loaded_stage
    assert max(p.allocated_bytes for p in t.points) == e.peak_allocated_bytes
    others = [timeline(m, s, stage=i).peak_allocated_bytes for i in range(4)]
    assert others == [r.peak_allocated_bytes for r in e.ranks]
    with pytest.raises(ValueError, match="needs the GPU"):
        timeline(m, s)


def test_with_activation_offload_the_forward_can_peak_at_its_last_layer() -> None:
    """Offloaded, the last layer's activations are still on the GPU at its forward, and outweigh the loss's
    logits at the forward's end: the estimate's moments include that layer (found by the property test above)."""
    m = get_model("llama-2-7b")
    s = TrainingSetup(method=Method.LORA, precision=Precision.AMP_BF16, seq_len=1540, attention=Attention.EAGER,
                      activation_offload=True)
    t, e = timeline(m, s), estimate(m, s, GPU)
    peak = t.points[t.peak_index]
    assert (peak.moment, peak.layer, peak.step) == (MomentKind.FORWARD_LAYER, 31, 2)
    assert peak.allocated_bytes == e.peak_allocated_bytes == max(p.allocated_bytes for p in t.points)
