"""Properties every estimate must have, over random models and setups (hypothesis)."""

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.catalog import get_gpu
from engine.params import count_params
from engine.specs import (
    FULL_ONLY_OPTIMIZERS,
    PARTIAL_METHODS,
    PER_TENSOR_OPTIMIZERS,
    Attention,
    Checkpointing,
    Method,
    Sharding,
)
from engine.training import estimate
from tests.engine.strategies import catalog, costed, setups

GPU = get_gpu("h100-80gb")



def _widest_head(m):
    """The widest query/key or value head of any attention layer (MLA's are wider than ``head_dim``)."""
    mla = m.mla
    return max((m.head_size, *((mla.qk_nope_head_dim + mla.qk_rope_head_dim, mla.v_head_dim) if mla else ())))


def _act(m, s):
    e = estimate(m, s, GPU)
    fwd = [p for p in e.phases if p.name == "forward"]
    return max(p.terms.get("activations", 0) for p in fwd)


@settings(max_examples=150, deadline=None)
@given(catalog, setups)
def test_no_negative_or_nan_bytes(m, s):
    assume(costed(m, s))  # options the model cannot take are refused by name (issue 27)
    e = estimate(m, s, GPU)
    for t in e.terms:
        assert t.bytes >= 0, t
        assert not math.isnan(t.bytes), t
    for p in e.phases:
        assert all(v >= 0 for v in p.terms.values())
    assert e.peak_allocated_bytes <= e.reserved_bytes <= e.device_bytes


@settings(max_examples=100, deadline=None)
@given(catalog, setups, st.integers(1, 8192))
def test_more_tokens_never_need_less(m, s, extra):
    assume(costed(m, s))  # options the model cannot take are refused by name (issue 27)
    longer = s.with_(seq_len=s.seq_len + extra)
    assert estimate(m, longer, GPU).peak_allocated_bytes >= estimate(m, s, GPU).peak_allocated_bytes
    bigger = s.with_(batch=s.batch + 1)
    assert estimate(m, bigger, GPU).peak_allocated_bytes >= estimate(m, s, GPU).peak_allocated_bytes


@settings(max_examples=100, deadline=None)
@given(catalog, setups, st.integers(1, 32))
def test_more_zero3_gpus_never_need_more_per_gpu(m, s, more):
    assume(costed(m, s))  # options the model cannot take are refused by name (issue 27)
    assume(s.optimizer not in PER_TENSOR_OPTIMIZERS and s.method is not Method.LORA_8BIT
           and s.method not in PARTIAL_METHODS)  # no ZeRO-3 (issue 27)
    z = s.with_(sharding=Sharding.ZERO3)
    wider = z.with_(gpus=z.gpus + more)
    assert estimate(m, wider, GPU).peak_allocated_bytes <= estimate(m, z, GPU).peak_allocated_bytes


@settings(max_examples=100, deadline=None)
@given(catalog, setups, st.integers(256, 32_768))
def test_checkpointing_and_flash_never_increase_activations(m, s, seq_len):
    assume(costed(m, s))  # options the model cannot take are refused by name (issue 27)
    # From 256 tokens and twice the widest head up. Below that it is not true, in PyTorch either: SDPA keeps its
    # output (plus the contiguous copy o_proj saves) where eager keeps only s score bytes per head and token
    # (the crossover is near d/3 tokens in bf16, d tokens in fp32; MLA's heads are 256 wide: GLM-4.7-Flash in fp32
    # at 256 tokens keeps 0.02% more with FlashAttention).
    assume(seq_len >= 2 * _widest_head(m))
    assume(s.method not in PARTIAL_METHODS)  # LLaMA-Factory's freeze / BAdam checkpointing: eager refused (issue 27)
    plain = s.with_(checkpointing=Checkpointing.NONE, attention=Attention.EAGER, seq_len=seq_len)
    assert _act(m, plain.with_(checkpointing=Checkpointing.FULL)) <= _act(m, plain)
    assert _act(m, plain.with_(attention=Attention.FLASH)) <= _act(m, plain)
    assert _act(m, plain.with_(attention=Attention.SDPA)) <= _act(m, plain)


@settings(max_examples=60, deadline=None)
@given(catalog, setups)
def test_qlora_weights_are_smaller_than_lora_weights(m, s):
    assume(costed(m, s))  # options the model cannot take are refused by name (issue 27)
    assume(s.optimizer not in FULL_ONLY_OPTIMIZERS)  # they need full fine-tuning (issue 27)
    # PEFT's prepare_model_for_kbit_training (the hf-trainer stack) upcasts what stays unquantized, the token
    # tables among them, to fp32: on a small model with a large vocabulary (Pythia 160M: 77M of 162M parameters)
    # that costs more than 4 bits save on the linears (2 extra bytes each against about 1.5 saved), so the
    # property holds where the linears outweigh the tables 1.5 to 1
    tables = m.vocab_size * m.hidden_size * (1 if m.tie_embeddings else 2)
    assume(count_params(m).total - tables > 1.5 * tables)
    q = estimate(m, s.with_(method=Method.QLORA, offload_params=False, sharding=Sharding.NONE), GPU)
    lo = estimate(m, s.with_(method=Method.LORA, offload_params=False, sharding=Sharding.NONE), GPU)
    wq = next(p for p in q.phases if p.name == "optimizer_step").terms["weights"]
    wl = next(p for p in lo.phases if p.name == "optimizer_step").terms["weights"]
    assert wq < wl
