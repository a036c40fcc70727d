"""The step context: what every term of one GPU of one pipeline stage needs, built by one rule from the plan.

``engine.training.plan`` resolves a model and setup once; :func:`stage_context` builds the context of a GPU of
any stage from it (data parallelism is a one-stage layout, so every estimate is built here): this GPU's model
states (:func:`gpu_states`, the one states rule), its gradients by where backward makes them (:func:`gradients`,
the one gradients rule), its activation coefficients and parallel buffers (``engine.training.stage``), its data
parallelism's buffers (``engine.training.sharding``), and the per-layer sums every term reads.

Sources, one per rule:

* 16 bytes per parameter for mixed-precision AdamW and the ZeRO stages dividing optimizer states (1), gradients
  (2) and weights (3) by the data-parallel GPUs: Rajbhandari et al. 2020, "ZeRO", arXiv:1910.02054, s3.1 and s5;
  the bytes per parameter of each method and optimizer: ``engine.training.states``.
* ZeRO over the data- and context-parallel ranks, experts over the expert data-parallel ranks (Megatron-Core's
  distributed optimizer; ``engine.training.layout``).
* ZeRO-Offload moves the fp32 master weights, the optimizer states and fp32 gradients to host RAM (Ren et al. 2021,
  arXiv:2101.06840, s4); parameter offload the weights (ZeRO-Infinity, Rajbhandari et al. 2021, arXiv:2104.07857).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import accumulate

from engine.params import count_params, norm_params
from engine.specs import Checkpointing, ModelSpec, OffloadDevice, SavedModule, TrainingSetup
from engine.training import fsdp2, sharding
from engine.training.activations import ActivationCoeffs, LayerCoeffs
from engine.training.moments import ZERO, Cost
from engine.training.plan import Plan, resolve
from engine.training.policy import replicated
from engine.training.precision import FP32
from engine.training.split import Held, ends_held
from engine.training.stage import parallel_buffers, stage_coeffs
from engine.training.states import Counts, ModelStates, weight_parts, weights_formula


@dataclass(frozen=True, slots=True)
class Gradients:
    """Gradient bytes per GPU by where backward creates them: the head first, then layers top-down (the
    embedding's own gradient, made last, is the head's when the two are tied on one stage)."""

    head: int
    per_layer: tuple[int, ...]  # bottom layer first
    tied: int  # the shared embedding / output weight's gradient, made last (full fine-tuning, tied)


@dataclass(frozen=True, slots=True)
class StepContext:
    """What every term of one GPU of one stage needs, independent of batch and sequence length."""

    plan: Plan
    st: ModelStates
    ac: ActivationCoeffs
    grads: Gradients
    buffers: dict[str, float]  # phase -> sharding buffers
    layers: tuple[LayerCoeffs, ...]  # one per decoder layer of the stage, bottom first
    run_bounds: tuple[tuple[int, int], ...]  # (first, last) layer of each run of identical layers, bottom first
    checkpointed: bool
    offloaded: bool  # saved activations go to host RAM as they are saved (TrainingSetup.activation_offload)
    kept_sums: tuple[Cost, ...]  # what layers 0..i keep, for each i
    copy_sums: tuple[int, ...]  # autocast's 16-bit weight copies of layers 0..i, for each i
    grad_sums: tuple[int, ...]  # gradients of layers 0..i, for each i
    #: pipeline parallelism: micro-batches' worth of this stage's activations held at once
    in_flight: float = 1.0
    #: tensor / pipeline / context / expert parallelism's communication buffers, per token, while the step's
    #: forward and backward run (nothing without a layout); with their formula
    parallel_buffers: Cost | None = None
    parallel_formula: str = ""
    stage: int | None = None  # the pipeline stage this context is (None: no layout asked for)
    stage_layers: tuple[int, int] = (0, 0)  # the first and last decoder layer it holds
    #: torchtitan's FSDP2 units on this GPU (engine.training.fsdp2): its sharding buffers, moment by moment
    units: fsdp2.Units | None = None

    @property
    def m(self) -> ModelSpec:
        return self.plan.model

    @property
    def s(self) -> TrainingSetup:
        return self.plan.setup

    def kept_through(self, layer: int) -> Cost:
        """Everything layers 0..``layer`` keep between their forward and their backward (nothing for -1)."""
        return self.kept_sums[layer] if layer >= 0 else ZERO

    def copies_through(self, layer: int) -> int:
        """Autocast's 16-bit weight copies of layers 0..``layer`` (nothing for -1)."""
        return self.copy_sums[layer] if layer >= 0 else 0

    def kept_by(self, layer: int) -> Cost:
        """What layer ``layer`` alone keeps between its forward and its backward."""
        return _kept(self.layers[layer], self.checkpointed)

    def grads_above(self, layer: int) -> int:
        """Gradients made before layer ``layer``'s backward runs: the head's and the layers above's."""
        return self.grads.head + self.grad_sums[-1] - self.grad_sums[layer]


def saved_cost(lc: LayerCoeffs) -> Cost:
    """What one layer saves for its backward: per token, per b*s^2, and in bytes (PEFT's merged expert weights)."""
    return Cost(float(lc.saved_fixed), lc.saved, lc.saved_bs2)


def _kept(lc: LayerCoeffs, checkpointed: bool) -> Cost:
    """What one layer keeps between its forward and its backward (only its input when checkpointed)."""
    return Cost(0.0, lc.checkpoint) if checkpointed else saved_cost(lc)


def _runs(ac: ActivationCoeffs) -> tuple[tuple[LayerCoeffs, ...], tuple[tuple[int, int], ...]]:
    """Every layer's coefficients (bottom first) and the (first, last) layer of each run of identical ones."""
    bounds: list[tuple[int, int]] = []
    first = 0
    for n, _ in ac.segments:
        bounds.append((first, first + n - 1))
        first += n
    return ac.per_layer, tuple(bounds)


def ceil_share(total: float, n: int) -> int:
    """``total`` bytes over ``n`` GPUs, rounded up (exact for whole numbers)."""
    if float(total).is_integer():
        return -(-int(total) // n)
    return math.ceil(total / n)


def _counts(plan: Plan, held: Held) -> Counts:
    """Parameter counts on one GPU: the whole model's (QLoRA's quantized base too) when every GPU holds all of it,
    else the stage's share."""
    lay = plan.layout
    if lay.tp == lay.pp == lay.ep == 1:
        return plan.counts
    if plan.full:
        return Counts(round(held.weights), round(held.weights), 0, 0)
    return Counts(round(held.weights + held.adapters), round(held.adapters), round(held.weights), 0)


def gpu_states(plan: Plan, held: Held, layers: int = 0) -> ModelStates:
    """Weights, gradients and optimizer states on one GPU holding ``held`` (module docstring: ZeRO over dp x cp,
    experts over the expert data-parallel ranks; the bytes per parameter: ``engine.training.states``), and the
    buffers its ``layers`` decoder layers and the model hold besides, replicated (``Plan.layer_buffers``,
    ``Plan.model_buffers``: torchtitan's per-block RoPE caches, torchtune's one), counted with the weights."""
    s, lay, zero = plan.setup, plan.layout, plan.zero
    c = _counts(plan, held)
    expert_share = (held.expert / held.weights if plan.full else held.expert_adapters / max(held.adapters, 1.0)
                    ) if held.weights else 0.0
    weights_share = held.expert / held.weights if held.weights else 0.0

    def sharded(total: float, share: float, from_stage: int) -> int:
        if zero < from_stage:
            return math.ceil(total)
        if share == 0.0 or lay.zero_group == lay.expert_dp:
            return ceil_share(total, lay.zero_group)
        return math.ceil(total * (1 - share) / lay.zero_group + total * share / lay.expert_dp)

    whole = plan.counts.trainable
    states_total = plan.optimizer_bytes if c.trainable == whole else plan.optimizer_bytes * (c.trainable / max(
        whole, 1))  # exact when this GPU trains the whole model
    parts = weight_parts(s, c, plan.dtypes, plan.trained.weight)
    weights_full = plan.weights_full if c is plan.counts else sum(parts.values())
    unsharded = sum(v for k, v in parts.items() if k in replicated(s))  # what no sharding sees (QLoRA's constants)
    weights = sharded(weights_full - unsharded, weights_share, 3) + unsharded
    states = sharded(states_total, expert_share, 1)
    # of which in unified memory (a paged optimizer's large tensors), shared as the states are
    paged = sharded(plan.paged_bytes * (states_total / plan.optimizer_bytes), expert_share, 1) if plan.paged_bytes \
        else 0
    buffers = plan.layer_buffers * layers + plan.model_buffers  # not parameters: not sharded, not offloaded
    host = 0
    step_temps = plan.step_temporaries if c.trainable == whole else plan.step_temporaries * c.trainable / whole
    temporaries = sharded(step_temps, expert_share, 1)  # the foreach RMSprop's: states-sized, sharded with them
    on_host = {OffloadDevice.CPU: 1, OffloadDevice.NVME: 0}  # NVMe: to disk (engine.training.nvme)
    if s.offload_params:
        host, weights = host + weights * on_host[s.offload_params_device], 0
    if s.offload_optimizer:  # the step runs on the host
        moved = states + sharded(c.trainable * FP32, expert_share, 1)
        host, states, temporaries = host + moved * on_host[s.offload_optimizer_device], 0, 0
    if plan.layout_active:
        detail = f"{c.total - (0 if plan.full else c.trainable):,} params on this GPU" + (
            "" if plan.full else f" + {c.trainable:,} adapter params (fp32)")
    else:
        detail = weights_formula(s, c, plan.dtypes, plan.trained.weight)
    if plan.layer_buffers:
        detail += f" + {layers} x {plan.layer_buffers:,} B RoPE caches (torchtitan: one per block, replicated)"
    if plan.model_buffers:
        detail += f" + {plan.model_buffers:,} B RoPE cache (torchtune: fp32 cos and sin)"
    divisor = lay.zero_group
    grads = (c.trainable - c.copies) * plan.trained.grad + c.copies * plan.dtypes.grad  # copies: modules_to_save
    step_grads = (c.trainable - c.copies) * plan.trained.step_grad + c.copies * plan.dtypes.step_grad
    return ModelStates(
        weights=weights + buffers, gradients=sharded(grads, expert_share, 2),
        step_gradients=sharded(step_grads, expert_share, 2),
        optimizer_states=states - paged, paged_states=paged, host=host,
        weights_full=weights_full, counts=c, weight_detail=detail,
        divisor_weights=divisor if zero >= 3 else 1, divisor_grads=divisor if zero >= 2 else 1,
        divisor_states=divisor if zero >= 1 else 1, step_temporaries=temporaries,
    )


def gradients(plan: Plan, stage: int, st: ModelStates) -> Gradients:
    """Gradient bytes per GPU by where backward creates them: the output layer's and the final norm's first on
    the last stage (the embedding's too when they are tied on one stage, then counted again at the end, as the
    embedding's own gradient is added to it), then each layer's, from the top down. LoRA trains the adapters only
    (Hu et al. 2021, arXiv:2106.09685, s4.1); ZeRO-2 partitions gradients (Rajbhandari et al. 2020, s5)."""
    m, lay = plan.model, plan.layout
    first, last = lay.stages[stage]
    per_byte, div = plan.trained.grad, st.divisor_grads

    def grads(params: float) -> int:
        return ceil_share(params * per_byte, div)

    per_layer = tuple(grads(h.weights if plan.full else h.adapters) for h in plan.held[first : last + 1])
    if not plan.full:  # a trained copy of the output layer (modules_to_save) gets its gradient first
        head = m.vocab_size * m.hidden_size * plan.dtypes.grad if SavedModule.LM_HEAD in plan.setup.modules_to_save \
            else 0
        return Gradients(ceil_share(head, div), per_layer, 0)
    table = m.vocab_size * m.hidden_size / lay.tp  # vocab-parallel
    embedding = table + count_params(m).embedding - m.vocab_size * m.hidden_size  # learned positions: whole
    shared = m.tie_embeddings and lay.pp == 1
    bias = m.vocab_size if m.lm_head_bias else 0  # GPT-J's / Phi's output bias
    head = grads(norm_params(m) + bias + (embedding if shared else table)) if stage == lay.pp - 1 else 0
    tied = math.ceil(embedding) * per_byte // div if shared else 0
    return Gradients(head=head, per_layer=per_layer, tied=tied)


def stage_context(plan: Plan, stage: int) -> StepContext:
    """The step context of one GPU of pipeline stage ``stage`` (module docstring)."""
    lay = plan.layout
    first, last = lay.stages[stage]
    layers = plan.held[first : last + 1]
    ends = ends_held(plan.model, lay, stage)
    st = gpu_states(plan, sum(layers, Held()) + ends, len(layers))
    ac = stage_coeffs(plan, stage)
    grads = gradients(plan, stage, st)
    buffers = sharding.buffers(plan, st, max(h.weights for h in layers), ends.weights)
    pb, formula = parallel_buffers(plan, stage) if plan.layout_active else (None, "")
    per_layer, bounds = _runs(ac)
    # every layer checkpointed whole (with checkpoint_every > 1 the layers that are carry it in their coefficients)
    gc = plan.setup.checkpointing is Checkpointing.FULL and plan.setup.checkpoint_every == 1
    return StepContext(
        plan=plan, st=st, ac=ac, grads=grads, buffers=buffers, layers=per_layer, run_bounds=bounds, checkpointed=gc,
        offloaded=plan.setup.activation_offload,
        kept_sums=tuple(accumulate((_kept(lc, gc) for lc in per_layer), lambda a, b: a + b)),
        copy_sums=tuple(accumulate(lc.weight_copies for lc in per_layer)),
        grad_sums=tuple(accumulate(grads.per_layer)),
        in_flight=lay.in_flight(stage), parallel_buffers=pb, parallel_formula=formula,
        stage=stage if plan.layout_active else None, stage_layers=(first, last), units=fsdp2.units(plan, stage),
    )


def model_states(m: ModelSpec, s: TrainingSetup, stage: int = 0) -> ModelStates:
    """The model states of one GPU of ``stage`` (:func:`gpu_states` on the plan of ``m`` and ``s``): a thin
    wrapper the tests use; the estimate reads them from its contexts."""
    plan = resolve(m, s)
    first, last = plan.layout.stages[stage]
    return gpu_states(plan, sum(plan.held[first : last + 1], Held()) + ends_held(m, plan.layout, stage),
                      last - first + 1)
