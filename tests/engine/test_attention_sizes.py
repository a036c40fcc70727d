"""Real attention tensor sizes, FlashAttention's contrast and the curves, against hand-derived numbers."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from engine.attention_sizes import StepKey, bytes_curve, flash_kept, flash_kept_curve, tensor_size
from engine.catalog import get_model
from engine.specs import KvDtype

MIB, GIB = 2**20, 2**30


def test_gqa_uses_kv_heads_for_k_and_v() -> None:
    m = get_model("llama-3.1-8b")  # 32 heads, 8 KV heads, head 128, 32 layers
    k = tensor_size(StepKey.K, m, 8192)
    q = tensor_size(StepKey.Q, m, 8192)
    assert k.per_head_bytes == q.per_head_bytes == 8192 * 128 * 2
    assert k.per_layer_bytes == 8192 * 128 * 2 * 8
    assert q.per_layer_bytes == 8192 * 128 * 2 * 32
    assert tensor_size(StepKey.SCORES, m, 8192).per_layer_bytes == 8192**2 * 2 * 32


def test_dtype_batch_and_layers() -> None:
    m = get_model("llama-2-7b")
    s = tensor_size(StepKey.SOFTMAX, m, 2048, KvDtype.FP32, batch=4)
    assert s.per_head_bytes == 4 * 2048 * 2048 * 4
    assert s.all_layers_bytes == s.per_layer_bytes * 32
    assert tensor_size(StepKey.Q, m, 3, KvDtype.INT4).per_head_bytes == 3 * 128 // 2


def test_flash_attention_keeps_output_and_one_fp32_statistic_per_row() -> None:
    kept = flash_kept(get_model("llama-2-7b"), 4096)
    assert kept.per_head_bytes == 1 * MIB + 4096 * 4  # output + log-sum-exp
    assert kept.per_layer_bytes == 32 * MIB + 32 * 4096 * 4
    assert kept.all_layers_bytes == kept.per_layer_bytes * 32


def test_mla_widths() -> None:
    m = get_model("deepseek-v2-lite")  # q/k width 128 + 64, v width 128, 16 heads
    assert tensor_size(StepKey.K, m, 10).per_layer_bytes == 10 * 192 * 16 * 2
    assert tensor_size(StepKey.V, m, 10).per_layer_bytes == 10 * 128 * 16 * 2


def test_curves_match_the_scalar_formula_and_grow_quadratically() -> None:
    m = get_model("llama-2-7b")
    lengths = np.array([1024, 2048, 4096, 131_072])
    scores = bytes_curve(StepKey.SCORES, m, lengths)
    assert scores[2] == GIB
    assert scores[1] / scores[0] == 4.0  # twice the length, four times the bytes
    np.testing.assert_array_equal(bytes_curve(StepKey.Q, m, lengths), lengths * 128 * 2 * 32)
    flash = flash_kept_curve(m, lengths)
    assert flash[2] == flash_kept(m, 4096).per_layer_bytes
    assert flash[1] / flash[0] == 2.0  # linear
    assert scores[-1] == tensor_size(StepKey.SCORES, m, 131_072).per_layer_bytes


def test_bad_inputs() -> None:
    m = get_model("llama-2-7b")
    with pytest.raises(ValidationError):
        tensor_size(StepKey.Q, m, 0)
    with pytest.raises(ValueError, match="between 1 and"):
        bytes_curve(StepKey.Q, m, [0, 5])
