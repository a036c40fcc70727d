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

from engine.layers import kind_of, runs
from engine.params import Linear, attention_linears, layer_linears, lora_targets, mlp_linears
from engine.specs import (
    Attention,
    AttentionSpec,
    Checkpointing,
    ExpertLora,
    ExpertStorage,
    LayerSpec,
    Loss,
    Method,
    MlpKind,
    ModelSpec,
    NormKind,
    PositionKind,
    QkNorm,
    TrainingSetup,
)
from engine.training.loss import LossCoeffs, loss_coeffs
from engine.training.precision import FP32, HALF, dtype_plan

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
    #: matmul, one linear at a time (bitsandbytes MatMul4Bit); LoRA on fused experts: the merged weight's gradient;
    #: full fine-tuning of an MoE layer: its expert stacks' gradients, made while the layer's backward still runs
    dequantized: int = 0
    #: selective checkpointing: what the attention core saves again when it is recomputed in this layer's backward
    recomputed: float = 0.0
    recomputed_bs2: float = 0.0
    #: bytes per token saved more than once (one storage, several saves): held once on the GPU, but an offload
    #: hook copies every save to host RAM (:func:`_saved_again`); without and with full checkpointing
    saved_again: float = 0.0
    checkpoint_again: float = 0.0
    #: bytes (not per token) saved until this layer's backward: PEFT's merged expert weights (W + B A, ParamWrapper)
    saved_fixed: int = 0


@dataclass(frozen=True, slots=True)
class ActivationCoeffs:
    """All layers (as runs of identical layers, first layer first) plus the head and the loss."""

    segments: tuple[tuple[int, LayerCoeffs], ...]
    kinds: tuple[LayerSpec, ...]  # one layer kind per segment (its parameters and gradients)
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

    def adapted(self, layer: LayerSpec) -> set[str]:
        return {x.role for x in lora_targets(self.m, layer, self.s.lora.targets)}


def _inputs(ctx: _Ctx, group: list[Linear], src: int, adapted: set[str]) -> float:
    """Bytes per token that the linears of one group (sharing one input) save of that input.

    Full fine-tuning: each linear saves its input; autocast casts a wider input once per linear.
    LoRA: the frozen base saves nothing; each adapted linear saves its own 16-bit copy (PEFT casts to fp32,
    autocast back), plus a dropout mask when lora_dropout > 0, plus lora_A's output.
    """
    if not group:
        return 0.0
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


def _widths(at: AttentionSpec) -> tuple[int, int, int, int]:
    """Per-token widths of q, k, v and the attention output."""
    a = at.num_heads
    if at.mla is not None:
        qk = a * (at.mla.qk_nope_head_dim + at.mla.qk_rope_head_dim)
        v = a * at.mla.v_head_dim
        return qk, qk, v, v
    return a * at.head_dim, at.num_kv_heads * at.head_dim, at.num_kv_heads * at.head_dim, a * at.head_dim


def _qk_norms(ctx: _Ctx, a: AttentionSpec) -> float:
    """q/k norms: an RMSNorm keeps its fp32 input and, when its weight trains, the normalised tensor (as
    :func:`_norm`); Llama 4's L2 norm has no weight and keeps its fp32 input (modeling_llama4 Llama4TextL2Norm)."""
    if a.qk_norm is QkNorm.NONE or a.mla is not None:
        return 0.0
    width = (a.num_heads + a.num_kv_heads) * a.head_dim
    if a.qk_norm is QkNorm.L2 or not ctx.full:
        return float(FP32 * width)
    return float((FP32 + (FP32 if ctx.m.norm is NormKind.RMSNORM_FP32 else ctx.c)) * width)


def _merged_experts(ctx: _Ctx, layer: LayerSpec, adapted: set[str]) -> tuple[int, int]:
    """(saved, transient) bytes of PEFT's LoRA on fused experts: ``ParamWrapper`` folds ``W + s B A`` into a new
    weight with one ``baddbmm`` per forward (peft/tuners/lora/layer.py ``_LoraFactorsProxy``), in the base weight's
    dtype; the grouped matmuls keep them for backward. There the down projection's merged gradient is made first,
    while both merged weights live; the gate_up one after the down weight is freed: on top of the saved merged
    weights, max(down, gate_up - down) more."""
    experts = [x for x in mlp_linears(layer.mlp, ctx.m.hidden_size) if x.role.startswith("experts_")]
    hits = [x for x in experts if x.role in adapted]
    if ctx.full or not hits or layer.mlp.moe is None or layer.mlp.moe.storage is not ExpertStorage.FUSED:
        return 0, 0
    w = dtype_plan(ctx.s.precision).weight if ctx.s.method is Method.LORA else HALF
    size = {x.role: x.count * x.n_in * x.n_out * w for x in hits}
    down = size.get("experts_down", 0)
    return sum(size.values()), max(down, max(size.values()) - down if len(size) > 1 else down)





def _attention_core(ctx: _Ctx, layer: LayerSpec) -> tuple[float, float, float, float]:
    """(saved, saved_bs2, transient, transient_bs2) of the attention itself.

    SDPA / FlashAttention keep q, k, v, the output and one fp32 log-sum-exp per head and token.
    Eager attention keeps q and repeat_kv's expanded k and v, plus the fp32 softmax output and its 16-bit cast
    (HF ``softmax(..., dtype=float32).to(q.dtype)``), each b x heads x s x s.
    """
    c, at = ctx.c, layer.attention
    a = at.num_heads
    q_w, k_w, v_w, o_w = _widths(at)
    if ctx.s.attention is Attention.EAGER:
        # + tanh's output when scores are soft-capped (Gemma 2); with attention sinks (GPT-OSS) the softmax runs in
        # the scores' own dtype and its output is the only copy kept (modeling_gpt_oss eager_attention_forward)
        probs = a * (FP32 + (c if c < FP32 else 0) + (c if at.softcap else 0)) if not at.sinks else a * c
        saved = c * (q_w + 2 * q_w)
        return saved, probs, c * 3 * q_w, a * 2 * FP32
    saved = c * (q_w + k_w + v_w + o_w) + FP32 * a
    return saved, 0.0, c * (q_w + k_w + v_w) + FP32 * q_w, 0.0


def _mlp(ctx: _Ctx, layer: LayerSpec, adapted: set[str]) -> tuple[float, float]:
    """(saved, transient) per token of the MLP: SwiGLU keeps gate, act(gate), up and their product;
    GPT-2's tanh GELU keeps four tensors of the hidden width.

    MoE (transformers' grouped-matmul experts, integrations/moe.py): each token visits k experts; the routing
    weights keep each expert's output (k x hidden) and the router's fp32 logits and scores (2 x experts); when the
    experts' weights take gradients (full fine-tuning, or PEFT's ParamWrapper on them) the grouped matmuls also keep
    their inputs, the gathered tokens (k x hidden) and the down projection's input (k x expert width).
    """
    c, p, h = ctx.c, layer.mlp, ctx.m.hidden_size
    e = p.moe
    k = (e.num_experts if e.dense_dispatch else e.experts_per_token) if e is not None else 0
    routed_width = k * e.expert_intermediate_size if e is not None else 0
    width = p.intermediate_size + (e.shared_width if e is not None else 0) + routed_width
    inner = c * (_INNER[p.kind] * routed_width + _INNER[MlpKind.GATED if p.kind is MlpKind.GATED_CLAMPED else p.kind]
                 * (width - routed_width))
    linears = mlp_linears(p, h)
    readers = [x for x in linears if x.n_in == h and not _is_down(x)]
    routing = 2 * FP32 * e.num_experts if e is not None else 0.0
    if ctx.full:
        down_in = _inputs(ctx, [Linear("down", width, h)], c, adapted)
        mlp_in = _inputs(ctx, [Linear(x.role, h, 1) for x in readers[:2]], ctx.r, adapted)
        return inner + down_in + mlp_in + c * k * 2 * h + routing, 3 * c * width
    wrapped = e is not None and e.lora is ExpertLora.PARAMETERS  # router and experts are ParamWrappers
    experts_train = any(x.role in adapted for x in linears if x.role.startswith("experts_"))
    modules = [x for x in readers if not x.role.startswith("experts_") and not (wrapped and x.role == "router")]
    mlp_in = _inputs(ctx, [Linear(x.role, h, 1) for x in modules], ctx.r, adapted)
    mlp_in += c * h if wrapped and "router" in adapted else 0  # the wrapped router keeps its input itself
    downs = [x for x in linears if _is_down(x) and not x.role.startswith("experts_")]
    down_in = sum(_inputs(ctx, [Linear(x.role, x.n_in, h)], c, adapted) for x in downs)
    routed = c * k * h * (2 if experts_train else 1) + (c * routed_width if experts_train else 0)
    return inner + down_in + mlp_in + routed + routing, 3 * c * width


#: tensors of the MLP's width kept per token: SwiGLU keeps gate (in the gate_up output), up, act(gate) and their
#: product is down's input (counted there); GPT-2's tanh GELU four; GPT-OSS's clamped SwiGLU the gate_up output (2),
#: the clamped gate, its sigmoid, their product and up + 1 (modeling_gpt_oss GptOssExperts._apply_gate)
_INNER = {MlpKind.GATED: 3, MlpKind.PLAIN: 4, MlpKind.GATED_CLAMPED: 6}


def _is_down(x: Linear) -> bool:
    return x.role.endswith("down")


def _selective(ctx: _Ctx, layer: LayerSpec, o_shared: bool) -> tuple[float, float, float, float]:
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
    c, a = ctx.c, layer.attention.num_heads
    q_w, k_w, v_w, o_w = _widths(layer.attention)
    kept = c * (q_w + k_w + v_w) + (c * o_w if o_shared else 0)
    core_bs2 = _attention_core(ctx, layer)[1]
    if ctx.s.attention is Attention.EAGER:
        return kept, 0.0, c * (2 * q_w + o_w), core_bs2
    return kept, 0.0, c * o_w + FP32 * a, 0.0


def _saved_again(ctx: _Ctx, layer: LayerSpec, groups: list[list[Linear]], o_shared: bool) -> tuple[float, float]:
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
        again += layer.norms * (FP32 * h + 2 * FP32)
    if ctx.full and not (ctx.autocast and r != ctx.c):
        again += sum((len(g) - 1) * r * g[0].n_in for g in groups if g)
    if o_shared:
        again += ctx.c * _widths(layer.attention)[3]
    rope = m.positions is PositionKind.ROPE
    d = layer.attention.head_dim
    return again + (4 * r * d if rope else 0), (2 * r * d if rope else 0)


def layer_coeffs(ctx: _Ctx, layer: LayerSpec) -> LayerCoeffs:
    """What one layer of kind ``layer`` saves and needs during its backward, per token."""
    h = ctx.m.hidden_size
    adapted = ctx.adapted(layer)
    at = layer.attention
    attn = attention_linears(at, h)
    q_in = [x for x in attn if x.n_in == h and x.role != "o"]
    o_in = [x for x in attn if x.role == "o"]
    core, core_bs2, core_t, core_t_bs2 = _attention_core(ctx, layer)
    mlp, mlp_t = _mlp(ctx, layer, adapted)
    other = [x for x in attn if x not in q_in and x not in o_in]  # MLA's q_b / kv_b, after their own norms
    mla = sum(_inputs(ctx, [x], ctx.c, adapted) + _norm(ctx, x.n_in) for x in other)
    # SDPA / FlashAttention write their output in the query's memory order: (b, s, heads, d) when RoPE ran
    # element-wise on the projection's view, so the transpose that feeds o_proj is free and a full fine-tune's
    # o_proj saves the very tensor attention already keeps. A query made by torch.cat (partial RoPE, MLA) is
    # contiguous in (b, heads, s, d) and the output is copied for o_proj, as eager's always is.
    # (LoRA under autocast still saves its own cast copy of it.)
    concatenated = at.partial_rotary or at.mla is not None
    o_shared = ctx.s.attention is not Attention.EAGER and not concatenated and (ctx.full or not ctx.autocast)
    saved = (
        (layer.norms * _norm(ctx, h))
        + _inputs(ctx, q_in, ctx.r, adapted)
        + (0.0 if o_shared else _inputs(ctx, o_in, ctx.c, adapted))
        + core
        + mlp
        + mla
        + _qk_norms(ctx, at)
    )
    rope = ctx.m.positions is PositionKind.ROPE  # RoPE makes q and k new tensors; v stays a view of the output
    if at.fused_qkv and rope and (ctx.s.attention is not Attention.EAGER or at.num_kv_heads == at.num_heads):
        saved += ctx.c * (at.num_heads + at.num_kv_heads) * at.head_dim  # so the whole qkv output stays
    recomputed = recomputed_bs2 = 0.0
    if ctx.s.checkpointing is Checkpointing.SELECTIVE:
        kept, core_bs2, recomputed, recomputed_bs2 = _selective(ctx, layer, o_shared)
        saved += kept - core
    merged, merged_grad = _merged_experts(ctx, layer, adapted)
    linears = layer_linears(layer, h)
    copies = ctx.c * sum(x.count * x.n_in * x.n_out for x in linears) if ctx.copies else 0
    transient = 2 * ctx.r * h + max(core_t, mlp_t)
    dequantized = merged_grad
    if ctx.full and layer.mlp.moe is not None:  # an expert stack's gradient lands while its backward runs
        grad = dtype_plan(ctx.s.precision).grad
        dequantized = grad * max(x.params for x in linears if x.role.startswith("experts_"))
    if ctx.s.method is Method.QLORA:
        dequantized = max(dequantized, ctx.c * max(x.n_in * x.n_out for x in linears))
    # SDPA cannot skip a sliding window's mask once the sequence reaches the window: CUDA converts the boolean mask
    # to an additive bias in the query's dtype, which the memory-efficient kernel keeps for backward
    # (aten/src/ATen/native/transformers/attention.cpp, convert_boolean_attn_mask; calibration/patches.py)
    if at.window in windows_reached(ctx.m, ctx.s) and ctx.s.checkpointing is not Checkpointing.SELECTIVE:
        core_bs2 += ctx.c
    mlp_first = [x for x in mlp_linears(layer.mlp, h) if x.role in ("gate", "up")]
    again, checkpoint_again = _saved_again(ctx, layer, [q_in, mlp_first], o_shared)
    return LayerCoeffs(saved, core_bs2, transient, core_t_bs2, ctx.r * h, copies, dequantized, recomputed,
                       recomputed_bs2, again, checkpoint_again, merged)


def windows_reached(m: ModelSpec, s: TrainingSetup) -> tuple[int, ...]:
    """The sliding windows (SDPA only) that ``s.seq_len`` reaches: the coefficients depend on them, so the
    estimate's cache keys on them (everything else in the coefficients is independent of the sequence length)."""
    if s.attention is not Attention.SDPA:
        return ()
    return tuple(sorted({w for r in runs(m) if (w := r.attention.window) is not None and s.seq_len >= w}))


def _same_weights(a: LayerSpec, b: LayerSpec) -> bool:
    """Two layer kinds with the same parameters (they may differ in their sliding window only)."""
    return a.model_copy(update={"attention": a.attention.model_copy(update={"window": None})}) == b.model_copy(
        update={"attention": b.attention.model_copy(update={"window": None})})


def activation_coeffs(m: ModelSpec, s: TrainingSetup) -> ActivationCoeffs:
    """Coefficients for one model and setup (independent of batch and sequence length, but for the sliding
    windows the sequence reaches: :func:`windows_reached`)."""
    ctx = _Ctx(m, s)
    segments: list[tuple[int, LayerCoeffs]] = []
    kinds: list[LayerSpec] = []
    for run in runs(m):  # consecutive runs that cost the same are one segment
        kind = kind_of(run)
        lc = layer_coeffs(ctx, kind)
        if segments and segments[-1][1] == lc and _same_weights(kinds[-1], kind):
            segments[-1] = (segments[-1][0] + run.count, lc)
        else:
            segments.append((run.count, lc))
            kinds.append(kind)
    v, h, c = m.vocab_size, m.hidden_size, ctx.c
    # Liger and TRL's chunked loss read the output weight themselves: the output layer saves no input
    fused = s.loss in (Loss.FUSED_LINEAR_CE, Loss.CHUNKED)
    head_in = (c if ctx.autocast and ctx.r != c else ctx.r) * h if ctx.full and not fused else 0
    head_grad = v * h * dtype_plan(s.precision).weight if ctx.full else 0
    head_copy = ctx.c * v * h if ctx.copies else 0
    chunk_copy = s.loss is Loss.CHUNKED  # TRL's chunks cast the weight in each chunk: the loss counts it
    return ActivationCoeffs(
        segments=tuple(segments),
        kinds=tuple(kinds),
        head_saved=_norm(ctx, h) + head_in,
        head_input=head_in,
        head_copies=0 if chunk_copy else head_copy,
        loss=loss_coeffs(m, s, c, ctx.r, head_grad=head_grad, head_copy=head_copy),
        end_transient=ctx.r * h,
    )
