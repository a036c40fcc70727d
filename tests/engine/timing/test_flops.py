"""The step-time model's FLOP counts against hand-derived ones (engine.timing.work).

Narayanan et al. 2021 (arXiv:2104.04473, s5.1): one forward and backward of a GPT-style decoder (MHA, a 4h MLP)
on B sequences of s tokens, without recomputation, is ``72 B s l h^2 (1 + s / (6 h) + V / (12 l h))`` FLOPs,
attention over the whole s x s square as eager attention computes it; full recomputation adds one forward
(``96 B s l h^2 (...)`` with the output layer not rerun: ``+ 24 B s l h^2 (1 + s / (6 h))``). A frozen base (LoRA)
drops the weight gradients: ``2 x`` the forward for every linear; the adapters add ``6 T r (n_in + n_out)`` each.
"""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.params import count_params, lora_params
from engine.specs import ModelSpec, TrainingSetup
from engine.timing.fitted import fitted
from engine.timing.hardware import gpu_perf
from engine.timing.stacks import stack_rules
from engine.timing.work import Ctx, micro_batch
from engine.training.plan import resolve

GPT = ModelSpec(id="gpt-test", vocab_size=51200, hidden_size=2048, num_layers=4, num_heads=16, num_kv_heads=16,
                intermediate_size=8192, mlp="plain", norm="layernorm")


def _flops(m: ModelSpec, s: TrainingSetup, checkpointing: str = "none") -> float:
    plan = resolve(m, s)
    c = Ctx(m=m, s=s, plan=plan, rules=stack_rules("hf-trainer"), perf=gpu_perf(get_gpu("h100-80gb")), f=fitted(),
            tokens=s.micro_batch_tokens, dtype="bf16", linear_dtype="bf16", checkpointing=checkpointing)
    return micro_batch(c, 0).total().flops


def test_full_fine_tuning_is_narayanans_72_b_s_l_h2() -> None:
    b, s_, layers, h, v = 2, 1024, 4, 2048, 51200
    hand = 72 * b * s_ * layers * h**2 * (1 + s_ / (6 * h) + v / (12 * layers * h))
    got = _flops(GPT, TrainingSetup(batch=b, seq_len=s_, attention="eager"))
    assert got == pytest.approx(hand, rel=1e-12)


def test_full_recomputation_adds_one_forward_of_the_layers() -> None:
    b, s_, layers, h = 1, 2048, 4, 2048
    base = _flops(GPT, TrainingSetup(batch=b, seq_len=s_, attention="eager"))
    again = _flops(GPT, TrainingSetup(batch=b, seq_len=s_, attention="eager", checkpointing="full"), "full")
    assert again - base == pytest.approx(24 * b * s_ * layers * h**2 * (1 + s_ / (6 * h)), rel=1e-12)


def test_six_n_per_token_for_the_linears_of_a_llama() -> None:
    """Llama 2 7B, flash attention: 6 N per token over every linear (N: the decoder's linears and the output
    layer, Kaplan et al. 2020), plus the causal attention as FlashAttention runs it: 4 T h d (s + 128) / 2 per
    layer forward, 2.5x that backward."""
    m = get_model("llama-2-7b")
    pc = count_params(m)
    t, s_ = 4096, 4096
    linears = pc.attention + pc.mlp + pc.lm_head
    attention = m.num_layers * 4 * t * m.num_heads * m.head_size * (s_ + 128) / 2 * 3.5
    got = _flops(m, TrainingSetup(batch=1, seq_len=s_))
    assert got == pytest.approx(6 * linears * t + attention, rel=1e-12)


def test_lora_skips_the_base_weight_gradients_and_adds_the_adapters() -> None:
    m = get_model("llama-2-7b")
    pc = count_params(m)
    t = 2048
    full = _flops(m, TrainingSetup(batch=1, seq_len=t))
    lora = _flops(m, TrainingSetup(batch=1, seq_len=t, method="lora"))
    adapters = lora_params(m, 16, TrainingSetup().lora.targets)
    # the frozen base: no wgrad of the decoder's linears nor of the (frozen) output layer
    assert full - lora == pytest.approx(2 * t * (pc.attention + pc.mlp + pc.lm_head) - 6 * t * adapters, rel=1e-12)
