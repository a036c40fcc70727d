"""KV cache bytes, per token and per sequence, for every attention kind the catalog holds.

Multi-head (MHA), grouped-query (GQA) and multi-query (MQA) attention keep one key and one value vector per KV
head, per layer, per token:  ``2 x layers x KV heads x head dim x tokens x bytes per element``.
Multi-head latent attention (MLA, DeepSeek-V2) keeps one compressed latent plus a shared rope key per layer
and token:  ``layers x (kv_lora_rank + qk_rope_head_dim) x tokens x bytes per element``.
Sliding-window layers (Mistral 7B, every other Gemma 2 layer) keep at most the window's tokens.
"""

from __future__ import annotations

import math
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from engine.layers import runs
from engine.results import Term
from engine.specs import DeltaNetSpec, KvDtype, Mamba1Spec, Mamba2Spec, Mixer, ModelSpec, TrainingSetup, field_bounds
from engine.terms import TermName

#: the longest sequence the engine costs: ``SeqLen``'s bound, the same as a training setup's ``seq_len``
MAX_TOKENS = int(field_bounds(TrainingSetup, "seq_len")[1] or 0)

#: Bits per cached element. Quantized caches also keep small per-block scales, not counted here.
_KV_BITS = {
    KvDtype.FP32: 32, KvDtype.FP16: 16, KvDtype.BF16: 16, KvDtype.FP8: 8, KvDtype.INT8: 8, KvDtype.INT4: 4,
}

HEADS_FORMULA = "2 × layers × KV heads × head dim × tokens × bytes per element"
HEADS_SOURCE = (
    "K and V per head: Vaswani et al. 2017, arXiv:1706.03762; GQA: Ainslie et al. 2023, arXiv:2305.13245; "
    "MQA: Shazeer 2019, arXiv:1911.02150"
)
MLA_FORMULA = "layers × (kv_lora_rank + qk_rope_head_dim) × tokens × bytes per element"
MLA_SOURCE = "DeepSeek-V2, arXiv:2405.04434, section 2.1.3 and Table 1"
WINDOW_SOURCE = "Mistral 7B, arXiv:2310.06825, section 2 (rolling buffer); Gemma 2, arXiv:2408.00118, sec. 2"
STATE_SOURCE = ("a linear-attention or state-space layer keeps one fixed-size state per sequence (Mamba, "
                "arXiv:2312.00752, s3.4; gated DeltaNet, arXiv:2412.06464) and its convolution's last kernel - 1 "
                "inputs")


class AttentionKind(StrEnum):
    MHA = "MHA"
    GQA = "GQA"
    MQA = "MQA"
    MLA = "MLA"


def kv_bits(dtype: KvDtype) -> int:
    """Bits one cached element takes in ``dtype``."""
    return _KV_BITS[dtype]


def attention_kind(m: ModelSpec) -> AttentionKind:
    """MLA when the model has a latent cache; otherwise by how many query heads share one KV head."""
    if m.mla is not None:
        return AttentionKind.MLA
    if m.num_kv_heads == m.num_heads:
        return AttentionKind.MHA
    return AttentionKind.MQA if m.num_kv_heads == 1 else AttentionKind.GQA


def kv_heads_per_gpu(m: ModelSpec, tp: int) -> int:
    """KV heads one of ``tp`` tensor-parallel GPUs caches: split evenly, replicated when fewer than GPUs."""
    return max(1, math.ceil(m.num_kv_heads / tp))


class KvCache(BaseModel):
    """The KV cache of one sequence of ``tokens`` tokens (on one GPU of ``tp`` when tensor-parallel)."""

    model_config = ConfigDict(frozen=True)

    model_id: str
    attention: AttentionKind
    dtype: KvDtype
    tokens: int
    tp: int
    layers: int
    sliding_layers: int  # layers that keep at most ``window`` tokens
    window: int | None
    kv_heads: int  # per GPU; for MLA, 0 (the latent is shared by all heads)
    elements_per_token_layer: int  # 2 x KV heads x head dim, or kv_lora_rank + qk_rope_head_dim
    bytes_per_token: int  # one token across all layers, before any window cap
    bytes_per_sequence: int  # the KV of all tokens, plus the fixed-size states of the layers without one
    #: layers without a KV cache (gated DeltaNet, Mamba, short convolution) and the bytes their states take per
    #: sequence, whatever its length (:func:`state_bytes`); 0 for a model of attention layers only
    state_layers: int = 0
    state_bytes: int = 0
    formula: str
    detail: str  # the formula with this model's numbers
    source: str

    def total(self, sequences: int) -> int:
        """Bytes for ``sequences`` sequences of this length."""
        return self.bytes_per_sequence * sequences

    def term(self, sequences: int = 1) -> Term:
        """As a memory term, for breakdowns and tooltips."""
        return Term(
            name=TermName.KV_CACHE, bytes=self.total(sequences), formula=self.formula, source=self.source,
            detail=f"{sequences} × ({self.detail})",
        )


def _per_layer(m: ModelSpec, tp: int) -> tuple[int, int, str]:
    """(KV heads per GPU, elements per token and layer, those factors as text)."""
    if m.mla is not None:
        width = m.mla.kv_lora_rank + m.mla.qk_rope_head_dim
        return 0, width, f"({m.mla.kv_lora_rank} + {m.mla.qk_rope_head_dim})"
    heads = kv_heads_per_gpu(m, tp)
    return heads, 2 * heads * m.head_size, f"{heads} × {m.head_size}"


def _detail(m: ModelSpec, tokens: int, factors: str, capped: str, bits: int) -> str:
    """The formula with this model's numbers, in the formula's order."""
    size = f"{bits / 8:g} B"
    if m.mla is not None:
        return f"{m.num_layers} × {factors} × {tokens:,} × {size}"
    if capped:
        return f"2 × {factors} × {capped} × {size}"
    return f"2 × {m.num_layers} × {factors} × {tokens:,} × {size}"


def attention_layers(m: ModelSpec) -> int:
    """The layers that keep a KV cache: those with attention (a hybrid's gated DeltaNet, Mamba and convolution
    layers keep a fixed-size state instead; an MLP-only layer keeps nothing)."""
    return sum(r.count for r in runs(m) if r.attention is not None)


def _state(x: Mixer, h: int, cache_bits: int) -> int:
    """Bytes of one layer's state for one sequence: the convolution's last ``kernel - 1`` inputs in the cache
    dtype, and the recurrent state in fp32 (fla's final_state, mamba-ssm's ssm state: transformers 5.24's
    Qwen3NextDynamicCache / HybridMambaAttentionDynamicCache keep what the kernels return; Nemotron-H's
    ``mamba_ssm_cache_dtype`` float32)."""
    if isinstance(x, DeltaNetSpec):
        conv, state = 2 * x.key_width + x.value_width, x.num_v_heads * x.head_k_dim * x.head_v_dim
    elif isinstance(x, Mamba2Spec):
        conv, state = x.conv_width, x.num_heads * x.head_dim * x.state_size
    elif isinstance(x, Mamba1Spec):
        conv, state = x.inner, x.inner * x.state_size
    else:
        conv, state = h, 0
    return math.ceil(conv * (x.conv_kernel - 1) * cache_bits / 8) + 4 * state


def state_bytes(m: ModelSpec, dtype: KvDtype = KvDtype.FP16) -> int:
    """Bytes per sequence of the fixed-size states of a hybrid's layers without a KV cache."""
    return sum(r.count * _state(r.mixer, m.hidden_size, kv_bits(dtype)) for r in runs(m) if r.mixer is not None)


def _token_layers(m: ModelSpec, tokens: int) -> tuple[int, int, str]:
    """(sliding layers, sum over layers of the tokens each keeps, that sum as text when a window caps it)."""
    if attention_layers(m) != m.num_layers:  # a hybrid: its attention layers (none of the catalog's slide)
        return 0, attention_layers(m) * tokens, ""
    if m.sliding_window is None or m.mla is not None:
        return 0, m.num_layers * tokens, ""
    sliding = round(m.num_layers * m.sliding_layers_fraction)
    kept = min(tokens, m.sliding_window)
    total = (m.num_layers - sliding) * tokens + sliding * kept
    if kept == tokens:
        return sliding, total, ""
    full = f"{m.num_layers - sliding} × {tokens:,} + " if sliding < m.num_layers else ""
    return sliding, total, f"({full}{sliding} × {kept:,})"


def kv_cache(m: ModelSpec, tokens: int, dtype: KvDtype = KvDtype.FP16, tp: int = 1) -> KvCache:
    """KV cache of one ``tokens``-token sequence of model ``m`` (per GPU when split over ``tp`` GPUs).

    Heads: ``2 x layers x KV heads x head dim x tokens x bytes`` (GQA: arXiv:2305.13245; MQA:
    arXiv:1911.02150). MLA: ``layers x (kv_lora_rank + qk_rope_head_dim) x tokens x bytes`` (DeepSeek-V2,
    arXiv:2405.04434, section 2.1.3); its latent is shared by all heads, so every tensor-parallel GPU keeps
    all of it.
    Sliding-window layers keep ``min(tokens, window)`` tokens (Mistral 7B, arXiv:2310.06825, section 2).
    """
    if not 1 <= tokens <= MAX_TOKENS:
        raise ValueError(f"tokens: {tokens:,} is outside the engine's range (1 to {MAX_TOKENS:,})")
    if tp < 1:
        raise ValueError("tp must be at least 1")
    heads, width, factors = _per_layer(m, tp)
    sliding, token_layers, capped = _token_layers(m, tokens)
    bits = kv_bits(dtype)
    mla = m.mla is not None
    formula = MLA_FORMULA if mla else HEADS_FORMULA
    source = MLA_SOURCE if mla else HEADS_SOURCE
    if sliding:
        formula += "; a sliding layer keeps min(tokens, window)"
        source += f"; window: {WINDOW_SOURCE}"
    layers = attention_layers(m)
    states, state_layers = state_bytes(m, dtype), sum(r.count for r in runs(m) if r.mixer is not None)
    detail = _detail(m, tokens, factors, capped, bits)
    if layers != m.num_layers:  # a hybrid: the KV of its attention layers, the states of its mixer layers
        shown = f"{state_layers} layers' states: {states:,} B"
        detail = f"{detail.replace(f'{m.num_layers} ×', f'{layers} ×', 1)} + {shown}" if layers else shown
        formula += " (attention layers) + the fixed-size states of the other layers"
        source += f"; states: {STATE_SOURCE}"
    return KvCache(
        model_id=m.id, attention=attention_kind(m), dtype=dtype, tokens=tokens, tp=tp,
        layers=layers, sliding_layers=sliding, window=None if mla else m.sliding_window,
        kv_heads=heads, elements_per_token_layer=width,
        bytes_per_token=math.ceil(layers * width * bits / 8),
        bytes_per_sequence=math.ceil(token_layers * width * bits / 8) + states,
        formula=formula, detail=detail, source=source, state_layers=state_layers, state_bytes=states,
    )
