"""DeepSpeed-Ulysses (cp_comm_type a2a): the sequence split's activations and the all-to-all's buffers, by hand
and as LLaMA-Factory 0.9.5's all-to-all was traced (calibration/options.py --ulysses: three of the input's size)."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Attention, Checkpointing, Method, ParallelSpec, TrainingSetup
from engine.training import Estimate, estimate
from engine.training.layout import LayoutError

LLAMA_8B = get_model("llama-3.1-8b")


def _term(e: Estimate, name: str) -> int:
    return next(t.bytes for t in e.terms if t.name == name)


def _setup(comm: str, **kw: object) -> TrainingSetup:
    return TrainingSetup(method=Method.LORA, gpus=4, seq_len=32_768, checkpointing=Checkpointing.FULL,
                         parallel=ParallelSpec(cp=4, cp_comm_type=comm), **kw)


def test_ulysses_holds_three_queries_where_ring_holds_two_kv_chunks() -> None:
    """Per local token: three bf16 tensors of 32 heads x 128 (the all-to-all's copy, receive buffer and result)
    against ring attention's two chunks of k and v (8 key/value heads x 128 each); the rest is the same split."""
    ring = estimate(LLAMA_8B, _setup("p2p"), get_gpu("h200"))
    ulysses = estimate(LLAMA_8B, _setup("a2a"), get_gpu("h200"))
    tokens = 32_768 // 4
    assert _term(ring, "parallel_buffers") == tokens * 2 * 2 * (2 * 8 * 128)
    assert _term(ulysses, "parallel_buffers") == tokens * 3 * 2 * 32 * 128
    assert _term(ulysses, "activations") == _term(ring, "activations")


def test_ulysses_takes_eager_attention_and_needs_whole_heads() -> None:
    estimate(LLAMA_8B, _setup("a2a", attention=Attention.EAGER), get_gpu("h200"))  # each rank: heads / 4, all s
    with pytest.raises(LayoutError, match="heads"):
        estimate(LLAMA_8B, TrainingSetup(gpus=16, parallel=ParallelSpec(cp=16, cp_comm_type="a2a")), get_gpu("h200"))
    with pytest.raises(ValueError, match="Ulysses"):
        TrainingSetup(gpus=4, parallel=ParallelSpec(tp=2, cp=2, cp_comm_type="a2a"))
