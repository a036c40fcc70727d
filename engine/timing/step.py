"""The seconds of one optimizer step, and what they are spent on.

One step runs ``M = micro_batches x grad_accum`` micro-batches through every GPU (``engine.timing.work`` counts
one), then the optimizer. Per micro-batch a GPU's kernels take their GPU seconds, and the CPU that launches them
its own (eager PyTorch dispatches each op from Python; a compiled graph or Megatron's fused modules far fewer);
the two overlap, since launches are asynchronous, so the forward and the backward each take their soft maximum
``(gpu^p + cpu^p)^(1/p)`` (p fitted): the GPU's time when it has enough work, the CPU's when kernels are small
(Ansel et al. 2024, s1: eager mode's per-op overhead). Communication adds what its stack's overlap rule leaves
exposed (``engine.timing.stacks``, ``engine.timing.comm``):

* data parallelism (no ZeRO): one all-reduce of the gradients per step, bucketed behind the last micro-batch's
  backward (PyTorch DDP, Li et al. 2020, arXiv:2006.15704, s3.2.3);
* ZeRO-1/2: a reduce-scatter of the gradients (hidden like DDP's all-reduce) and an all-gather of the updated
  16-bit weights after the step (Rajbhandari et al. 2020, arXiv:1910.02054, s7: 2 Psi in all, as DDP);
* ZeRO-3 / FSDP: every micro-batch gathers the weights for the forward and again for the backward and
  reduce-scatters the gradients (3 Psi, 1.5x DDP: ibid. s7.2), prefetched behind compute;
* tensor parallelism: two all-reduces per layer in the forward and two in the backward (all-gather +
  reduce-scatter of the same volume with sequence parallelism; two more when checkpointing reruns the forward)
  of ``T x h`` 16-bit activations (Korthikanti et al. 2022, s4.2.2);
* context parallelism: ring attention passes each rank's K and V around the ring in the forward, and K, V and
  their gradients in the backward, behind the attention of the block in hand (Liu et al. 2023);
* expert parallelism: an all-to-all of the routed tokens before and after the experts, forward and backward;
* pipeline parallelism: activations sent to the next stage and gradients back, and the bubble: ``(p - 1) / v``
  micro-batch times per flush, one flush per accumulation round (Narayanan et al. 2021, s2.2).

Offloading moves bytes over PCIe: ZeRO-Offload sends the gradients to the host and the updated 16-bit weights
back each step and runs Adam on the CPU (Ren et al. 2021, arXiv:2101.06840, s4); parameter offload brings the
weights in for the forward and the backward; activation offload moves the saved activations out during the
forward and back during the backward, on a side stream (torchtune ``training/_activation_offload.py``).

The optimizer step reads and writes every trainable parameter's state at memory speed: AdamW fused (one kernel:
read weight, gradient, m, v; write weight, m, v), foreach (PyTorch's ``_multi_tensor_adamw``: eight foreach ops,
each a pass, ``torch/optim/adamw.py`` in torch 2.x) or for-loop (the same ops per tensor, a launch each).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from engine.layers import expand, runs
from engine.params import active_params, count_params, layer_linears, lora_params, lora_targets
from engine.specs import Checkpointing, GpuSpec, Loss, Method, ModelSpec, Optimizer, Precision, TrainingSetup
from engine.timing.comm import Link, link
from engine.timing.fitted import Fitted, fitted
from engine.timing.hardware import CannotTimeError, GpuPerf, gpu_perf
from engine.timing.kernels import pointwise_seconds
from engine.timing.stacks import DEFAULT_STACK, StackRules, stack_rules
from engine.timing.work import Ctx, Passes, Tally, attention_of, micro_batch, mlp_of, stage_kinds
from engine.training.estimate import estimate, plan_table, tokens_of
from engine.training.plan import Plan, resolve
from engine.training.split import Held, ends_held
from engine.training.terms import offloaded

#: CPU Adam on the host: about 28 bytes per parameter (fp32 weight, gradient, m, v read; weight, m, v written) at
#: a host memory bandwidth of 100 GB/s (one server socket's DDR5, vendor figures): an assumption, not measured here
CPU_ADAM_SECONDS_PER_PARAM = 28 / 100e9
MFU_CONVENTION = ("model FLOPs per token: 6 N (full fine-tuning) or 4 N + 6 N_lora (LoRA, QLoRA: no weight "
                  "gradients of the frozen base) + 12 L H d s (attention, not halved for the causal mask); N: "
                  "the parameters a token passes through but the input embedding (PaLM, Chowdhery et al. 2022, "
                  "appendix B; torchtitan get_num_flop_per_token); over the GPU's dense bf16 (fp16 where it has "
                  "no bf16) datasheet peak")


@dataclass(frozen=True, slots=True)
class TimingOptions:
    """The stack-level settings the timing reads: whose code runs the step and how (issue 25's ``--stack``,
    ``--optimizer-impl``, ``--compile``, ``--float8``), from the setup where it has them."""

    stack: str = DEFAULT_STACK
    optimizer_impl: str | None = None  # None: the stack's default
    compile: bool = False
    float8: bool = False
    async_tp: bool = False
    #: a checkpointing mode the setup's enum lacks (``op-selective``: torchtitan's per-op SAC), None: the setup's
    checkpointing: str | None = None
    #: fused RMSNorm / RoPE / SwiGLU kernels in an eager stack (Liger-Kernel; flash-attn's in Qwen (1)'s code);
    #: on with the fused linear cross-entropy loss, which comes with them (``use_liger_kernel=True``)
    fused_kernels: bool = False

    @staticmethod
    def of(s: TrainingSetup, **override: Any) -> TimingOptions:
        """The setup's (``stack``; ``adamw_impl``: the AdamW implementation asked for, else the stack's, issue 25),
        then ``override``. ``compile`` and ``float8`` are read where the setup has them (issue 25's later flags)."""
        impl = s.adamw_impl
        base = TimingOptions(stack=s.stack.value, optimizer_impl=None if impl is None else impl.value,
                             compile=bool(getattr(s, "compile", False)), float8=bool(getattr(s, "float8", False)))
        return TimingOptions(**{**{f: getattr(base, f) for f in base.__slots__}, **override}) if override else base


@dataclass(frozen=True, slots=True)
class StepTime:
    """One optimizer step on one GPU (module docstring), its breakdown (seconds, summing to ``step_seconds``)
    and the throughput it gives."""

    step_seconds: float
    tokens_per_step: int  # every GPU's tokens of one optimizer step
    tokens_per_second_per_gpu: float
    mfu: float
    model_flops_per_token: float
    breakdown: dict[str, float]
    stack: str
    details: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"step_seconds": self.step_seconds, "tokens_per_second_per_gpu": self.tokens_per_second_per_gpu,
                "mfu": self.mfu, "mfu_convention": MFU_CONVENTION, "model_flops_per_token": self.model_flops_per_token,
                "tokens_per_step": self.tokens_per_step, "stack": self.stack,
                "breakdown": dict(self.breakdown)}


def _dtype(s: TrainingSetup, perf: GpuPerf) -> str:
    p = s.precision
    if p is Precision.FP32:
        return "fp32"
    if p in (Precision.FP16_MIXED, Precision.AMP_FP16):
        return "fp16"
    if "bf16" not in perf.peak:
        raise CannotTimeError(f"cannot time bf16 on {perf.id}: it has no bf16 tensor cores (use fp16-mixed or "
                              "amp-fp16)")
    return "bf16"


def _checkpointing(s: TrainingSetup) -> str:
    c = s.checkpointing
    return c.value if isinstance(c, Checkpointing) else str(c)


def _soft_max(a: float, b: float, p: float) -> float:
    if a <= 0 or b <= 0:
        return max(a, b)
    hi = max(a, b)
    return float(hi * ((a / hi) ** p + (b / hi) ** p) ** (1 / p))


def _cpu_op_seconds(r: StackRules, f: Fitted) -> float:
    return {"eager": f.cpu_op_eager_s, "compiled": f.cpu_op_compiled_s, "megatron": f.cpu_op_megatron_s}[r.cpu]


@dataclass(frozen=True, slots=True)
class _Stage:
    passes: Passes
    gpu: float  # GPU seconds of one micro-batch
    cpu: float  # CPU seconds of one micro-batch
    comm: float  # exposed communication per micro-batch
    comm_volume: float  # all of it, exposed or not
    offload: float  # exposed transfers per micro-batch
    seconds: float  # the micro-batch, all together


def _groups(plan: Plan) -> dict[str, tuple[int, int]]:
    """(span, stride) of each group in Megatron's rank order (``engine.timing.comm``)."""
    lay = plan.layout
    return {"tp": (lay.tp, 1), "cp": (lay.tp * lay.cp, lay.tp), "ep": (lay.tp * lay.ep, lay.tp),
            "dp": (lay.tp * lay.cp * lay.dp, lay.tp * lay.cp), "pp": (lay.tp * lay.cp * lay.dp * lay.pp,
                                                                       lay.tp * lay.cp * lay.dp)}


def _held(plan: Plan, stage: int) -> Held:
    first, last = plan.layout.stages[stage]
    return sum(plan.held[first:last + 1], Held()) + ends_held(plan.model, plan.layout, stage)


def _weight_bytes(plan: Plan) -> float:
    """Bytes per weight as gathered by ZeRO-3 / FSDP (16 bits; 4 bits and constants for QLoRA's base)."""
    if plan.setup.method is Method.QLORA:
        return 0.55
    return float(plan.dtypes.weight if not plan.dtypes.master else 2)


def _collectives(c: Ctx, stage: int, p: Passes, links: dict[str, Link], opts: TimingOptions) -> tuple[float, float]:
    """(exposed, all) seconds of one micro-batch's tensor, context, expert, pipeline and ZeRO-3 collectives."""
    plan, r = c.plan, c.rules
    lay = plan.layout
    kinds = stage_kinds(plan, stage)
    h = c.m.hidden_size
    exposed = volume = 0.0
    if lay.tp > 1:  # two collectives per layer per pass
        passes = 4 + (2 if c.checkpointing == Checkpointing.FULL.value else 0)
        t = links["tp"].all_reduce(c.tokens * h * 2, lay.tp) * passes * len(kinds)
        exposed += (0.4 if opts.async_tp else r.tp_exposed) * t
        volume += t
    if lay.cp > 1:  # forward K, V; backward K, V and dK, dV, behind the attention
        ring = sum(3 * links["cp"].send(2 * c.tokens * max(attention_of(k).num_kv_heads / lay.tp, 1.0)
                                        * attention_of(k).head_dim * 2) * (lay.cp - 1) for k in kinds)
        volume += ring
        exposed += max(0.0, ring - (p.fwd.attention + p.bwd.attention + p.rec.attention))
    moe = [e for k in kinds if (e := mlp_of(k).moe) is not None]
    if lay.ep > 1 and moe:
        t = links["ep"].gather(c.tokens * moe[0].experts_per_token * h * 2, lay.ep) * 4 * len(moe)
        exposed += t
        volume += t
    if lay.pp > 1:
        t = 2 * links["pp"].send(c.tokens * h * 2)
        exposed += t
        volume += t
    if plan.zero == 3 and lay.zero_group > 1:
        held = _held(plan, stage)
        grads = (held.weights if c.full else held.adapters) * plan.trained.grad
        t = (2 * links["dp"].gather(held.weights * _weight_bytes(plan), lay.zero_group)
             + links["dp"].gather(grads, lay.zero_group))
        exposed += max(t / max(1, len(kinds)), t - r.fsdp_overlap * p.total().seconds)
        volume += t
    return exposed, volume


def _transfers(c: Ctx, stage: int, p: Passes) -> float:
    """Exposed PCIe seconds of one micro-batch: parameter offload and activation offload (module docstring)."""
    plan, s = c.plan, c.s
    gpu = p.total().seconds
    offload = 0.0
    if s.offload_params:
        t = 2 * _held(plan, stage).weights * _weight_bytes(plan) / max(1, plan.layout.zero_group) / c.perf.pcie
        offload += max(0.0, t - gpu)
    if s.activation_offload:
        t = float(offloaded(plan_table(plan, stage).context).at(*tokens_of(s))) / c.perf.pcie
        offload += max(0.0, t - p.fwd.seconds) + max(0.0, t - (p.bwd.seconds + p.rec.seconds))
    return offload


def _stage(c: Ctx, stage: int, links: dict[str, Link], opts: TimingOptions) -> _Stage:
    """One micro-batch on one GPU of ``stage``: GPU and CPU seconds, and what communication and offload expose."""
    p = micro_batch(c, stage)
    per_op = c.rules.ops_per_kernel * _cpu_op_seconds(c.rules, c.f)
    # non-reentrant checkpointing's saved-tensor hooks run in Python for every op of the forward and the rerun
    # (torch.utils.checkpoint, _checkpoint_hook / _recomputation_hook), where the stack dispatches from Python
    hook = c.f.cpu_checkpoint_hook_s if c.checkpointing == Checkpointing.FULL.value and c.rules.cpu == "eager" else 0.0
    cpu_fwd = p.fwd.kernels * (per_op + hook)
    cpu_back = p.bwd.kernels * per_op + p.rec.kernels * (per_op + hook)
    back = Tally()
    back += p.bwd
    back += p.rec
    exposed, volume = _collectives(c, stage, p, links, opts)
    offload = _transfers(c, stage, p)
    # the forward, then the backward with what checkpointing reruns inside it: each its own soft maximum, since
    # the launch queue cannot carry a CPU-bound forward's slack into the backward
    seconds = (_soft_max(p.fwd.seconds, cpu_fwd, c.f.overlap_power)
               + _soft_max(back.seconds + exposed + offload, cpu_back, c.f.overlap_power))
    return _Stage(p, p.total().seconds, cpu_fwd + cpu_back, exposed, volume, offload, seconds)


def _tensors(plan: Plan, stage: int) -> int:
    """Parameter tensors the optimizer walks on one GPU of ``stage``."""
    m = plan.model
    kinds = stage_kinds(plan, stage)
    if plan.full:
        per = sum(len(layer_linears(k, m.hidden_size)) * 1.5 + k.norms for k in kinds)
        return int(per) + 3
    lora = plan.setup.lora
    return sum(2 * len(lora_targets(m, k, lora.targets)) for k in kinds)


def _optimizer(plan: Plan, stage: int, c: Ctx, opts: TimingOptions, micro_batches: int) -> tuple[float, float]:
    """(seconds on the GPU, exposed offload seconds) of the optimizer step, clipping and accumulation."""
    s, perf, r, f = plan.setup, c.perf, c.rules, c.f
    held = _held(plan, stage)
    lay = plan.layout
    trainable = held.weights if plan.full else held.adapters
    shard = lay.zero_group if plan.zero >= 1 else 1
    local = trainable / shard
    d = plan.trained
    big = float(d.master or d.weight)
    g, st = float(d.step_grad), float(d.state)
    copy = float(d.weight) if d.master else 0.0
    impl = opts.optimizer_impl or "fused"
    o = s.optimizer
    tensors = _tensors(plan, stage)
    if o in (Optimizer.ADAMW, Optimizer.PAGED_ADAMW):
        per = 2 * big + g + 4 * st + copy if impl == "fused" else 4 * big + 2 * g + 14 * st + copy
    elif o in (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT):
        per, impl = 2 * big + g + 4 + copy, "fused"
    elif o in (Optimizer.LION, Optimizer.SGD_MOMENTUM):
        per = 2 * big + g + 2 * st + copy
    elif o is Optimizer.SGD:
        per = 2 * big + g + copy
    else:  # Adafactor: transformers' per-tensor Python loop over factored row/column statistics
        per, impl = 2 * big + 8 * g + copy, "forloop"
    kernels = {"fused": 2 * math.ceil(tensors / 64), "foreach": 10 * math.ceil(tensors / 64)}.get(
        impl, 10 * tensors)
    clip = r.clip_passes * g * local
    accumulate = 0.0 if r.fused_wgrad_accumulation else 3 * g * trainable * max(0, micro_batches - 1)
    nbytes = per * local + clip + accumulate
    gpu = pointwise_seconds(nbytes, kernels + 2 * math.ceil(tensors / 64), perf, f)
    cpu = kernels * _cpu_op_seconds(r, f)
    seconds = _soft_max(gpu, cpu, f.overlap_power)
    offload = 0.0
    if s.offload_optimizer:
        transfers = (g + 2) * local / perf.pcie
        offload = transfers + local * CPU_ADAM_SECONDS_PER_PARAM
        seconds = pointwise_seconds(clip + accumulate, 4, perf, f)
    return seconds, offload


def _paging(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, perf: GpuPerf) -> float:
    """Seconds a paged optimizer's states (bitsandbytes: CUDA unified memory, ``cudaMallocManaged``) spend moving
    over PCIe each step: the part that does not fit beside everything else on the GPU is paged in for the step
    and out again (bitsandbytes docs, "Paged optimizers": automatic page migration on demand)."""
    if not resolve(m, s).paged_bytes:
        return 0.0
    e = estimate(m, s, gpu)
    free = gpu.usable_bytes - (e.device_bytes - e.paged_bytes)
    excess = max(0.0, float(e.paged_bytes) - max(0.0, float(free)))
    return 2 * excess / perf.pcie


def _data_parallel(plan: Plan, stage: int, links: dict[str, Link], r: StackRules, last_bwd: float) -> float:
    """Exposed seconds of the step's data-parallel gradient (and ZeRO-1/2 weight) traffic."""
    lay = plan.layout
    g = lay.zero_group
    if g <= 1 or plan.zero == 3:
        return 0.0
    held = _held(plan, stage)
    grads = (held.weights if plan.full else held.adapters) * plan.trained.grad
    dp = links["dp"]
    if plan.zero == 0:
        t = dp.all_reduce(grads, g)
        return max(t - r.dp_overlap * last_bwd, t * min(1.0, 25e6 / max(grads, 1.0)))
    reduce = dp.gather(grads, g)
    gather = dp.gather((held.weights if plan.full else held.adapters) * 2, g)
    hidden = max(reduce - r.dp_overlap * last_bwd, reduce * min(1.0, 25e6 / max(grads, 1.0)))
    return hidden + gather * (1 - r.dp_overlap if r.name == "megatron" else 1.0)


def model_flops_per_token(m: ModelSpec, s: TrainingSetup) -> float:
    """The MFU convention's FLOPs per token (``MFU_CONVENTION``)."""
    pc = count_params(m)
    n = active_params(m) - pc.embedding + (m.vocab_size * m.hidden_size if m.tie_embeddings else 0)
    attn = 0.0
    for kind in expand(runs(m)):
        a = kind.attention
        if a is None:  # issue 27's mixer layers: their own FLOPs are not in this convention (not timed)
            continue
        d = (a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim + a.mla.v_head_dim) / 2 if a.mla else a.head_dim
        attn += 12 * a.num_heads * d * s.seq_len
    if s.method is Method.FULL:
        return 6 * n + attn
    return 4 * n + 6 * lora_params(m, s.lora.rank, s.lora.targets) + attn


def step_time(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, options: TimingOptions | None = None,
              constants: Fitted | None = None) -> StepTime:
    """One optimizer step of ``m`` under ``s`` on GPUs of type ``gpu`` (module docstring); ``CannotTimeError``
    names a case the model cannot time. ``constants``: the fitted constants to use (the fit tool's trials)."""
    opts = options or TimingOptions.of(s)
    perf = gpu_perf(gpu)
    f = constants or fitted()
    r = stack_rules(opts.stack, opts.compile, opts.fused_kernels or s.loss is Loss.FUSED_LINEAR_CE)
    plan = resolve(m, s)
    dtype = _dtype(s, perf)
    ckpt = opts.checkpointing or _checkpointing(s)
    lay = plan.layout
    c = Ctx(m=m, s=s, plan=plan, rules=r, perf=perf, f=f, tokens=s.micro_batch_tokens, dtype=dtype,
            linear_dtype="fp8" if opts.float8 else dtype, checkpointing=ckpt)
    links = {k: link(perf, s, span, stride, f.link_efficiency) for k, (span, stride) in _groups(plan).items()}
    stages = [_stage(c, i, links, opts) for i in plan.stages]
    slow = max(range(len(stages)), key=lambda i: stages[i].seconds)
    st = stages[slow]
    rounds = s.grad_accum
    mbs = lay.micro_batches * rounds
    pipe = st.seconds * mbs
    bubble = st.seconds * (lay.pp - 1) / lay.virtual_stages * rounds if lay.pp > 1 else 0.0
    opt, opt_offload = _optimizer(plan, slow, c, opts, mbs)
    opt_offload += _paging(m, s, gpu, perf)
    dp = _data_parallel(plan, slow, links, r, st.passes.bwd.seconds + st.passes.rec.seconds)
    step = pipe + bubble + opt + opt_offload + dp + f.step_fixed_s
    t: Tally = st.passes.total()
    compute = t.compute * mbs
    pointwise = t.pointwise * mbs + opt
    comm = st.comm * mbs + dp
    offload = st.offload * mbs + opt_offload
    overhead = step - compute - pointwise - comm - bubble - offload
    tokens = s.batch * s.seq_len * mbs * lay.dp
    per_gpu = tokens / step / s.gpus
    flops = model_flops_per_token(m, s)
    peak = perf.peak.get("bf16", perf.peak.get("fp16", 0.0))
    breakdown = {"compute": compute, "memory_bound": pointwise, "communication_exposed": comm, "bubble": bubble,
                 "offload": offload, "overhead": overhead}
    details = {"gpu_seconds_per_micro_batch": st.gpu, "cpu_seconds_per_micro_batch": st.cpu,
               "micro_batches": float(mbs), "kernels_per_micro_batch": t.kernels, "flops_per_micro_batch": t.flops,
               "communication_volume_seconds": st.comm_volume * mbs}
    return StepTime(step_seconds=step, tokens_per_step=tokens, tokens_per_second_per_gpu=per_gpu,
                    mfu=per_gpu * flops / peak if peak else 0.0, model_flops_per_token=flops, breakdown=breakdown,
                    stack=r.name, details=details)
