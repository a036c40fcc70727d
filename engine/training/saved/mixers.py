"""What a token mixer that is not softmax attention saves for backward, per token (``engine.training.saved``).

Each mixer is costed as it runs with the kernels users install (transformers 5.24 calls them when the package is
importable: ``integrations/hub_kernels.py`` ``use_kernel_func_from_hub_with_fallback``), not as transformers'
PyTorch fallback, which keeps far more (every chunk's decay matrix and intra-chunk attention in fp32). The
kernels' saved tensors were read from their autograd Functions at named versions and the whole layer traced with
fakes of them registered as custom ops (calibration/kernels.py, the ``hy-*`` cases).

Notation, per token: h the hidden width, c the compute dtype's bytes, 4 an fp32 element.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.params import mixer_linears
from engine.specs import DeltaNetSpec, Mamba1Spec, Mamba2Spec, Mixer, ShortConvSpec
from engine.training.precision import FP32
from engine.training.saved.inputs import Ctx, linear_inputs

#: fla 0.6.0's chunk size for the delta rule (``chunk_gated_delta_rule(..., chunk_size=64)``, the default
#: transformers keeps)
DELTA_CHUNK = 64
#: Hopper's tile in ``fla/ops/common/chunk_o.py`` ``chunk_bwd_dqkwg`` (CONST_TILING 128): dg has cdiv(K, 128) slices
DQKWG_TILE = 128


def _wider(a: int, b: int) -> int:
    """Bytes of the result of an element-wise op on two dtypes (PyTorch's type promotion: the wider float)."""
    return max(a, b)


@dataclass(frozen=True, slots=True)
class MixerCoeffs:
    """One mixer, per token: what it saves, the peak its kernel's backward adds, and how much of what it saves is
    consumed (freed) before that backward runs (its output side: a gated norm, out_proj's input)."""

    saved: float
    transient: float
    late: float = 0.0


def gated_deltanet(ctx: Ctx, x: DeltaNetSpec, adapted: set[str]) -> MixerCoeffs:
    """(saved, transient) per token of a gated DeltaNet layer (transformers 5.24 ``Qwen3_5GatedDeltaNet`` /
    ``Qwen3NextGatedDeltaNet`` forward with flash-linear-attention 0.6.0 and causal-conv1d 1.6.1), op by op:

    * the input projections keep the normed input (``linear_inputs``: once in full fine-tuning, LoRA's copies);
    * causal-conv1d's ``CausalConv1dFn`` keeps its input, the q/k/v projection's output: ``(2K + V) c``
      (K = key heads x key width, V = value heads x value width);
    * fla's ``ChunkGatedDeltaRuleFunction`` keeps q and k after its L2 norm (``2 K c``) with one fp32 rstd per head
      (``2 Hk x 4``), v as made contiguous by ``input_guard`` (``V c``), the chunk-local cumulative decay
      (``HV x 4``), beta (``HV c``, the sigmoid also keeps it) and A, the solved ``(I + A)^-1`` of each 64-token
      chunk (``64 HV c``);
    * the decay ``-exp(A_log) * softplus(a + dt_bias)``: softplus keeps its fp32 input, the product its fp32
      softplus output when A_log trains (``HV x 4`` each);
    * the gated RMSNorm (``Qwen3_5RMSNormGated``): its fp32 input and rstd (``V x 4 + HV x 4``), the normalised
      tensor when its weight trains (``V c``), ``weight x normalised`` (``V`` in the wider of the two dtypes), the
      gate z in fp32 and its SiLU (``2 V x 4``);
    * out_proj keeps the gated output (``linear_inputs``).

    Transient: fla's backward (``chunk_gated_delta_rule_bwd``) recomputes w, u, every chunk's state h
    (``HV x dk x dv / 64`` per token, k's dtype) and v_new, makes the state gradients dh (as large), dv, dq, dk,
    dw, dg and the WY representation's gradients, all alive until it returns; on top of the incoming gradient of
    its output and of z. By then the layer's MLP, its second norm, the gated norm and out_proj have run their
    backward and freed what they saved (``late``; traced: ``lc-qwen3.5-0.8b_*_chunked``, whose peak falls inside a
    recomputed layer's backward).
    """
    c, h = ctx.c, ctx.m.hidden_size
    k, v, hk, hv = x.key_width, x.value_width, x.num_k_heads, x.num_v_heads
    linears = mixer_linears(x, h)
    ins = [y for y in linears if y.role != "out"]
    out = [y for y in linears if y.role == "out"]
    inputs = linear_inputs(ctx, ins, ctx.r, adapted) + linear_inputs(ctx, out, c, adapted)
    conv = (2 * k + v) * c
    kernel = 2 * k * c + 2 * hk * FP32 + v * c + hv * FP32 + hv * c + DELTA_CHUNK * hv * c
    decay = hv * FP32 + (hv * FP32 if ctx.full else 0)
    weight_out = _wider(ctx.dtypes.weight, c)
    norm = v * FP32 + hv * FP32 + (v * c if ctx.full else 0) + v * weight_out + 2 * v * FP32
    saved = inputs + conv + kernel + decay + norm
    late = norm + linear_inputs(ctx, out, c, adapted)  # freed before the kernel's backward runs
    return MixerCoeffs(saved, _deltanet_backward(ctx, x), late)


def _deltanet_backward(ctx: Ctx, x: DeltaNetSpec) -> float:
    """Peak bytes per token of fla 0.6.0's ``chunk_gated_delta_rule_bwd`` (calibration/kernels.py ``_gdr_bwd``),
    with the gradients of its output and of the gate z in flight."""
    c, hv, dk, dv = ctx.c, x.num_v_heads, x.head_k_dim, x.head_v_dim
    k, v = x.key_width, x.value_width
    states = 2 * hv * dk * dv * c / DELTA_CHUNK  # h and dh
    w_u = hv * dk * c + v * c  # w, u
    values = 3 * v * c  # v_new, dv, the WY value gradient
    grads = 2 * k * c + hv * dk * c + 2 * hv * FP32 + hv * c  # dq, dk (per key head), dw, dg, dg2, db
    wy_k = hv * dk * c  # prepare_wy_repr_bwd's dk before its sum over grouped value heads
    slices = -(-dk // DQKWG_TILE)  # dg's tiles, summed
    incoming = v * c + v * c  # d(output), d(z)
    return states + w_u + values + grads + wy_k + slices * hv * FP32 + incoming


def mamba2(ctx: Ctx, x: Mamba2Spec, adapted: set[str]) -> MixerCoeffs:
    """(saved, transient) per token of a Mamba-2 layer as transformers 5.24 trains it with mamba-ssm 2.3.2.post1
    installed: one ``mamba_split_conv1d_scan_combined`` call (``MambaSplitConv1dScanCombinedFn``) runs the
    convolution, the chunked scan, the gated RMSNorm and out_proj, and keeps only

    * zxbcdt, in_proj's output: ``(2 I + 2 G N + H) c`` (I = heads x head_dim, G groups of N states, H heads);
    * the scan's output before the norm: ``I c``; the norm's rstd, one fp32 per group: ``4 G``;
    * the weights (out_proj's cast to 16 bits under autocast: an autocast copy),

    on top of what in_proj keeps of its input (``linear_inputs``). out_proj runs inside the kernel on its weight:
    LoRA's adapters on it (PEFT wraps it where it may) get no gradient, and nothing of theirs is saved.

    Transient: the backward recomputes the convolution and the forward scan (its chunk cumsums, C^T B per chunk
    in fp32, the states of every chunk in fp32), makes the gradients of zxbcdt and of the convolution's input,
    out_proj's input again, the norm's gradient, the state gradients (fp32, then 16-bit beside the converted
    states), dB and dC in fp32, d(C^T B): all alive until it returns, with the incoming gradient (``h c``); by then
    the layer's MLP and its norm freed theirs."""
    c, h = ctx.c, ctx.m.hidden_size
    inner, heads, groups = x.inner, x.num_heads, x.groups
    width = inner + x.conv_width + heads
    ins = [y for y in mixer_linears(x, h) if y.role == "in"]
    saved = linear_inputs(ctx, ins, ctx.r, adapted) + width * c + inner * c + groups * FP32
    return MixerCoeffs(saved, _mamba2_backward(ctx, x))


def _mamba2_backward(ctx: Ctx, x: Mamba2Spec) -> float:
    """Peak bytes per token of ``MambaSplitConv1dScanCombinedFn.backward`` (calibration/kernels.py, transcribed
    from mamba-ssm 2.3.2.post1), the larger of two moments: ``_state_passing_bwd``, where the fp32 states, their
    fp32 gradients and the 16-bit gradients and converted states are alive together; and ``_chunk_scan_bwd_dcb``,
    with the 16-bit ones, dB and dC (fp32) and d(C^T B) (fp32). mamba-ssm splits each group's heads over
    ``ceil(heads per group / max(1, ceil(b x chunks x heads / 132 SMs)))`` programs for dB, dC and d(C^T B): one
    split is taken (a long sequence's; a short one holds more of them, each a token's G N or G x chunk floats)."""
    c = ctx.c
    inner, heads, groups, chunk, n = x.inner, x.num_heads, x.groups, x.chunk_size, x.state_size
    width = inner + x.conv_width + heads
    # dzxbcdt, the recomputed convolution and dxBC, out_proj's input again, its gradient and the norm's, dt's clone
    # (the incoming gradient is the layer's own, counted by engine.training.saved.layer)
    outer = width * c + 2 * x.conv_width * c + 3 * inner * c + heads * c
    scan = 2 * heads * FP32 + groups * chunk * FP32  # the chunk cumsums, C^T B
    per_state = heads * x.head_dim * n / chunk
    passing = per_state * (2 * FP32 + 2 * c)
    dcb = per_state * 2 * c + 2 * groups * n * FP32 + groups * chunk * FP32 + 3 * heads * FP32
    return outer + scan + max(passing, dcb)


def mamba1(ctx: Ctx, x: Mamba1Spec, adapted: set[str]) -> MixerCoeffs:
    """(saved, transient) per token of a Mamba layer (Gu and Dao 2023) as transformers 5.24 trains it with
    mamba-ssm 2.3.2.post1 and causal-conv1d 1.6.1 installed; d = inner width, N = state size, R = dt rank.

    Fused (``MambaMixer``: ``mamba_inner_fn``, ``MambaInnerFn`` with checkpoint_lvl 1): xz made contiguous (2 d c),
    x_dbl = x_proj's output ((R + 2N) c), B and C contiguous (2 N c), the scan's ungated output (d c); the
    convolution and delta are recomputed in backward. x_proj, dt_proj and out_proj run inside on their weights:
    LoRA adapters on them get no gradient and keep nothing.

    Unfused (``JambaMambaMixer``): causal-conv1d keeps its input, a view of in_proj's output (2 d c); the scan
    (``SelectiveScanFn``) keeps u (the convolution's output, x_proj's input too), delta, B and C and the gate z
    made contiguous, and its ungated output (4 d c + 2 N c); x_proj keeps its input only as LoRA's copy; the dt, B
    and C RMSNorms their fp32 inputs (and their normalised tensor when their weights train); dt_proj's weight
    multiplies dt directly (a matmul: it keeps dt when the weight trains; LoRA on dt_proj is bypassed); out_proj
    keeps the gated output."""
    c, h, d, n, rank = ctx.c, ctx.m.hidden_size, x.inner, x.state_size, x.dt_rank
    by_role = {y.role: y for y in mixer_linears(x, h)}
    inputs = linear_inputs(ctx, [by_role["in"]], ctx.r, adapted)
    if x.fused:
        return MixerCoeffs(inputs + 2 * d * c + (rank + 2 * n) * c + 2 * n * c + d * c, 8 * d * c + 2 * n * FP32)
    x_in = 0.0 if ctx.full else linear_inputs(ctx, [by_role["x"]], c, adapted)
    widths = rank + 2 * n
    norms = FP32 * widths + (c * widths if ctx.full else 0) if x.dt_norms else 0
    dt_in = rank * c if ctx.full else 0
    scan = 4 * d * c + 2 * n * c
    saved = inputs + 2 * d * c + scan + x_in + norms + dt_in + linear_inputs(ctx, [by_role["out"]], c, adapted)
    return MixerCoeffs(saved, 4 * d * c + 2 * n * FP32, late=linear_inputs(ctx, [by_role["out"]], c, adapted))


def kda(ctx: Ctx, x: DeltaNetSpec, adapted: set[str]) -> MixerCoeffs:
    """(saved, transient) per token of a Kimi Delta Attention layer (transformers 5.24 ``KimiLinearDeltaAttention``
    with flash-linear-attention 0.6.0's ``ChunkKDAFunction`` and causal-conv1d 1.6.1); K = V = heads x width:

    * q/k/v_proj, f_a, b_proj and g_a keep the normed input (``linear_inputs``), f_b and g_b their low-rank input;
    * causal-conv1d keeps its input, the concatenated q, k, v (``3 K c``);
    * the forget gate ``-exp(A_log) * softplus(f + dt_bias)`` (a ``torch.where`` over ``log(1 + exp(g))``): exp's
      output and ``1 + exp`` in fp32, the where's mask (1 byte), softplus' output when A_log trains;
    * fla keeps q and k after its L2 norm with their rstd, v, the per-channel decay as given and its chunk-local
      cumsum (fp32 each), beta (the sigmoid's output), and each chunk's Aqk and Akk (``2 x 64 H c``);
    * the gated RMSNorm (``KimiLinearRMSNormGated``, fp32 throughout): its fp32 input and rstd, the normalised tensor
      when its weight trains, ``weight x normalised`` and the sigmoid of the fp32 gate; o_proj the output.

    Transient: fla's backward recomputes w, u, qg, kg, the chunk states and v_new, and makes the state gradients,
    fp32 dq / dk / dg twice over (the WY and the intra-chunk passes), dAqk and dAkk in fp32."""
    c, h = ctx.c, ctx.m.hidden_size
    k, v, heads, d = x.key_width, x.value_width, x.num_k_heads, x.head_k_dim
    by_role = {y.role: y for y in mixer_linears(x, h)}
    ins = [y for y in by_role.values() if y.n_in == h]
    low = sum(linear_inputs(ctx, [by_role[r]], c, adapted) for r in ("f_b", "g_b"))
    out = linear_inputs(ctx, [by_role["o"]], c, adapted)
    conv = (2 * k + v) * c
    gate = 2 * k * FP32 + k + (k * FP32 if ctx.full else 0)
    kernel = 2 * k * c + 2 * heads * FP32 + v * c + 2 * k * FP32 + heads * c + 2 * DELTA_CHUNK * heads * c
    norm = v * FP32 + heads * FP32 + (v * FP32 if ctx.full else 0) + 2 * v * FP32
    saved = linear_inputs(ctx, ins, ctx.r, adapted) + low + conv + gate + kernel + norm + out
    states = 2 * heads * d * d * c / DELTA_CHUNK
    backward = states + 3 * k * c + 5 * v * c + 2 * 2 * DELTA_CHUNK * heads * FP32 + 6 * k * FP32 + 2 * v * c
    return MixerCoeffs(saved, backward, late=norm + out)


def short_conv(ctx: Ctx, x: ShortConvSpec, adapted: set[str]) -> MixerCoeffs:
    """(saved, transient) per token of LFM2's gated short convolution (transformers 5.24 ``Lfm2ShortConv`` with
    causal-conv1d 1.6.1): ``B * x`` keeps its two operands, views of in_proj's output (3 h c); causal-conv1d keeps
    its input B x (h c); ``C * conv`` keeps the convolution's output (h c); out_proj the contiguous product; in_proj
    its input. Transient: the convolution's backward (its dx), the gradient of in_proj's output (4 h c)."""
    c, h = ctx.c, ctx.m.hidden_size
    by_role = {y.role: y for y in mixer_linears(x, h)}
    out = linear_inputs(ctx, [by_role["out"]], c, adapted)
    saved = linear_inputs(ctx, [by_role["in"]], ctx.r, adapted) + 3 * h * c + 2 * h * c + out
    return MixerCoeffs(saved, 4 * h * c, late=out)


def mixer_coeffs(ctx: Ctx, x: Mixer, adapted: set[str]) -> MixerCoeffs:
    """What one mixer saves and adds in its backward, per token."""
    if isinstance(x, DeltaNetSpec) and x.kind == "gated-deltanet":
        return gated_deltanet(ctx, x, adapted)
    if isinstance(x, DeltaNetSpec):
        return kda(ctx, x, adapted)
    if isinstance(x, Mamba2Spec):
        return mamba2(ctx, x, adapted)
    if isinstance(x, Mamba1Spec):
        return mamba1(ctx, x, adapted)
    return short_conv(ctx, x, adapted)

