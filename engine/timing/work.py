"""The work of one micro-batch on one GPU of a pipeline stage, op by op over the plan: GEMM, attention and
elementwise seconds, kernel launches and FLOPs, for the forward, the backward and the recomputation.

Per decoder layer (``engine.params.layer_linears``: every linear with its shape; ``engine.training.split``:
what tensor and expert parallelism split), for ``T`` tokens on this GPU (batch x sequence / cp):

* each linear ``n_in -> n_out``: forward ``[T, n_in] x [n_in, n_out]``, the input gradient (dgrad)
  ``[T, n_out] x [n_out, n_in]``, and for a trained weight the weight gradient (wgrad) ``[n_in, T] x [T, n_out]``:
  2, 2 and 2 FLOPs per token and weight, 6 N per token for full fine-tuning (Kaplan et al. 2020,
  arXiv:2001.08361, s2.1; Narayanan et al. 2021, arXiv:2104.04473, s5.1). A frozen base (LoRA, QLoRA) skips the
  wgrad: 4 N (Hu et al. 2021, arXiv:2106.09685, s4.2). Column-parallel linears split n_out over tp, row-parallel
  ones n_in (Shoeybi et al. 2019, arXiv:1909.08053, s3); routed experts run the tokens routed to them (k of E
  experts per token; all of them with dense dispatch).
* LoRA's adapters on each targeted linear: ``A: n_in -> r``, ``B: r -> n_out``, forward, dgrad and wgrad of both
  (Hu et al. 2021), and the wrapper's elementwise kernels (``engine.timing.stacks``).
* QLoRA: bitsandbytes' ``MatMul4Bit`` dequantizes each 4-bit weight to 16 bits before every forward and every
  backward GEMM (bitsandbytes 0.45 ``autograd/_functions.py``, ``MatMul4Bit.forward`` / ``.backward``:
  ``F.dequantize_4bit``): reading 0.5 byte and its constants and writing 2 bytes per weight, per pass.
* autocast over fp32 weights (amp-bf16 / amp-fp16) casts each weight to 16 bits per forward (6 bytes per
  weight) and the 16-bit weight gradient back to fp32 (PyTorch AMP, "Autocast op reference").
* the attention core: with a fused kernel (SDPA's flash backend, flash-attn) ``4 T s_kv h d`` FLOPs forward
  (QK^T and PV), counted as the kernel runs them: a causal mask skips the blocks above the diagonal, so a query
  meets ``(s + 128) / 2`` keys on average (FlashAttention-2, Dao 2023, s3.1.1), a sliding window at most its
  width; the backward runs five matmuls where the forward ran two, 2.5x (ibid. s3.2). Eager attention
  (transformers' ``eager_attention_forward``) runs QK^T and PV as batched GEMMs over the whole s x s square, masked
  or not, and the scaling, mask add, fp32 softmax and cast as elementwise kernels over it (22 bytes per score
  forward: scale 4, mask add 6, softmax 6, cast 6; 20 backward: the cast's 6, softmax's 10, the scale's 4).
  Context parallelism splits the queries and the keys over cp ranks, so a rank does 1/cp of the attention
  FLOPs (ring attention, Liu et al. 2023, arXiv:2310.01889, with load-balanced chunks); outside Megatron (whose
  Transformer Engine runs its own ring), PyTorch's experimental ``context_parallel`` runs them as a ring of SDPA
  calls, each merged into the last by its log-sum-exp (``torch.distributed.tensor.experimental._attention``), at the
  fitted ``ring_attention_efficiency`` of the kernel's rate.
* norms, RoPE, the activation and the residual adds as the stack writes them (``engine.timing.stacks``); with
  sequence parallelism the norms and residuals run on T / tp tokens (Korthikanti et al. 2022, arXiv:2205.05198,
  s4.2.2).
* recomputation: full checkpointing reruns every layer's forward (Chen et al. 2016, arXiv:1604.06174);
  ``selective`` reruns the attention core (Korthikanti et al. 2022, s5); ``op-selective`` (torchtitan's
  per-op SAC policy, ``_save_list`` in ``distributed/activation_checkpoint.py``: matmul outputs saved but every
  second one, attention outputs saved) reruns half of the linears' forward GEMMs and every elementwise kernel.

The first stage also runs the embedding (and, trained, its backward: a dense V x h gradient), the last the final
norm, the output layer and the loss (``engine.timing.stacks``: bytes per logit by loss implementation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.layers import expand, runs
from engine.params import Linear, layer_linears, lora_targets
from engine.specs import (
    Attention,
    AttentionSpec,
    Checkpointing,
    LayerSpec,
    Loss,
    Method,
    MlpKind,
    MlpSpec,
    ModelSpec,
    QkNorm,
    TrainingSetup,
)
from engine.timing.fitted import Fitted
from engine.timing.hardware import CannotTimeError, GpuPerf
from engine.timing.kernels import attention_seconds, gemm_seconds, matmul_rate, pointwise_seconds
from engine.timing.stacks import Pointwise, StackRules
from engine.training.loss import TITAN_CHUNKS
from engine.training.plan import Plan
from engine.training.split import COLUMN, ROW
from engine.training.states import quant_bits_per_param

FLASH_BLOCK = 128  # FlashAttention-2's key block: the diagonal blocks of a causal mask are computed whole
LOSS_CHUNK = 256  # TRL's chunked_nll chunk (tokens)
OUTPUT_CHUNKS = 8  # torchtune CEWithChunkedOutputLoss' default num_output_chunks


@dataclass(slots=True)
class Tally:
    """Seconds and counts of one pass (forward, backward or recomputation) on one GPU."""

    gemm: float = 0.0  # matmul seconds
    attention: float = 0.0  # fused attention seconds (eager attention's GEMMs count as gemm)
    pointwise: float = 0.0  # elementwise seconds (norms, activations, LoRA's wrapper, dequantization, the loss)
    kernels: float = 0.0  # launches
    flops: float = 0.0  # matmul FLOPs executed

    @property
    def compute(self) -> float:
        return self.gemm + self.attention

    @property
    def seconds(self) -> float:
        return self.gemm + self.attention + self.pointwise

    def scaled(self, k: float) -> Tally:
        return Tally(self.gemm * k, self.attention * k, self.pointwise * k, self.kernels * k, self.flops * k)

    def __iadd__(self, o: Tally) -> Tally:
        self.gemm += o.gemm
        self.attention += o.attention
        self.pointwise += o.pointwise
        self.kernels += o.kernels
        self.flops += o.flops
        return self


@dataclass(slots=True)
class Passes:
    """One micro-batch: forward, backward and recomputation."""

    fwd: Tally = field(default_factory=Tally)
    bwd: Tally = field(default_factory=Tally)
    rec: Tally = field(default_factory=Tally)

    def total(self) -> Tally:
        t = Tally()
        for p in (self.fwd, self.bwd, self.rec):
            t += p
        return t

    def __iadd__(self, o: Passes) -> Passes:
        self.fwd += o.fwd
        self.bwd += o.bwd
        self.rec += o.rec
        return self

    def scaled(self, k: float) -> Passes:
        return Passes(self.fwd.scaled(k), self.bwd.scaled(k), self.rec.scaled(k))


@dataclass(frozen=True, slots=True)
class Ctx:
    """Everything one micro-batch's work reads."""

    m: ModelSpec
    s: TrainingSetup
    plan: Plan
    rules: StackRules
    perf: GpuPerf
    f: Fitted
    tokens: float  # T: tokens of one micro-batch on this GPU (batch x seq / cp)
    dtype: str  # GEMM dtype: bf16, fp16, fp32
    linear_dtype: str  # the decoder linears' dtype: fp8 with float8 training, else dtype
    checkpointing: str  # none, full, selective, op-selective
    reentrant: bool = False  # reentrant checkpointing: no saved-tensor hooks (engine.timing.step.TimingOptions)

    @property
    def tp(self) -> int:
        return self.plan.layout.tp

    @property
    def sp_tokens(self) -> float:
        """Tokens a norm or a residual add walks: T / tp with sequence parallelism."""
        lay = self.plan.layout
        return self.tokens / lay.tp if lay.sequence_parallel else self.tokens

    @property
    def full(self) -> bool:
        return self.s.method is Method.FULL


def _gemm(c: Ctx, t: Tally, m: float, n: float, k: float, *, batch: float = 1, out_bytes: float = 2,
          dtype: str | None = None) -> None:
    d = dtype or c.dtype
    el = 4 if d == "fp32" else (1 if d == "fp8" else 2)
    t.gemm += gemm_seconds(m, n, k, c.perf, c.f, dtype=d, batch=batch, in_bytes=el,
                           out_bytes=max(out_bytes, el) if d == "fp32" else out_bytes,
                           rate=matmul_rate(c.perf, d, c.f))
    t.kernels += 1
    t.flops += 2 * m * n * k * batch


def _pointwise(c: Ctx, t: Tally, nbytes: float, kernels: float, efficiency: float | None = None) -> None:
    t.pointwise += pointwise_seconds(nbytes, kernels, c.perf, c.f, efficiency)
    t.kernels += kernels


def _run(c: Ctx, p: Passes, rule: Pointwise, elements: float, times: float = 1.0) -> None:
    """An elementwise run over ``elements`` (forward and backward), ``times`` per layer."""
    _pointwise(c, p.fwd, rule.fwd_bytes * elements * times, rule.fwd_kernels * times)
    _pointwise(c, p.bwd, rule.bwd_bytes * elements * times, rule.bwd_kernels * times)


@dataclass(frozen=True, slots=True)
class _Shape:
    """One linear on this GPU: its input and output widths, its copies and the tokens through each."""

    n_in: float
    n_out: float
    copies: float  # GEMMs of this shape (experts on this GPU)
    tokens: float  # tokens through each copy


def _refused(kind: LayerSpec) -> str:
    return (f"cannot time {kind.mixer_kind} layers{'' if kind.mlp is not None else ' without an MLP'}: the step-time "
            "model has attention and MLP layers only")


def attention_of(kind: LayerSpec) -> AttentionSpec:
    """The layer's softmax attention, or :class:`CannotTimeError` (issue 27's layers without one)."""
    if kind.attention is None:
        raise CannotTimeError(_refused(kind))
    return kind.attention


def mlp_of(kind: LayerSpec) -> MlpSpec:
    """The layer's MLP, or :class:`CannotTimeError` (issue 27's layers without one)."""
    if kind.mlp is None:
        raise CannotTimeError(_refused(kind))
    return kind.mlp


def _shape(c: Ctx, x: Linear, kind: LayerSpec) -> _Shape:
    lay = c.plan.layout
    if x.role.startswith("experts_"):
        e = mlp_of(kind).moe
        assert e is not None
        local = x.count / lay.ep
        routed = c.tokens * (e.num_experts if e.dense_dispatch else e.experts_per_token)
        n_in = x.n_in / lay.etp if x.role in ROW else x.n_in
        n_out = x.n_out / lay.etp if x.role in COLUMN else x.n_out
        return _Shape(n_in, n_out, local, routed / local if local else 0.0)
    if x.role in COLUMN:
        return _Shape(x.n_in, x.n_out / lay.tp, x.count, c.tokens)
    if x.role in ROW:
        return _Shape(x.n_in / lay.tp, x.n_out, x.count, c.tokens)
    return _Shape(x.n_in, x.n_out, x.count, c.tokens)


def _linear(c: Ctx, p: Passes, x: Linear, kind: LayerSpec, lora_rank: int | None) -> None:
    """One linear's GEMMs, its LoRA adapters and QLoRA's dequantization (module docstring)."""
    sh = _shape(c, x, kind)
    if not sh.copies or not sh.tokens:
        return
    t, b = sh.tokens, sh.copies
    wgrad_out = 4 if c.rules.fused_wgrad_accumulation else 2
    _gemm(c, p.fwd, t, sh.n_out, sh.n_in, batch=b, dtype=c.linear_dtype)
    _gemm(c, p.bwd, t, sh.n_in, sh.n_out, batch=b, dtype=c.linear_dtype)
    if c.full:
        _gemm(c, p.bwd, sh.n_in, sh.n_out, t, batch=b, out_bytes=wgrad_out, dtype=c.linear_dtype)
    weights = sh.n_in * sh.n_out * b
    if c.s.method is Method.QLORA:
        per_weight = quant_bits_per_param(c.s) / 8 + 2  # read 4 bits and constants, write 16 bits
        eff = c.f.memory_efficiency if c.rules.cpu == "compiled" else c.f.dequant_efficiency
        _pointwise(c, p.fwd, per_weight * weights, 2, eff)
        _pointwise(c, p.bwd, per_weight * weights, 2, eff)
    if c.plan.dtypes.autocast_copies:
        _pointwise(c, p.fwd, 6 * weights, 1)
        if c.full:
            _pointwise(c, p.bwd, 6 * weights, 1)
    if lora_rank is None:
        return
    r = lora_rank * x.rank_mult
    for pass_, shapes in ((p.fwd, ((t, r, sh.n_in), (t, sh.n_out, r))),
                          (p.bwd, ((t, sh.n_in, r), (sh.n_in, r, t), (t, r, sh.n_out), (r, sh.n_out, t)))):
        for mm, nn, kk in shapes:
            _gemm(c, pass_, mm, nn, kk, batch=b)
    w = c.rules.lora
    drop = 5.0 if c.s.lora.dropout > 0 else 0.0
    _pointwise(c, p.fwd, (w.fwd_in + drop) * t * sh.n_in * b + w.fwd_out * t * sh.n_out * b,
               w.fwd_kernels + (1 if drop else 0))
    _pointwise(c, p.bwd, (w.bwd_in + drop) * t * sh.n_in * b + w.bwd_out * t * sh.n_out * b,
               w.bwd_kernels + (1 if drop else 0))


def _attention(c: Ctx, kind: LayerSpec) -> Passes:
    """The attention core of one layer (module docstring)."""
    p = Passes()
    a = attention_of(kind)
    lay = c.plan.layout
    heads = a.num_heads / lay.tp
    if a.mla is not None:
        qk, v = a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim, a.mla.v_head_dim
    else:
        qk = v = a.head_dim
    seq = c.s.seq_len
    if c.s.attention is Attention.EAGER:
        sequences = c.s.batch
        _gemm(c, p.fwd, seq, seq, qk, batch=sequences * heads)
        _gemm(c, p.fwd, seq, v, seq, batch=sequences * heads)
        for mm, nn, kk in ((seq, seq, v), (seq, v, seq), (seq, qk, seq), (seq, qk, seq)):
            _gemm(c, p.bwd, mm, nn, kk, batch=sequences * heads)  # dP, dV, dQ, dK
        scores = sequences * heads * seq * seq
        soft = 3 if a.softcap else 0  # Gemma 2's tanh soft-capping: divide, tanh, multiply
        eff = c.f.eager_softmax_efficiency
        _pointwise(c, p.fwd, (22 + 12 * bool(soft)) * scores, 4 + soft, eff)
        _pointwise(c, p.bwd, (20 + 12 * bool(soft)) * scores, 4 + soft, eff)
        return p
    keys = float(min(a.window, seq)) if a.window is not None else (seq + FLASH_BLOCK) / 2
    keys = min(keys, float(seq))
    fwd = 2 * heads * (qk + v) * c.tokens * keys
    fused3 = c.rules.fused_attention_hopper
    scale = 1.0
    if c.dtype == "fp32":
        scale = c.perf.peak.get("fp32", 1.0) / c.perf.peak.get("bf16", c.perf.peak.get("fp16", 1.0))
    if lay.cp > 1 and c.rules.cpu != "megatron":
        scale *= c.f.ring_attention_efficiency
    span = keys if a.window is not None else float(seq)
    p.fwd.attention += attention_seconds(fwd, span, c.perf, c.f, fused3=fused3, backward=False) / scale
    p.bwd.attention += attention_seconds(2.5 * fwd, span, c.perf, c.f, fused3=fused3, backward=True) / scale
    p.fwd.kernels += 1
    p.bwd.kernels += 2  # the backward's preprocessing (dO . O) and its main kernel
    p.fwd.flops += fwd
    p.bwd.flops += 2.5 * fwd
    return p


def _elementwise(c: Ctx, kind: LayerSpec) -> Passes:
    """Norms, RoPE, the activation, residual adds, attention's layout copies (module docstring)."""
    p = Passes()
    r = c.rules
    a = attention_of(kind)
    lay = c.plan.layout
    h = c.m.hidden_size
    qlora_fp32 = 1.5 if (c.s.method is Method.QLORA and r.name == "hf-trainer") else 1.0  # PEFT's fp32 casts
    _run(c, p, r.norm, c.sp_tokens * h * qlora_fp32, kind.norms)
    _run(c, p, r.residual, c.sp_tokens * h * qlora_fp32, 2)
    heads, kv = a.num_heads / lay.tp, max(a.num_kv_heads / lay.tp, 1.0)
    rope_dim = a.mla.qk_rope_head_dim if a.mla is not None else a.head_dim
    rope_kv = 1.0 if a.mla is not None else kv
    _run(c, p, r.rope, c.tokens * (heads + rope_kv) * rope_dim)
    if a.qk_norm in (QkNorm.HEAD, QkNorm.PROJECTION):
        _run(c, p, r.norm, c.tokens * (heads + kv) * a.head_dim)
    v_dim = a.mla.v_head_dim if a.mla is not None else a.head_dim
    _run(c, p, r.layout, c.tokens * heads * v_dim)
    mlp = mlp_of(kind)
    act = r.act_plain if mlp.kind is MlpKind.PLAIN else r.act_gated
    width = mlp.intermediate_size / lay.tp
    if mlp.moe is not None:
        e = mlp.moe
        routed = c.tokens * (e.num_experts if e.dense_dispatch else e.experts_per_token)
        width += e.shared_width / lay.tp
        _run(c, p, act, routed * e.expert_intermediate_size / lay.etp)
        # router softmax / top-k over the experts, and the tokens' permutation to their experts and back
        _pointwise(c, p.fwd, 12 * c.tokens * e.num_experts + 8 * routed * h, 6)
        _pointwise(c, p.bwd, 12 * c.tokens * e.num_experts + 8 * routed * h, 6)
    _run(c, p, act, c.tokens * width)
    return p


def layer_passes(c: Ctx, kind: LayerSpec) -> Passes:
    """One decoder layer's micro-batch: forward, backward and what checkpointing reruns. A layer that is not
    softmax attention and an MLP (issue 27's gated DeltaNet, KDA, Mamba and short-convolution layers, and the
    layers without an MLP beside them) is refused: their kernels' times are not modelled."""
    if kind.mixer is not None:
        raise CannotTimeError(_refused(kind))
    p = Passes()
    lora = None if c.full else c.s.lora
    roles = {x.role for x in lora_targets(c.m, kind, lora.targets)} if lora is not None else set()
    linears = Passes()
    for x in layer_linears(kind, c.m.hidden_size):
        rank = lora.rank if lora is not None and x.role in roles else None
        _linear(c, linears, x, kind, rank)
    attention = _attention(c, kind)
    elementwise = _elementwise(c, kind)
    p += linears
    p += attention
    p += elementwise
    mode = c.checkpointing
    if mode == Checkpointing.FULL.value:
        p.rec += linears.fwd
        p.rec += attention.fwd
        p.rec += elementwise.fwd
    elif mode == Checkpointing.SELECTIVE.value:
        p.rec += attention.fwd
    elif mode == "op-selective":
        p.rec += linears.fwd.scaled(0.5)
        p.rec += elementwise.fwd
    return p


def head_passes(c: Ctx) -> Passes:
    """The final norm, the output layer and the loss (the last stage)."""
    p = Passes()
    h, v = c.m.hidden_size, c.m.vocab_size / c.tp
    _run(c, p, c.rules.norm, c.sp_tokens * h)
    t = c.tokens
    _gemm(c, p.fwd, t, v, h)
    _gemm(c, p.bwd, t, h, v)
    if c.full:
        _gemm(c, p.bwd, h, v, t)
    loss = c.s.loss
    if loss is Loss.CHUNKED:
        _gemm(c, p.rec, t, v, h)  # the chunk's output layer reruns in backward (checkpointed)
    chunks = 1.0
    if loss is Loss.CHUNKED:
        chunks = c.s.loss_chunks or max(1.0, math.ceil(t / LOSS_CHUNK))
    elif loss in (Loss.CHUNKED_OUTPUT, Loss.FUSED_LINEAR_CE):
        chunks = float(c.s.loss_chunks or OUTPUT_CHUNKS)
    elif loss is Loss.CHUNKED_BACKWARD:
        chunks = float(c.s.loss_chunks or TITAN_CHUNKS)
    rule = c.rules.loss[loss]
    _pointwise(c, p.fwd, rule.fwd_bytes * t * v, rule.fwd_kernels * chunks)
    _pointwise(c, p.bwd, rule.bwd_bytes * t * v, rule.bwd_kernels * chunks)
    return p


def embedding_passes(c: Ctx) -> Passes:
    """The token embedding: a gather forward; trained, a dense V x h gradient backward."""
    p = Passes()
    h = c.m.hidden_size
    _pointwise(c, p.fwd, 4 * c.tokens * h, 1)
    if c.full:
        _pointwise(c, p.bwd, 2 * c.m.vocab_size * h / c.tp + 6 * c.tokens * h, 3)
    return p


def stage_kinds(plan: Plan, stage: int) -> list[LayerSpec]:
    """The decoder layers of pipeline stage ``stage``, bottom first."""
    first, last = plan.layout.stages[stage]
    kinds = list(plan.kinds) if plan.kinds else expand(runs(plan.model))
    return kinds[first:last + 1]


def micro_batch(c: Ctx, stage: int) -> Passes:
    """One micro-batch on one GPU of pipeline stage ``stage``: its layers, and the ends the stage holds."""
    p = Passes()
    seen: dict[LayerSpec, Passes] = {}
    for kind in stage_kinds(c.plan, stage):
        if kind not in seen:
            seen[kind] = layer_passes(c, kind)
        p += seen[kind]
    if stage == 0:
        p += embedding_passes(c)
    if stage == c.plan.layout.pp - 1:
        p += head_passes(c)
    return p
