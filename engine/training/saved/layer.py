"""One decoder layer's sum: what it saves for backward and what its backward needs on top, per token
(``engine.training.saved``)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.params import Linear, attention_linears, layer_linears, lora_targets, mlp_linears
from engine.specs import QUANTIZED_METHODS, Attention, Checkpointing, LayerSpec, Method, NormKind, PositionKind
from engine.training.precision import FP32
from engine.training.saved.attention import core, output_gate, qk_norms, selective, widths
from engine.training.saved.compiled import UNREAD, compiled_saved
from engine.training.saved.inputs import Ctx, int8_kept, linear_inputs, norm
from engine.training.saved.mixers import MixerCoeffs, mixer_coeffs
from engine.training.saved.mlp import is_down, merged_experts, mlp
from engine.training.saved.op_selective import kept as op_kept
from engine.training.stacks import NormImpl


@dataclass(frozen=True, slots=True)
class LayerCoeffs:
    """One decoder layer: what it saves for backward and what its backward needs on top, per token."""

    saved: float  # bytes per token saved until this layer's backward
    saved_bs2: float  # bytes per b*s^2 (eager attention's probabilities)
    transient: float  # peak extra bytes per token while this layer's backward runs
    transient_bs2: float
    checkpoint: float  # bytes per token kept under full checkpointing (the layer's input)
    weight_copies: int  # autocast's 16-bit copies of this layer's fp32 weights and adapters (bytes, not per token)
    #: bytes (not per token) in flight during the backward: QLoRA dequantizes each 4-bit weight to 16 bits for its
    #: matmul, one linear at a time (bitsandbytes MatMul4Bit); LoRA on fused experts: the merged weight's gradient;
    #: full fine-tuning of an MoE layer: its expert stacks' gradients, made while the layer's backward still runs
    dequantized: int = 0
    #: selective checkpointing: what the attention core saves again when it is recomputed in this layer's backward
    recomputed: float = 0.0
    recomputed_bs2: float = 0.0
    #: bytes per token saved more than once (one storage, several saves): held once on the GPU, but an offload
    #: hook copies every save to host RAM (:func:`saved_again`); without and with full checkpointing
    saved_again: float = 0.0
    checkpoint_again: float = 0.0
    #: bytes (not per token) saved until this layer's backward: PEFT's merged expert weights (W + B A, ParamWrapper)
    saved_fixed: int = 0
    #: ``saved`` as the parts it adds up (each norm's input, each linear group's, the attention core, the MLP, ...):
    #: the tensors the caching allocator's replay hands out (``engine.allocator.step``; issue 26)
    saved_parts: tuple[float, ...] = ()
    #: what the layer's forward makes and frees on top of what it saves (DoRA's weight norm, dora_temporaries):
    #: in bytes and per token; again in the backward of a checkpointed layer, which recomputes its forward
    forward_fixed: int = 0
    forward_transient: float = 0.0


def saved_again(ctx: Ctx, layer: LayerSpec, groups: list[list[Linear]], o_shared: bool) -> tuple[float, float]:
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
    if m.norm is NormKind.CENTRED_FP32:  # its two copies of x - mean are two tensors; rstd saved twice
        again += layer.norms * FP32
    elif m.norm is not NormKind.LAYERNORM:
        again += layer.norms * (FP32 * h + 2 * FP32)
    if ctx.full and not (ctx.autocast and r != ctx.c):
        again += sum((len(g) - 1) * r * g[0].n_in for g in groups if g)
    if o_shared and layer.attention is not None:
        again += ctx.c * widths(layer.attention)[3]
    rope = m.positions is PositionKind.ROPE and layer.attention is not None
    d = layer.attention.head_dim if layer.attention is not None else 0
    return again + (4 * r * d if rope else 0), (2 * r * d if rope else 0)


def _o_input(ctx: Ctx, o_in: list[Linear], adapted: set[str], o_shared: bool, shared_lora: bool, *,
             held: bool) -> float:
    """What the output projection saves of its input: nothing more when it is the attention kernel's own output
    (``o_shared``) but, for an adapter reading it as it is (torchtune), lora_A's output for lora_B; ``held``: the
    input is the kernel's output, which an 8-bit base keeps anyway (``linear_inputs``)."""
    if not o_shared:
        return linear_inputs(ctx, o_in, ctx.c, adapted, held=held)
    if shared_lora:
        return linear_inputs(ctx, o_in, ctx.c, adapted) - (ctx.c * o_in[0].n_in if "o" in adapted else 0.0)
    return 0.0


def _rope_slice(ctx: Ctx, layer: LayerSpec) -> float:
    """Per token: torchtitan's ComplexRoPE slice of its block's cache, which the complex product saves
    (``LayerImpl.rope_slice``: d / 2 complex64 a token)."""
    if not ctx.impl.rope_slice or layer.attention is None or ctx.m.positions is not PositionKind.ROPE:
        return 0.0
    return float(FP32 * layer.attention.head_dim)


def _op_selective(ctx: Ctx, layer: LayerSpec, saved: float) -> tuple[float, list[float], float]:
    """(kept, its parts, recomputed) under operator-level selective checkpointing
    (``engine.training.saved.op_selective``): in its backward the layer saves again all it saves unchecked,
    beside its input, held by the checkpoint (part of that set already where the first norm keeps its input:
    torch's fused RMSNorm, LayerNorm)."""
    if ctx.s.compile:  # the compiled set counts the block's input; the policy's outputs no backward reads go
        kept, kept_parts = op_kept(ctx, layer, UNREAD)
        return kept, list(kept_parts), saved - kept
    kept, kept_parts = op_kept(ctx, layer)
    input_saved = ctx.impl.norm is NormImpl.FUSED or ctx.m.norm is NormKind.LAYERNORM
    return kept, list(kept_parts), saved + (0.0 if input_saved else ctx.r * ctx.m.hidden_size) - kept


def _dequantized(ctx: Ctx, layer: LayerSpec, linears: list[Linear], merged_grad: int) -> int:
    """Bytes in flight during the backward besides the activations' gradients (``LayerCoeffs.dequantized``)."""
    out = merged_grad
    if ctx.full and layer.mlp is not None and layer.mlp.moe is not None:  # an expert stack's gradient lands while
        # its backward runs
        out = ctx.dtypes.grad * max(x.params for x in linears if x.role.startswith("experts_"))
    if ctx.s.method in QUANTIZED_METHODS:  # MatMul4Bit / MatMul8bitLt backward, torchao's NF4: one linear's weight
        nf4 = ctx.impl.dequant_bytes if ctx.s.method is Method.QLORA else 0  # dequantized for its matmul
        out = max(out, (nf4 or ctx.c) * max(x.n_in * x.n_out for x in linears))
    return out


#: OFT's Cayley-Neumann rotation (PEFT 0.21.2 ``OFTRotationModule._cayley_batch``, 5 terms) under autocast keeps
#: seven r x b x b 16-bit tensors (its bmm's casts and products) for the backward: traced on one linear
OFT_BLOCK_TENSORS = 7


def oft_terms(ctx: Ctx, layer: LayerSpec) -> tuple[int, float]:
    """(bytes saved, backward temporaries per token) of OFT's rotations in one layer (PEFT 0.21.2
    peft/tuners/oft/layer.py, ``use_cayley_neumann`` True, 5 terms): each adapted linear keeps seven
    ``(n_in / b) x b x b`` 16-bit tensors of its rotation until its backward, a constant 7 b n_in c bytes; its
    backward makes the input's gradient in fp32 and 16 bits and the rotation's (6 bytes of the input width a token
    at most, traced). The saved input is ``engine.training.saved.inputs.linear_inputs``'s."""
    if ctx.s.method is not Method.OFT:
        return 0, 0.0
    b = ctx.s.oft_block_size
    targets = lora_targets(ctx.m, layer, ctx.s.lora.targets)
    fixed = sum(x.count * OFT_BLOCK_TENSORS * (x.n_in // b) * b * b * ctx.c for x in targets)
    return fixed, float(max((6 * x.n_in for x in targets), default=0))


def dora_saved(ctx: Ctx, layer: LayerSpec) -> float:
    """DoRA (PEFT 0.21.2 peft/tuners/lora/dora.py ``DoraLinearLayer.forward``; with dropout also
    :func:`dora_dropout_fixed`): each adapted linear's ``result_dora = (mag_norm_scale - 1) * base_result +
    mag_norm_scale * lora_result * scaling``, whose two products save the base layer's output and ``lora_B``'s (in
    the compute dtype; the magnitude's scale is an fp32 vector): two tensors of the linear's output width a token,
    which plain LoRA frees. A linear with a bias saves ``base_result - bias`` instead, promoted to the bias's dtype
    (fp32 under amp)."""
    if not ctx.s.dora:
        return 0.0
    w = ctx.dtypes.weight
    return float(sum(x.count * x.n_out * (ctx.c + (max(ctx.c, w) if x.bias else ctx.c))
                     for x in lora_targets(ctx.m, layer, ctx.s.lora.targets)))


def dora_dropout_fixed(ctx: Ctx, layer: LayerSpec) -> int:
    """DoRA with ``lora_dropout`` > 0 (PEFT 0.21.2 peft/tuners/lora/variants.py ``DoraLinearVariant.forward``: in
    training the input is dropped and ``base_result`` is None, so ``DoraLinearLayer.forward`` recomputes
    ``F.linear(x, weight)`` on the dropped input, with ``weight = base weight .to(x.dtype)``, the adapter's fp32):
    under autocast that matmul casts the weight to 16 bits and saves the cast for its input's gradient, a
    weight-sized tensor per adapted linear kept until the layer's backward (the 16-bit result replaces the base
    output ``result_dora`` saved without dropout; the dropout's mask and copy are LoRA's, ``linear_inputs``).
    Without autocast (fp32) the matmul saves the weight itself: nothing more. Traced: calibration cases
    ``op-*_lora-r16-d05_*_dora`` (+1.81 GiB on Llama 3.2 1B: its 16 layers' bf16 weight copies), and on one linear
    (the saved set of ``lora.Linear.forward`` with and without dropout differs by the mask and this copy)."""
    if not (ctx.s.dora and ctx.s.lora.dropout > 0 and ctx.autocast):
        return 0
    return sum(x.count * x.n_in * x.n_out * ctx.c for x in lora_targets(ctx.m, layer, ctx.s.lora.targets))


@dataclass(frozen=True, slots=True)
class DoraTemporaries:
    """What DoRA's forward and backward make on top of what stays saved, for one layer's largest adapted linear."""

    forward_fixed: int  # bytes: the weight-sized tensors of the weight norm
    forward: float  # per token
    backward: float  # per token


def dora_temporaries(ctx: Ctx, layer: LayerSpec) -> DoraTemporaries:
    """DoRA's temporaries (PEFT 0.21.2 ``lora.Linear.forward`` + peft/tuners/lora/dora.py; traced on one linear in
    calibration/options.py's sense, and read line by line), for an ``n -> m`` adapted linear under autocast:

    * forward, ``get_lora_weight``: ``x_eye = torch.eye(n)`` in the adapter's fp32 (4 n^2), its autocast cast
      (c n^2, kept by ``lora_A``'s graph until the function's locals go) and ``lora_B``'s ``n x m`` output; then
      ``lora_weight.to(x.dtype)`` (x is cast to the adapter's fp32 first: ``_cast_input_dtype``, 4 n a token when
      the input is 16-bit) and the base weight ``.to(x.dtype)`` (4 n m each, the latter only for a 16-bit base) and
      ``get_weight_norm``'s ``scaling * lora_weight`` and ``weight + ...`` (4 n m each): the larger of the two
      moments; then ``result_dora``'s fp32 products, three of the output width a token at most;
    * backward: the output's gradient upcast to fp32 (``.to`` in ``lora.Linear.forward``), its bf16 cast for the
      base output (the add's promotion) and three fp32 products (``mul`` backward): 18 bytes of the output width a
      token, on top of the arriving gradient.

    A layer's linears run one after the other: each part is the largest linear's (an upper bound where the
    weight-sized part and the per-token part peak in different linears)."""
    if not ctx.s.dora:
        return DoraTemporaries(0, 0.0, 0.0)
    c, w, h = ctx.c, ctx.dtypes.weight, ctx.m.hidden_size
    fixed, forward, backward = 0, 0.0, 0.0
    for x in lora_targets(ctx.m, layer, ctx.s.lora.targets):
        n, m = x.n_in, x.n_out
        src = ctx.r if n == h and x.role not in ("o", "down") else c
        eye = c * n * n if c < FP32 else 0
        cast_w = FP32 * n * m if w < FP32 else 0
        fixed = max(fixed, 4 * n * n + eye + c * n * m, eye + FP32 * n * m + cast_w + 2 * FP32 * n * m)
        forward = max(forward, (FP32 * n if src < FP32 else 0) + 3 * FP32 * m)
        backward = max(backward, (18 + c) * m)
    return DoraTemporaries(fixed, forward, backward)


@dataclass(frozen=True, slots=True)
class _Attention:
    """The attention block's share of one layer (:func:`layer_coeffs`), part by part."""

    q: float  # what q/k/v (or the fused qkv) keep of their input
    o: float  # what o_proj keeps of its input
    core: float  # the attention core (what selective checkpointing keeps of it, under selective)
    mla: float  # MLA's inner linears and their norms
    qk: float  # q/k norms
    qkv: float  # a fused qkv projection's output, kept whole
    gate: float  # gated attention's sigmoid and the output it multiplies
    core_saved: float  # the core as it saves without selective checkpointing
    bs2: float
    transient: float
    transient_bs2: float
    recomputed: float
    recomputed_bs2: float
    q_in: list[Linear]
    o_in: list[Linear]
    o_shared: bool


_NO_ATTENTION = _Attention(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, [], [], False)


def _attention(ctx: Ctx, layer: LayerSpec, adapted: set[str], q_grad: bool) -> _Attention:
    """What the attention block saves (its linears' inputs, the core), per token and per b*s^2; ``q_grad``: the
    layer's input needs a gradient (:func:`layer_coeffs`' ``first``)."""
    at = layer.attention
    if at is None:
        return _NO_ATTENTION
    h = ctx.m.hidden_size
    attn = attention_linears(at, h)
    q_in = [x for x in attn if x.n_in == h and x.role != "o"]
    o_in = [x for x in attn if x.role == "o"]
    core_saved, core_bs2, core_t, core_t_bs2 = core(ctx, layer)
    other = [x for x in attn if x not in q_in and x not in o_in]  # MLA's q_b / kv_b, after their own norms
    mla = sum(linear_inputs(ctx, [x], ctx.c, adapted) + norm(ctx, x.n_in) for x in other)
    # SDPA / FlashAttention write their output in the query's memory order: (b, s, heads, d) when RoPE ran
    # element-wise on the projection's view, so the transpose that feeds o_proj is free and a full fine-tune's
    # o_proj saves the very tensor attention already keeps. A query made by torch.cat (partial RoPE, MLA) is
    # contiguous in (b, heads, s, d) and the output is copied for o_proj, as eager's always is. With an output gate
    # o_proj reads the gated product, never the attention's output.
    # (LoRA under autocast still saves its own cast copy of it; torchtune's adapter reads the kernel's output.)
    concatenated = at.partial_rotary or at.mla is not None
    eager = ctx.s.attention is Attention.EAGER
    shared_lora = ctx.impl.lora_shared_input and not ctx.full
    o_shared = not eager and not concatenated and not at.output_gate and (ctx.full or not ctx.autocast or shared_lora)
    o_held = not eager and not concatenated and not at.output_gate  # o_proj's input is SDPA's output itself
    q_saved = linear_inputs(ctx, q_in, ctx.r, adapted, input_grad=q_grad)
    o_saved = _o_input(ctx, o_in, adapted, o_shared, shared_lora, held=o_held and ctx.int8)
    rope = ctx.m.positions is PositionKind.ROPE  # RoPE makes q and k new tensors; v stays a view of the output
    qkv = 0.0
    if at.fused_qkv and rope and (ctx.s.attention is not Attention.EAGER or at.num_kv_heads == at.num_heads):
        qkv = ctx.c * (at.num_heads + at.num_kv_heads) * at.head_dim  # so the whole qkv output stays
    recomputed = recomputed_bs2 = 0.0
    kept = core_saved
    if ctx.s.checkpointing is Checkpointing.SELECTIVE:
        kept, core_bs2, recomputed, recomputed_bs2 = selective(ctx, layer, o_shared)
    # SDPA cannot skip a sliding window's mask once the sequence reaches the window: CUDA converts the boolean mask
    # to an additive bias in the query's dtype, which the memory-efficient kernel keeps for backward
    # (aten/src/ATen/native/transformers/attention.cpp, convert_boolean_attn_mask; calibration/patches.py)
    if at.window in ctx.windows and ctx.s.checkpointing is not Checkpointing.SELECTIVE:
        core_bs2 += ctx.c
    return _Attention(q_saved, o_saved, kept, mla, qk_norms(ctx, at), qkv,
                      output_gate(ctx, at, copied=concatenated or eager), core_saved, core_bs2, core_t, core_t_bs2,
                      recomputed, recomputed_bs2, q_in, o_in, o_shared)


def _parallel_shared(ctx: Ctx, layer: LayerSpec) -> float:
    """What a parallel block saves once that :func:`layer_coeffs` counts for attention and MLP apart: the same input
    (Wang and Komatsuzaki 2021, GPT-J; transformers 5.24 ``GPTJBlock``, ``PhiDecoderLayer``, ``GPTNeoXLayer`` with
    ``use_parallel_residual``). One shared norm: full fine-tuning's attention and MLP linears keep its one output
    (not under autocast from a wider residual, where each linear keeps its own cast copy). Two norms of the same
    input (GPT-NeoX): each LayerNorm keeps that input, once."""
    if not layer.parallel:
        return 0.0
    h = ctx.m.hidden_size
    if layer.norms == 1:
        return float(ctx.r * h) if ctx.full and not (ctx.autocast and ctx.r != ctx.c) else 0.0
    return float(ctx.r * h) if ctx.m.norm is NormKind.LAYERNORM else 0.0


def layer_coeffs(ctx: Ctx, layer: LayerSpec, first: bool = False) -> LayerCoeffs:
    """What one layer of kind ``layer`` saves and needs during its backward, per token: its norms, its attention
    (:func:`_attention`), its other token mixer (``engine.training.saved.mixers``), its MLP; ``first``: the bottom
    layer, whose input needs no gradient unless checkpointing asks for one (PEFT's ``enable_input_require_grads``):
    an 8-bit base's q, k, v there keep no input."""
    h = ctx.m.hidden_size
    adapted = ctx.adapted(layer)
    q_grad = not first or ctx.s.checkpointing is Checkpointing.FULL
    a = _attention(ctx, layer, adapted, q_grad)
    mlp_saved, mlp_t = mlp(ctx, layer, adapted) if layer.mlp is not None else (0.0, 0.0)
    mx = mixer_coeffs(ctx, layer.mixer, adapted) if layer.mixer is not None else MixerCoeffs(0.0, 0.0)
    # the mixer's kernel runs its backward after the MLP, the second norm and the mixer's output side freed theirs
    freed = mx.late + mlp_saved + (norm(ctx, h) if layer.mlp is not None and layer.norms > 1 else 0.0)
    mixer_t = max(0.0, mx.transient - freed)
    norm_in = norm(ctx, h)
    shared = _parallel_shared(ctx, layer)
    dora_kept = dora_saved(ctx, layer)
    saved = (layer.norms * norm_in) + a.q + a.o + a.core_saved + mlp_saved + a.mla + a.qk + dora_kept
    norm_parts = [norm_in] * layer.norms
    if shared and layer.norms > 1:  # GPT-NeoX: the second LayerNorm's input is the first's
        norm_parts[1] -= shared
    parts = [*norm_parts, a.q, a.o, a.core, mlp_saved - (shared if layer.norms == 1 else 0.0), a.mla, a.qk,
             dora_kept]
    oft_fixed, oft_back = oft_terms(ctx, layer)
    if a.qkv:
        saved += a.qkv
        parts.append(a.qkv)
    if a.gate or mx.saved or shared:  # the kinds beyond attention + MLP (issue 27)
        saved += a.gate + mx.saved - shared
        parts += [a.gate, mx.saved]
    rope_slice = _rope_slice(ctx, layer)
    saved += rope_slice
    parts.append(rope_slice)
    if ctx.s.compile:  # what inductor's partitioner saves instead (engine.training.saved.compiled)
        saved, compiled_parts = compiled_saved(ctx, layer)
        parts = list(compiled_parts)
    recomputed = a.recomputed
    if ctx.s.checkpointing is Checkpointing.SELECTIVE:
        saved += a.core - a.core_saved
    elif ctx.s.checkpointing is Checkpointing.OP_SELECTIVE:
        saved, parts, recomputed = _op_selective(ctx, layer, saved)
    merged, merged_grad = merged_experts(ctx, layer, adapted)
    linears = layer_linears(layer, h)
    copies = ctx.c * sum(x.count * x.n_in * x.n_out for x in linears) if ctx.copies else 0
    if ctx.dtypes.adapter_copies:  # autocast's cached 16-bit copies of the fp32 adapters (engine.training.policy)
        copies += ctx.c * sum(x.lora_params(ctx.s.lora.rank) for x in lora_targets(ctx.m, layer, ctx.s.lora.targets))
    dora = dora_temporaries(ctx, layer)
    transient = 2 * ctx.stream * h + max(a.transient, mlp_t, mixer_t, dora.backward, oft_back)
    bs2, recomputed_bs2 = a.bs2, a.recomputed_bs2
    if ctx.s.checkpointing is Checkpointing.OP_SELECTIVE:  # eager's scores and a window's mask are recomputed
        recomputed_bs2, bs2 = bs2, 0.0
    mlp_all = mlp_linears(layer.mlp, h) if layer.mlp is not None else []
    mlp_first = [x for x in mlp_all if x.role in ("gate", "up")]
    again, checkpoint_again = saved_again(ctx, layer, [a.q_in, mlp_first], a.o_shared)
    int8 = (int8_kept(ctx, a.q_in, ctx.r, input_grad=q_grad) + int8_kept(ctx, a.o_in, ctx.c)
            + int8_kept(ctx, [x for x in mlp_all if not is_down(x)], ctx.r)
            + int8_kept(ctx, [x for x in mlp_all if is_down(x)], ctx.c))  # kept through checkpointing too
    return LayerCoeffs(saved, bs2, transient, a.transient_bs2, ctx.stream * h + int8, copies,
                       _dequantized(ctx, layer, linears, merged_grad), recomputed, recomputed_bs2, again,
                       checkpoint_again, merged + oft_fixed + dora_dropout_fixed(ctx, layer),
                       tuple(p for p in parts if p), dora.forward_fixed, dora.forward)
