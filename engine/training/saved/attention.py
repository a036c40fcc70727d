"""What the attention core saves for backward, per token and per b*s^2 (``engine.training.saved``)."""

from __future__ import annotations

from engine.specs import Attention, AttentionSpec, LayerSpec, NormKind, QkNorm
from engine.training.precision import FP32
from engine.training.saved.inputs import Ctx


def widths(at: AttentionSpec) -> tuple[int, int, int, int]:
    """Per-token widths of q, k, v and the attention output."""
    a = at.num_heads
    if at.mla is not None:
        qk = a * (at.mla.qk_nope_head_dim + at.mla.qk_rope_head_dim)
        v = a * at.mla.v_head_dim
        return qk, qk, v, v
    return a * at.head_dim, at.num_kv_heads * at.head_dim, at.num_kv_heads * at.head_dim, a * at.head_dim


def qk_norms(ctx: Ctx, a: AttentionSpec) -> float:
    """q/k norms: an RMSNorm keeps its fp32 input and, when its weight trains, the normalised tensor (as
    :func:`engine.training.saved.inputs.norm`); Llama 4's L2 norm has no weight and keeps its fp32 input
    (modeling_llama4 Llama4TextL2Norm)."""
    if a.qk_norm is QkNorm.NONE or a.mla is not None:
        return 0.0
    width = (a.num_heads + a.num_kv_heads) * a.head_dim
    if a.qk_norm is QkNorm.L2 or not ctx.full:
        return float(FP32 * width)
    return float((FP32 + (FP32 if ctx.m.norm is NormKind.RMSNORM_FP32 else ctx.c)) * width)


def output_gate(ctx: Ctx, a: AttentionSpec, copied: bool) -> float:
    """Gated attention (transformers 5.24 ``Qwen3NextAttention``: ``attn_output * torch.sigmoid(gate)`` before
    o_proj): the sigmoid keeps its output and the product keeps the attention output, which is a new contiguous
    copy when the attention wrote it heads-first (a query made by torch.cat, or eager's output); o_proj then keeps
    the product, not the attention's output. In fp32 the q norm's ``.float()`` makes no copy: it keeps a view of
    q_proj's output, whose storage holds the gate too (traced: ``qwen3.5-0.8b`` in fp32)."""
    if not a.output_gate:
        return 0.0
    q_w = widths(a)[0]
    whole = q_w * FP32 if ctx.c == FP32 and a.qk_norm is not QkNorm.NONE else 0
    return float(ctx.c * q_w * (2 if copied else 1) + whole)


def core(ctx: Ctx, layer: LayerSpec) -> tuple[float, float, float, float]:
    """(saved, saved_bs2, transient, transient_bs2) of the attention itself.

    SDPA / FlashAttention keep q, k, v, the output and one fp32 log-sum-exp per head and token.
    Eager attention keeps q and repeat_kv's expanded k and v, plus the fp32 softmax output and its 16-bit cast
    (HF ``softmax(..., dtype=float32).to(q.dtype)``), each b x heads x s x s.
    """
    c, at = ctx.c, layer.attention
    assert at is not None, "an attention layer"
    a = at.num_heads
    q_w, k_w, v_w, o_w = widths(at)
    if ctx.s.attention is Attention.EAGER:
        # + tanh's output when scores are soft-capped (Gemma 2); with attention sinks (GPT-OSS) the softmax runs in
        # the scores' own dtype and its output is the only copy kept (modeling_gpt_oss eager_attention_forward)
        probs = a * (FP32 + (c if c < FP32 else 0) + (c if at.softcap else 0)) if not at.sinks else a * c
        saved = c * (q_w + 2 * q_w)
        return saved, probs, c * 3 * q_w, a * 2 * FP32
    if ctx.impl.kv_expanded:  # torchtune expands grouped k and v to every query head before the kernel
        k_w = v_w = q_w
    saved = c * (q_w + k_w + v_w + o_w) + FP32 * a
    return saved, 0.0, c * (q_w + k_w + v_w) + FP32 * q_w, 0.0


def selective(ctx: Ctx, layer: LayerSpec, o_shared: bool) -> tuple[float, float, float, float]:
    """Selective checkpointing of the attention core (Korthikanti et al. 2022, arXiv:2205.05198, s5; Megatron-LM
    ``--recompute-granularity selective``): (kept, kept_bs2, recomputed, recomputed_bs2) per token.

    The core runs under a checkpoint that keeps its inputs q, k, v; the output is kept only where the output
    projection saves it as its own input (``o_shared``: SDPA with full fine-tuning, where the two are one tensor).
    In its backward the core runs again and saves what it saved in the forward, plus a new output. With SDPA /
    FlashAttention that is only the fp32 log-sum-exp and the output, so there is little to gain (the s x s scores
    the paper recomputes are never stored); with eager attention the s x s probabilities go. Traced: calibration
    ``lc-*_gc-selective``.

    What the libraries call "selective" differs: Hugging Face transformers offers whole-layer checkpointing only
    (``gradient_checkpointing_enable``); PyTorch's ``torch.utils.checkpoint.create_selective_checkpoint_contexts``
    saves whatever its policy says, and torchtitan's op-level policy saves the matmul and SDPA outputs (it
    recomputes the element-wise ops, not the attention); torchtune's and torchtitan's layer-level "selective"
    checkpoints every k-th layer whole. This models the paper's (Megatron's) meaning.
    """
    at = layer.attention
    assert at is not None, "an attention layer"
    c, a = ctx.c, at.num_heads
    q_w, k_w, v_w, o_w = widths(at)
    kept = c * (q_w + k_w + v_w) + (c * o_w if o_shared else 0)
    core_bs2 = core(ctx, layer)[1]
    if ctx.s.attention is Attention.EAGER:
        return kept, 0.0, c * (2 * q_w + o_w), core_bs2
    return kept, 0.0, c * o_w + FP32 * a, 0.0
