"""Real sizes of the eight attention tensors in a real model, and what FlashAttention keeps instead.

Attention (Vaswani et al. 2017, "Attention Is All You Need", arXiv:1706.03762, section 3.2.1) computes, for
each head, ``softmax(Q K^T / sqrt(d)) V``. Eager attention writes every intermediate to GPU memory (HBM):
Q, K and V are ``b x s x d`` per head, but the scores, the masked scores and the probabilities are
``b x s x s`` per head, so they grow with the square of the sequence length. FlashAttention (Dao et al.
2022, arXiv:2205.14135, section 3.1) computes the same result in tiles and never writes the ``s x s`` matrix
to HBM; it keeps the output and one fp32 log-sum-exp statistic per row per head for the backward pass.

A step's sizes: per head, per layer (all heads; K and V use ``num_kv_heads`` under grouped-query attention,
Ainslie et al. 2023, arXiv:2305.13245), and all layers (every layer's copy, as training keeps them for the
backward pass).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, validate_call

from engine.specs import Batch, KvDtype, ModelSpec, SeqLen

#: bits per element of each dtype (int4 packs two elements in a byte)
DTYPE_BITS = {
    KvDtype.FP32: 32,
    KvDtype.FP16: 16,
    KvDtype.BF16: 16,
    KvDtype.FP8: 8,
    KvDtype.INT8: 8,
    KvDtype.INT4: 4,
}
LSE_BITS = 32  # FlashAttention's log-sum-exp statistic is fp32 (Dao et al. 2022, algorithm 1, line 13)

N = TypeVar("N", int, npt.NDArray[np.float64])  # arrays in float64: no int64 overflow at 1M tokens


class StepKey(StrEnum):
    """The eight steps of the walk-through, in order."""

    X = "x"
    Q = "q"
    K = "k"
    V = "v"
    SCORES = "scores"
    MASKED = "masked"
    SOFTMAX = "softmax"
    OUTPUT = "output"


class TensorSize(BaseModel):
    """Bytes of one tensor in a real model. ``per_head_bytes`` is None for X, which all heads share."""

    model_config = ConfigDict(frozen=True)

    shape: str  # per layer, in letters: "b x s x s x heads"
    per_head_bytes: int | None
    per_layer_bytes: int
    all_layers_bytes: int
    formula: str
    source: str


_SQUARE = (StepKey.SCORES, StepKey.MASKED, StepKey.SOFTMAX)
_SOURCE = "Vaswani et al. 2017, arXiv:1706.03762, section 3.2"


def _widths(model: ModelSpec) -> tuple[int, int, int]:
    """(query/key width, value width, key/value heads); MLA expands to full heads in training."""
    if model.mla is not None:
        return model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim, model.mla.v_head_dim, model.num_heads
    return model.head_size, model.head_size, model.num_kv_heads


def _elements(key: StepKey, model: ModelSpec, s: N, b: int) -> tuple[N | None, N, str]:
    """(elements per head or None, elements per layer, shape) of one step's tensor at sequence length s."""
    dqk, dv, kv_heads = _widths(model)
    h = model.num_heads
    if key is StepKey.X:
        return None, b * s * model.hidden_size, "b x s x hidden"
    if key in _SQUARE:
        return b * s * s, b * s * s * h, "b x heads x s x s"
    width, heads = {StepKey.Q: (dqk, h), StepKey.K: (dqk, kv_heads), StepKey.V: (dv, kv_heads)}.get(key, (dv, h))
    return b * s * width, b * s * width * heads, f"b x s x {'kv_heads' if heads != h else 'heads'} x {width}"


def _bytes(elements: N, dtype: KvDtype) -> N:
    return (elements * DTYPE_BITS[dtype] + 7) // 8


@validate_call
def tensor_size(
    key: StepKey, model: ModelSpec, seq_len: SeqLen, dtype: KvDtype = KvDtype.BF16, batch: Batch = 1
) -> TensorSize:
    """Bytes of one step's tensor: elements x bits / 8 (shapes: Vaswani et al. 2017, section 3.2)."""
    per_head, per_layer, shape = _elements(key, model, seq_len, batch)
    layer = _bytes(per_layer, dtype)
    return TensorSize(
        shape=shape,
        per_head_bytes=None if per_head is None else _bytes(per_head, dtype),
        per_layer_bytes=layer,
        all_layers_bytes=layer * model.num_layers,
        formula=f"{shape} x {DTYPE_BITS[dtype]} bits / 8",
        source=_SOURCE,
    )


@validate_call
def flash_kept(model: ModelSpec, seq_len: SeqLen, dtype: KvDtype = KvDtype.BF16, batch: Batch = 1) -> TensorSize:
    """What FlashAttention keeps instead of the s x s matrix: the output O (``b x s x heads x d_v``, in
    dtype) and the log-sum-exp L (``b x heads x s``, fp32). Dao et al. 2022, FlashAttention, arXiv:2205.14135,
    algorithm 2: the backward pass recomputes the scores from Q, K, V, O and L."""
    per_head, per_layer, _ = _elements(StepKey.OUTPUT, model, seq_len, batch)
    assert per_head is not None
    lse_head = (batch * seq_len * LSE_BITS) // 8
    layer = _bytes(per_layer, dtype) + lse_head * model.num_heads
    return TensorSize(
        shape="b x s x heads x d_v + b x heads x s (fp32)",
        per_head_bytes=_bytes(per_head, dtype) + lse_head,
        per_layer_bytes=layer,
        all_layers_bytes=layer * model.num_layers,
        formula=f"b x s x heads x d_v x {DTYPE_BITS[dtype]} bits / 8 + b x heads x s x 4 bytes",
        source="Dao et al. 2022, FlashAttention, arXiv:2205.14135, algorithm 2",
    )


def bytes_curve(
    key: StepKey, model: ModelSpec, seq_lens: npt.ArrayLike, dtype: KvDtype = KvDtype.BF16, batch: int = 1
) -> npt.NDArray[np.float64]:
    """Per-layer bytes of one step's tensor at each sequence length (vectorised; the same formula as
    ``tensor_size``, Vaswani et al. 2017): quadratic for the scores, linear for Q, K, V and the output."""
    return _bytes(_elements(key, model, _check_lengths(seq_lens), batch)[1], dtype)


def flash_kept_curve(
    model: ModelSpec, seq_lens: npt.ArrayLike, dtype: KvDtype = KvDtype.BF16, batch: int = 1
) -> npt.NDArray[np.float64]:
    """Per-layer bytes FlashAttention keeps at each length (Dao et al. 2022, arXiv:2205.14135): linear."""
    s = _check_lengths(seq_lens)
    out = _bytes(_elements(StepKey.OUTPUT, model, s, batch)[1], dtype)
    return out + (batch * s * LSE_BITS) // 8 * model.num_heads


def _check_lengths(seq_lens: npt.ArrayLike) -> npt.NDArray[np.float64]:
    s = np.floor(np.asarray(seq_lens, dtype=np.float64))
    if s.size and (s.min() < 1 or s.max() > 1_048_576):
        raise ValueError("sequence lengths must lie between 1 and 1,048,576 tokens")
    return s
