"""Activations saved for backward, per decoder layer, as coefficients of tokens (b*s) and of b*s^2.

Method: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
(arXiv:2205.05198, section 4.1) count, op by op, the tensors each layer keeps for its backward pass; they find
``s*b*h*(34 + 5*a*s/h)`` bytes for a GPT-3 layer in fp16 with dropout. We apply the same method to the layers as
Hugging Face ``transformers`` writes them (RMSNorm upcast to fp32, SwiGLU MLP, SDPA or eager attention, no
dropout), under PyTorch autograd's rule that an op saves an input only when the gradient of another input needs
it (a frozen linear keeps no copy of its input), autocast's casts (PyTorch AMP docs) and PEFT's LoRA forward (the
adapter input is cast to fp32 then back to the autocast dtype: one copy per adapted linear). The result is checked
against traced PyTorch training steps (``calibration/``) and real H200 runs (``docs/accuracy.md``).

Everything here is bytes per token (multiply by b*s) except ``*_bs2`` (multiply by b*s^2: eager attention's
score matrices, the quadratic term FlashAttention removes: Dao et al. 2022, arXiv:2205.14135, section 3.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.params import Linear, attention_linears, lora_targets, mlp_linears
from engine.specs import (
    Attention,
    Checkpointing,
    Loss,
    Method,
    MlpKind,
    ModelSpec,
    NormKind,
    PositionKind,
    TrainingSetup,
)
from engine.training.loss import LossCoeffs, loss_coeffs
from engine.training.precision import FP32, dtype_plan

MASK = 1  # a dropout mask: one bool byte per element


@dataclass(frozen=True, slots=True)
class LayerCoeffs:
    """One decoder layer: what it saves for backward and what its backward needs on top, per token."""

    saved: float  # bytes per token saved until this layer's backward
    saved_bs2: float  # bytes per b*s^2 (eager attention's probabilities)
    transient: float  # peak extra bytes per token while this layer's backward runs
    transient_bs2: float
    checkpoint: float  # bytes per token kept under full checkpointing (the layer's input)
    weight_copies: int  # autocast's 16-bit copies of this layer's fp32 weights (bytes, not per token)
    #: bytes (not per token) in flight during the backward: QLoRA dequantizes each 4-bit weight to 16 bits for its
    #: matmul, one linear at a time (bitsandbytes MatMul4Bit)
    dequantized: int = 0
    #: selective checkpointing: what the attention core saves again when it is recomputed in this layer's backward
    recomputed: float = 0.0
    recomputed_bs2: float = 0.0
    #: bytes per token saved more than once (one storage, several saves): held once on the GPU, but an offload
    #: hook copies every save to host RAM (:func:`_saved_again`); without and with full checkpointing
    saved_again: float = 0.0
    checkpoint_again: float = 0.0


@dataclass(frozen=True, slots=True)
class ActivationCoeffs:
    """All layers (as runs of identical layers, first layer first) plus the head and the loss."""

    segments: tuple[tuple[int, LayerCoeffs], ...]
    head_saved: float  # final norm + lm_head input, per token
    head_input: float  # the lm_head's own saved input, per token (part of head_saved; stays on the GPU offloaded)
    head_copies: int  # autocast copy of the lm_head weight
    loss: LossCoeffs  # what the loss over the vocabulary holds (engine.training.loss)
    end_transient: float  # the gradient reaching the embedding, per token


class _Ctx:
    """The dtypes and switches one coefficient computation needs."""

    def __init__(self, m: ModelSpec, s: TrainingSetup) -> None:
        plan = dtype_plan(s.precision)
        self.m, self.s = m, s
        self.r, self.c = plan.residual, plan.compute
        self.autocast = plan.compute < FP32
        self.full = s.method is Method.FULL
        self.copies = plan.autocast_copies

    def adapted(self, layer: int) -> set[str]:
        return {x.role for x in lora_targets(self.m, layer, self.s.lora.targets)}


def _inputs(ctx: _Ctx, group: list[Linear], src: int, adapted: set[str]) -> float:
    """Bytes per token that the linears of one group (sharing one input) save of that input.

    Full fine-tuning: each linear saves its input; autocast casts a wider input once per linear.
    LoRA: the frozen base saves nothing; each adapted linear saves its own 16-bit copy (PEFT casts to fp32,
    autocast back), plus a dropout mask when lora_dropout > 0, plus lora_A's output.
    """
    n_in = group[0].n_in
    if ctx.full:
        own = ctx.autocast and src != ctx.c
        return (len(group) * ctx.c if own else src) * n_in
    hits = [x for x in group if x.role in adapted]
    if not hits:
        return 0.0
    drop = ctx.s.lora.dropout > 0
    per = (ctx.c if ctx.autocast else 0) + (MASK + (0 if ctx.autocast else FP32) if drop else 0)
    shared = src if not ctx.autocast and not drop else 0
    rank_out = ctx.c * ctx.s.lora.rank
    return sum(per * n_in + rank_out for _ in hits) + shared * n_in


def _norm(ctx: _Ctx, width: int) -> float:
    """RMSNorm (HF) keeps its fp32 input and, when its weight trains, the normalised tensor (in the input's
    dtype; Gemma's stays fp32). LayerNorm keeps its input plus fp32 mean and rstd per token."""
    if ctx.m.norm is NormKind.LAYERNORM:
        return ctx.r * width + 2 * FP32
    normalised = FP32 if ctx.m.norm is NormKind.RMSNORM_FP32 else ctx.r
    return FP32 * width + (normalised * width if ctx.full else 0)


def _widths(m: ModelSpec) -> tuple[int, int, int, int]:
    """Per-token widths of q, k, v and the attention output."""
    a = m.num_heads
    if m.mla is not None:
        qk = a * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)
        v = a * m.mla.v_head_dim
        return qk, qk, v, v
    return a * m.head_size, m.num_kv_heads * m.head_size, m.num_kv_heads * m.head_size, a * m.head_size


def _attention_core(ctx: _Ctx) -> tuple[float, float, float, float]:
    """(saved, saved_bs2, transient, transient_bs2) of the attention itself.

    SDPA / FlashAttention keep q, k, v, the output and one fp32 log-sum-exp per head and token.
    Eager attention keeps q and repeat_kv's expanded k and v, plus the fp32 softmax output and its 16-bit cast
    (HF ``softmax(..., dtype=float32).to(q.dtype)``), each b x heads x s x s.
    """
    m, c = ctx.m, ctx.c
    a = m.num_heads
    q_w, k_w, v_w, o_w = _widths(m)
    if ctx.s.attention is Attention.EAGER:
        # + tanh's output when scores are soft-capped (Gemma 2)
        probs = a * (FP32 + (c if c < FP32 else 0) + (c if m.attn_softcap else 0))
        saved = c * (q_w + 2 * q_w)
        return saved, probs, c * 3 * q_w, a * 2 * FP32
    saved = c * (q_w + k_w + v_w + o_w) + FP32 * a
    return saved, 0.0, c * (q_w + k_w + v_w) + FP32 * q_w, 0.0


def _mlp(ctx: _Ctx, layer: int, adapted: set[str]) -> tuple[float, float]:
    """(saved, transient) per token of the MLP: SwiGLU keeps gate, act(gate), up and their product;
    GPT-2's tanh GELU keeps four tensors of the hidden width. MoE: each token visits k experts."""
    m, c = ctx.m, ctx.c
    linears = mlp_linears(m, layer)
    width = linears[-1].n_in if m.moe is None or layer < m.moe.first_dense_layers else 0
    routed = 0.0
    if width == 0:
        assert m.moe is not None
        e = m.moe
        width = e.experts_per_token * e.expert_intermediate_size + e.shared_experts * e.expert_intermediate_size
        routed = c * e.experts_per_token * 2 * m.hidden_size + 2 * FP32 * e.num_experts
    inner = (3 if m.mlp is MlpKind.GATED else 4) * c * width
    down = [x for x in linears if x.role == "down"][:1]
    down_in = _inputs(ctx, [Linear("down", width, m.hidden_size)], c, adapted) if down else 0.0
    first = [x for x in linears if x.role in ("gate", "up", "router")][:2]
    mlp_in = _inputs(ctx, [Linear(x.role, m.hidden_size, 1) for x in first], ctx.r, adapted)
    return inner + down_in + mlp_in + routed, 3 * c * width


def _selective(ctx: _Ctx, o_shared: bool) -> tuple[float, float, float, float]:
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
    c, a = ctx.c, ctx.m.num_heads
    q_w, k_w, v_w, o_w = _widths(ctx.m)
    kept = c * (q_w + k_w + v_w) + (c * o_w if o_shared else 0)
    core_bs2 = _attention_core(ctx)[1]
    if ctx.s.attention is Attention.EAGER:
        return kept, 0.0, c * (2 * q_w + o_w), core_bs2
    return kept, 0.0, c * o_w + FP32 * a, 0.0


def _saved_again(ctx: _Ctx, groups: list[list[Linear]], o_shared: bool) -> tuple[float, float]:
    """(saved_again, checkpoint_again) per token: what autograd saves a second time from a storage it already
    saves, counted op by op as in :func:`layer_coeffs` (traced: calibration ``lc-*_offload``).

    HF's RMSNorm: ``pow`` and the ``mul`` by ``rsqrt`` both save the fp32 input, and ``rsqrt``'s output is saved
    by itself and by that ``mul`` (4 bytes a token each time). Full fine-tuning: every linear of a group reading
    one input (q, k, v; gate, up) saves that same input; o_proj saves the attention output SDPA also saves.
    RoPE: the rotation of q and of k each saves cos and sin (one per token and head dimension, in the residual
    dtype, computed once for all layers). A checkpointed layer saves its inputs instead: the hidden states
    (counted in ``checkpoint``) and cos and sin."""
    m, r, h = ctx.m, ctx.r, ctx.m.hidden_size
    again = 0.0
    if m.norm is not NormKind.LAYERNORM:
        again += m.norms_per_layer * (FP32 * h + 2 * FP32)
    if ctx.full and not (ctx.autocast and r != ctx.c):
        again += sum((len(g) - 1) * r * g[0].n_in for g in groups if g)
    if o_shared:
        again += ctx.c * _widths(m)[3]
    rope = m.positions is PositionKind.ROPE
    return again + (4 * r * m.head_size if rope else 0), (2 * r * m.head_size if rope else 0)


def layer_coeffs(ctx: _Ctx, layer: int) -> LayerCoeffs:
    m, h = ctx.m, ctx.m.hidden_size
    adapted = ctx.adapted(layer)
    attn = attention_linears(m)
    q_in = [x for x in attn if x.n_in == h and x.role != "o"]
    o_in = [x for x in attn if x.role == "o"]
    core, core_bs2, core_t, core_t_bs2 = _attention_core(ctx)
    mlp, mlp_t = _mlp(ctx, layer, adapted)
    other = [x for x in attn if x not in q_in and x not in o_in]  # MLA's q_b / kv_b, after their own norms
    mla = sum(_inputs(ctx, [x], ctx.c, adapted) + _norm(ctx, x.n_in) for x in other)
    # SDPA / FlashAttention write their output in (b, s, heads, d) order, so the transpose that feeds o_proj
    # is free and a full fine-tune's o_proj saves the very tensor attention already keeps; eager copies it.
    # (LoRA under autocast still saves its own cast copy of it.)
    o_shared = ctx.s.attention is not Attention.EAGER and (ctx.full or not ctx.autocast)
    saved = (
        (m.norms_per_layer * _norm(ctx, h))
        + _inputs(ctx, q_in, ctx.r, adapted)
        + (0.0 if o_shared else _inputs(ctx, o_in, ctx.c, adapted))
        + core
        + mlp
        + mla
    )
    recomputed = recomputed_bs2 = 0.0
    if ctx.s.checkpointing is Checkpointing.SELECTIVE:
        kept, core_bs2, recomputed, recomputed_bs2 = _selective(ctx, o_shared)
        saved += kept - core
    copies = 0
    if ctx.copies:
        copies = ctx.c * sum(x.count * x.n_in * x.n_out for x in attn + mlp_linears(m, layer))
    transient = 2 * ctx.r * h + max(core_t, mlp_t)
    dequantized = 0
    if ctx.s.method is Method.QLORA:
        dequantized = ctx.c * max(x.n_in * x.n_out for x in attn + mlp_linears(m, layer))
    mlp_first = [x for x in mlp_linears(m, layer) if x.role in ("gate", "up")]
    again, checkpoint_again = _saved_again(ctx, [q_in, mlp_first], o_shared)
    return LayerCoeffs(saved, core_bs2, transient, core_t_bs2, ctx.r * h, copies, dequantized, recomputed,
                       recomputed_bs2, again, checkpoint_again)


def activation_coeffs(m: ModelSpec, s: TrainingSetup) -> ActivationCoeffs:
    """Coefficients for one model and setup (independent of batch and sequence length)."""
    ctx = _Ctx(m, s)
    first_dense = m.moe.first_dense_layers if m.moe is not None else 0
    runs: list[tuple[int, LayerCoeffs]] = []
    if first_dense:
        runs.append((first_dense, layer_coeffs(ctx, 0)))
    if m.num_layers > first_dense:
        runs.append((m.num_layers - first_dense, layer_coeffs(ctx, first_dense)))
    v, h, c = m.vocab_size, m.hidden_size, ctx.c
    # Liger and TRL's chunked loss read the output weight themselves: the output layer saves no input
    fused = s.loss in (Loss.FUSED_LINEAR_CE, Loss.CHUNKED)
    head_in = (c if ctx.autocast and ctx.r != c else ctx.r) * h if ctx.full and not fused else 0
    head_grad = v * h * dtype_plan(s.precision).weight if ctx.full else 0
    head_copy = ctx.c * v * h if ctx.copies else 0
    chunk_copy = s.loss is Loss.CHUNKED  # TRL's chunks cast the weight in each chunk: the loss counts it
    return ActivationCoeffs(
        segments=tuple(runs),
        head_saved=_norm(ctx, h) + head_in,
        head_input=head_in,
        head_copies=0 if chunk_copy else head_copy,
        loss=loss_coeffs(m, s, c, ctx.r, head_grad=head_grad, head_copy=head_copy),
        end_transient=ctx.r * h,
    )
