"""The training plan: everything one model and setup decide about a step, resolved once.

An estimate, a timeline or a planner's screening asks :func:`resolve` for the plan of its model and setup and
builds every term from it (``engine.training.context``: one builder for a GPU of any pipeline stage; data
parallelism is a one-stage layout). The plan holds:

* the dtypes (``engine.training.precision``): the regime's as the stack's own code changes them (its dtype policy,
  ``engine.training.policy``: PEFT's fp32 preparation of a QLoRA model under hf-trainer, autocast's copies of the
  adapters), and those of what trains (LoRA adapters stay fp32);
* what is trained and the ZeRO stage;
* the layout (``engine.training.layout``), always: without tensor, pipeline, context or expert parallelism it is
  one stage of every layer over ``gpus`` data-parallel ranks;
* the counts (``engine.training.states.counts``) and the layer kinds, bottom first;
* the sliding windows the sequence reaches and the activation coefficients of every layer, the head and the loss
  (``engine.training.activations``), as one GPU without tensor parallelism counts them and, with tensor
  parallelism alone, as one tensor-parallel rank does (``engine.training.split.tp_view``);
* what one GPU holds of each layer (``engine.training.split``);
* the whole model's states before any sharding: its weights as stored, its optimizer states and what offloading
  moves to host RAM (ZeRO-Offload, Ren et al. 2021, arXiv:2101.06840, s4), which ``engine.training.host`` reads;
* the stack's rules (``engine.training.stacks``): its dtypes, how its model computes a layer (``impl``),
  torchtitan's FSDP2 units (``fsdp``) and per-block buffers (``layer_buffers``), Megatron-LM's gradient buffers
  held from the start (``grads_preallocated``); a setup the stack cannot run is refused there.

A plan is independent of the batch and of the sequence length (but for the windows it reaches), so it is cached
on everything else; ``plan.setup`` is the first setup resolved with that key: read no batch or length from it.
The cost tables built from a plan (``engine.training.estimate``) are cached on the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.layers import expand, runs
from engine.params import count_params
from engine.specs import PARTIAL_METHODS, LayerSpec, Loss, Method, ModelSpec, OffloadDevice, Sharding, TrainingSetup
from engine.training import refusals
from engine.training.activations import ActivationCoeffs, model_coeffs, windows_reached
from engine.training.layout import Layout, layout
from engine.training.partial import step_temporaries as partial_step
from engine.training.partial import trained_layers
from engine.training.policy import StackPolicy, replicated, stack_policy
from engine.training.precision import FP32, DtypePlan
from engine.training.split import Held, Split, kind_held, tp_view
from engine.training.stacks import (
    HF_LAYERS,
    FsdpPlan,
    LayerImpl,
    check,
    fsdp_plan,
    grads_preallocated,
    layer_buffers,
    layer_impl,
    model_buffers,
)
from engine.training.states import (
    PAGED,
    Counts,
    adapter_params,
    bnb_state_bytes,
    counts,
    optimizer_state_bytes,
    per_tensor_bytes,
    weight_parts,
)

ZERO_STAGE = {Sharding.NONE: 0, Sharding.ZERO1: 1, Sharding.ZERO2: 2, Sharding.ZERO3: 3}


@dataclass(frozen=True, eq=False)
class Plan:
    """One model and setup, resolved (module docstring)."""

    model: ModelSpec
    setup: TrainingSetup
    policy: StackPolicy  # the stack's dtype policy: ``dtypes`` and ``trained`` come from it, with its sources
    dtypes: DtypePlan  # the precision regime's, as the stack changes it (``policy.dtypes``)
    trained: DtypePlan  # the trainable tensors': the regime's for full fine-tuning, fp32 adapters for LoRA
    zero: int  # the ZeRO stage: 0 (none) to 3
    layout: Layout
    layout_active: bool  # tensor, pipeline, context or expert parallelism, or pipeline micro-batching, asked for
    counts: Counts  # the whole model's
    kinds: tuple[LayerSpec, ...]  # every decoder layer's kind, bottom first
    windows: tuple[int, ...]  # the sliding windows the sequence reaches (SDPA)
    coeffs: ActivationCoeffs  # the whole model's, on one GPU without tensor parallelism
    view: ActivationCoeffs  # as one tensor-parallel rank computes them (``coeffs`` without TP, or with SP)
    held: tuple[Held, ...]  # what one GPU of the layout holds of each decoder layer, bottom first
    weights_full: int  # the whole model's weights as stored, before any ZeRO divisor or offload
    optimizer_bytes: int  # the whole model's optimizer states and master copy
    host_total: int  # what offloading moves to host RAM, for the whole model (unsharded; NVMe: engine.training.nvme)
    #: of ``optimizer_bytes``, what lives in CUDA unified memory (bitsandbytes' paged optimizers page the state
    #: buffers of their large tensors: ``engine.training.states.bnb_state_bytes``), whole model, unsharded
    paged_bytes: int
    #: what the optimizer's step() allocates on top, for the whole model's states (engine.training.optimizers)
    step_temporaries: int = 0
    impl: LayerImpl = HF_LAYERS  # how the stack's model computes a layer (engine.training.stacks)
    fsdp: FsdpPlan | None = None  # torchtitan's FSDP2 units (engine.training.fsdp2), when it shards
    layer_buffers: int = 0  # bytes each decoder layer holds besides its parameters (torchtitan's RoPE caches)
    model_buffers: int = 0  # bytes the model holds once besides its parameters (torchtune's RoPE cache)
    grads_preallocated: bool = False  # the gradients are held whole from the first forward (Megatron-LM)
    tables: dict[tuple[int, bool], Any] = field(default_factory=dict, repr=False)  # cost tables, by (stage, fine)

    @property
    def full(self) -> bool:
        return self.setup.method is Method.FULL

    @property
    def paged(self) -> bool:
        """Some optimizer states live in CUDA unified memory (a paged optimizer's large tensors)."""
        return self.paged_bytes > 0

    @property
    def stages(self) -> range:
        return range(self.layout.pp)

    def weights_per_gpu(self) -> dict[str, int]:
        """:func:`engine.training.states.weight_parts` as each data-parallel GPU holds them (ZeRO-3 shards them
        over every GPU but what no sharding sees, ``engine.training.policy.replicated``; parameter offload moves
        them out)."""
        s = self.setup
        parts = weight_parts(s, self.counts, self.dtypes, self.trained.weight)  # an 8-bit base: "quantized_8bit"
        if s.offload_params:
            return dict.fromkeys(parts, 0)
        div = s.gpus if s.sharding is Sharding.ZERO3 else 1
        whole = replicated(s)  # what no sharding sees (engine.training.policy.replicated)
        return {k: v if k in whole else -(-v // div) for k, v in parts.items()}


_PLANS: dict[tuple[object, ...], Plan] = {}

#: the setup fields a plan depends on: all but batch and sequence length (and the windows the length reaches)
_KEY_FIELDS = tuple(f for f in TrainingSetup.model_fields if f not in ("batch", "seq_len"))


def _key(m: ModelSpec, s: TrainingSetup) -> tuple[object, ...]:
    # torchtitan's chunked loss copies its chunks only when the batch holds more than one sequence
    several = s.batch > 1 if s.loss is Loss.CHUNKED_BACKWARD else None
    return (m, windows_reached(m, s), several, *(getattr(s, f) for f in _KEY_FIELDS))


def resolve(m: ModelSpec, s: TrainingSetup) -> Plan:
    """The plan of ``m`` under ``s`` (cached; module docstring). A layout the model cannot take raises
    ``engine.training.layout.LayoutError`` naming the rule it breaks, whatever the cache holds."""
    lay = layout(m, s)  # checked at every call: the rules read the sequence length (context parallelism)
    refusals.check(m, s)
    check(m, s)  # what the stack cannot run, refused by name (engine.training.stacks)
    key = _key(m, s)
    hit = _PLANS.get(key)
    if hit is None:
        if len(_PLANS) > 1024:
            _PLANS.clear()
        hit = _PLANS[key] = _build(m, s, lay)
    return hit


def weights_per_gpu(m: ModelSpec, s: TrainingSetup) -> dict[str, int]:
    """:meth:`Plan.weights_per_gpu` of the plan of ``m`` and ``s`` (the estimate's ``weights_breakdown``)."""
    return resolve(m, s).weights_per_gpu()


def clear_cache() -> None:
    """Forget every plan and its cost tables (after a term was added or changed at run time, as a test does)."""
    _PLANS.clear()


def _build(m: ModelSpec, s: TrainingSetup, lay: Layout) -> Plan:
    policy = stack_policy(s)  # the one derivation of the dtypes of an estimate
    dtypes, trained = policy.dtypes, policy.trained
    impl = layer_impl(s)
    full = s.method is Method.FULL
    partial = s.method in PARTIAL_METHODS  # freeze tuning, BAdam: engine.training.partial
    windows = windows_reached(m, s)
    coeffs = model_coeffs(m, s, dtypes, windows, impl)
    split_view = not lay.sequence_parallel and (lay.tp > 1 or lay.etp > 1)
    view = model_coeffs(tp_view(m, lay), s, dtypes, windows, impl) if split_view else coeffs
    kinds = tuple(expand(runs(m)))
    lora = None if full or partial else s.lora
    sp = Split.of(lay)
    held = tuple(kind_held(m, lora, sp, k, s.dora, oft_block=s.oft_block_size if s.method is Method.OFT else 0)
                 for k in kinds)
    if partial:  # a trained layer's parameters are its "adapters": what gets gradients and states
        held = tuple(Held(h.dense, h.expert, h.dense if t else 0.0, h.expert if t else 0.0)
                     for h, t in zip(held, trained_layers(m, s), strict=True))
    c = counts(m, s)
    weights_full = sum(weight_parts(s, c, dtypes, trained.weight).values())
    whole = count_params(m).total if full else c.trainable if partial else adapter_params(m, s)
    copies = c.copies  # modules_to_save: trained in the regime's dtypes, beside the fp32 adapters
    optimizer = optimizer_state_bytes(m, s, whole, trained) + (optimizer_state_bytes(m, s, copies, dtypes)
                                                                if copies else 0)
    cpu_params = s.offload_params and s.offload_params_device is OffloadDevice.CPU  # NVMe: engine.training.nvme
    cpu_optimizer = s.offload_optimizer and s.offload_optimizer_device is OffloadDevice.CPU
    host = (weights_full if cpu_params else 0) + (optimizer + c.trainable * FP32 if cpu_optimizer else 0)
    paged = bnb_state_bytes(m, s)[1] if s.optimizer in PAGED and not s.offload_optimizer else 0
    fsdp = fsdp_plan(s)
    zero = 3 if fsdp is not None else ZERO_STAGE[s.sharding]  # FSDP2 shards parameters at rest whatever it gathers
    return Plan(model=m, setup=s, policy=policy, dtypes=dtypes, trained=trained, zero=zero,
                layout=lay, layout_active=s.layout_active, counts=c, kinds=kinds, windows=windows, coeffs=coeffs,
                view=view, held=held, weights_full=weights_full, optimizer_bytes=optimizer, host_total=host,
                paged_bytes=paged,
                step_temporaries=per_tensor_bytes(m, s, trained).step_temporaries + partial_step(m, s, dtypes),
                impl=impl, fsdp=fsdp, layer_buffers=layer_buffers(m, s), model_buffers=model_buffers(m, s),
                grads_preallocated=grads_preallocated(s))
