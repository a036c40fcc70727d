"""Checkpoints as vLLM holds them (engine.serving.quantized): hand-derived bytes per module and format, and the
figures vLLM logged as "Model loading took"."""

from __future__ import annotations

import pytest

from engine.catalog import get_model
from engine.serving.quantized import Kernel, Module, WeightFormat, module_bytes, weights_by_kind

GIB = 2**30
# Llama 3.1 8B: hidden 4,096, 32 layers, 32 heads / 8 KV heads of 128, MLP 14,336, vocabulary 128,256 (untied)
H, L, FF, V = 4096, 32, 14_336, 128_256
ATTN = H * 4096 + 2 * H * 1024 + 4096 * H  # q, k, v, o
MLP = 3 * H * FF
ROPE = 131_072 * 128 * 2  # cos_sin_cache: max_position x head_dim in bf16
NORMS = (2 * L + 1) * H


def total(fmt: WeightFormat, tp: int = 1, kernel: Kernel | None = None, model: str = "llama-3.1-8b") -> int:
    return sum(weights_by_kind(get_model(model), fmt, tp, kernel=kernel).values())


def test_bf16_is_the_logged_model_loading() -> None:
    """vLLM 0.6.4 on an RTX 3090 logged 'Loading model weights took 14.9888 GB' (GiB) for Llama 3.1 8B
    (vllm-project/vllm#10517); PR #17122 logged 14.9889 GiB with v1."""
    exact = 2 * (2 * V * H + L * (ATTN + MLP) + NORMS) + ROPE
    assert total(WeightFormat.BF16) == exact
    assert f"{exact / GIB:.4f}" == "14.9888"


def test_tensor_parallel_splits_all_but_norms_and_rope() -> None:
    """TP 2: every linear and both vocabulary tables halve; the norms and the rotary cache stay whole (PR #10511:
    Meta-Llama-3-8B 'model weights take 7.48GiB' at TP 2, 14.96 at TP 1)."""
    half = 2 * (V * H + L * (ATTN + MLP) // 2 + NORMS) + ROPE
    assert total(WeightFormat.BF16, 2) == half
    assert f"{total(WeightFormat.BF16, 2, model='llama-3-8b') / GIB:.2f}" == "7.48"


def test_kv_heads_are_replicated_when_fewer_than_gpus() -> None:
    """8 KV heads over 16 GPUs: QKVParallelLinear keeps one head (128 outputs) of K and of V on each."""
    by_kind = weights_by_kind(get_model("llama-3.1-8b"), WeightFormat.BF16, 16)
    assert by_kind["attention"] == 2 * L * (H * 4096 // 16 + 2 * H * 128 + 4096 // 16 * H)


def test_gptq_marlin_and_exllama() -> None:
    """int4 GPTQ, group 128: 4 bits + an fp16 scale per 128 inputs; exllama (before compute capability 8.0) also
    keeps qzeros (4 bits per group and output) and g_idx (int32 per input)."""
    marlin = lambda k, n: k * n // 2 + 2 * (k // 128) * n  # noqa: E731
    linear = sum(marlin(k, n) for k, n in ((H, 4096), (H, 1024), (H, 1024), (4096, H), (H, FF), (H, FF), (FF, H)))
    assert total(WeightFormat.INT4_GPTQ) == L * linear + 2 * (2 * V * H + NORMS) + ROPE
    exllama = sum(marlin(k, n) + (k // 128) * n // 2 + 4 * k
                  for k, n in ((H, 4096), (H, 1024), (H, 1024), (4096, H), (H, FF), (H, FF), (FF, H)))
    assert total(WeightFormat.INT4_GPTQ, kernel=Kernel(capability=7.5)) == L * exllama + 2 * (2 * V * H + NORMS) + ROPE


def test_awq_keeps_zeros() -> None:
    m = Module("mlp", "gate", 14_336, 4096)
    assert module_bytes(m, WeightFormat.INT4_AWQ, Kernel(), 32) == 4096 * 14_336 // 2 + 32 * 14_336 * (2 + 0.5)


def test_nf4_absmax_by_version() -> None:
    """bitsandbytes, blocks of 64: nested uint8 absmax + a float32 per 256 blocks to 0.9; float32 from 0.10."""
    m = Module("mlp", "down", 4096, 14_336)
    n = 4096 * 14_336
    nested = n // 2 + n // 64 + 4 * (n // 64 // 256)
    assert module_bytes(m, WeightFormat.NF4, Kernel(bnb_fp32_absmax=False), 32) == nested
    assert module_bytes(m, WeightFormat.NF4, Kernel(bnb_fp32_absmax=True), 32) == n // 2 + 4 * (n // 64)


def test_embeddings_and_router_stay_16_bit() -> None:
    for fmt in (WeightFormat.INT4_GPTQ, WeightFormat.FP8, WeightFormat.NF4, WeightFormat.NVFP4):
        by_kind = weights_by_kind(get_model("qwen3-30b-a3b"), fmt)
        base = weights_by_kind(get_model("qwen3-30b-a3b"), WeightFormat.BF16)
        assert by_kind["embedding"] == base["embedding"]
        assert by_kind["lm_head"] == base["lm_head"]
        assert by_kind["router"] == base["router"]
        assert by_kind["experts"] < base["experts"] * (0.51 if fmt is WeightFormat.FP8 else 0.3)


def test_w8a8_70b_is_the_logged_model_loading() -> None:
    """neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8: 'Loading model weights took 67.7229 GB' (vLLM PR
    #12569): int8 linears with a float32 scale per output channel, 16-bit embeddings and output layer."""
    got = total(WeightFormat.INT8, model="llama-3.1-70b") / GIB
    assert got == pytest.approx(67.7229, abs=0.0005)


def test_gguf_q8_0_and_q4_k_m() -> None:
    """Q8_0: 34 bytes per 32 weights everywhere (token_embd and output too). Q4_K_M: Q6_K (210 bytes per 256) for
    output.weight and for attn_v / ffn_down in use_more_bits layers (i < 4, i >= 28, (i - 4) % 3 == 2: 16 of 32),
    Q4_K (144 per 256) elsewhere; norms in the model dtype."""
    q8 = lambda k, n: n * (k // 32) * 34  # noqa: E731
    linear = sum(q8(k, n) for k, n in ((H, 4096), (H, 1024), (H, 1024), (4096, H), (H, FF), (H, FF), (FF, H)))
    assert total(WeightFormat.GGUF_Q8_0) == L * linear + 2 * q8(H, V) + 2 * NORMS + ROPE
    more = [i for i in range(L) if i < 4 or i >= 28 or (i - 4) % 3 == 2]
    assert len(more) == 16
    q4, q6 = (lambda k, n: n * (k // 256) * 144), (lambda k, n: n * (k // 256) * 210)
    plain = q4(H, 4096) + q4(H, 1024) + q4(4096, H) + 2 * q4(H, FF)
    layers = sum(plain + (q6 if i in more else q4)(H, 1024) + (q6 if i in more else q4)(FF, H) for i in range(L))
    assert total(WeightFormat.GGUF_Q4_K_M) == layers + q4(H, V) + q6(H, V) + 2 * NORMS + ROPE


@pytest.mark.parametrize(("capability", "inter", "hidden"), [(8.9, 2944, 3072), (9.0, 2880, 2880), (10.0, 3072, 3072)])
def test_mxfp4_experts_padded_by_the_kernel(capability: float, inter: int, hidden: int) -> None:
    """gpt-oss-20b's experts (32 of 2,880 -> 2 x 2,880 and back): uint8 pairs of 4-bit values and a uint8 scale per
    32, padded by Marlin (< 9.0: 128 / 256), Triton (9.0: 64 / none) or FlashInfer (10.0: 256 / 256); bf16 biases."""
    by_kind = weights_by_kind(get_model("gpt-oss-20b"), WeightFormat.MXFP4, kernel=Kernel(capability=capability))
    up = 2 * inter * hidden
    down = hidden * inter
    per_layer = 32 * ((up + down) // 2 + (up + down) // 32 + 2 * (2 * inter + hidden))
    assert by_kind["experts"] == 24 * per_layer
    assert by_kind["attention"] == weights_by_kind(get_model("gpt-oss-20b"), WeightFormat.BF16)["attention"]
