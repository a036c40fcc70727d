"""One pipeline stage of a parallel layout, as one of its GPUs holds it: the step context its terms are counted on.

What a GPU of stage i holds (Megatron-LM's layout: Shoeybi et al. 2019, arXiv:1909.08053, s3; Korthikanti et al.
2022, arXiv:2205.05198; Megatron-LM ``megatron/training/theoretical_memory_usage.py``):

* **weights**: the stage's layers. Tensor parallelism splits the attention and MLP linears t ways: q, k, v, gate
  and up by their output ("column parallel", their biases too), o and down by their input ("row parallel", their
  biases whole); norms, MoE routers and MLA's down-projections are replicated. Expert parallelism spreads the
  routed experts over ep GPUs and each expert over etp. The first stage holds the vocab-parallel embedding
  (V/t rows), the last the output layer (V/t) and the final norm; with tied embeddings and p > 1 the last stage
  keeps its own copy of the embedding for the output layer (Megatron-LM ``LanguageModule``
  ``setup_embeddings_and_output_layer``).
* **gradients and optimizer states**: of what it trains, sharded as the ZeRO stage says over the data- and
  context-parallel ranks (experts over the expert data-parallel ranks).
* **activations** (Korthikanti et al. 2022, Table 2): with TP and no sequence parallelism the attention and MLP
  internals are split t ways but the norms' inputs and the linears' (replicated) inputs are whole; with sequence
  parallelism everything is split t ways; context parallelism splits the sequence c ways. The engine's own
  tensor-by-tensor coefficients are rescaled accordingly: TP alone counts the layer with heads / t and MLP widths
  / t; TP + SP divides the whole layer by t; CP divides by c. Only the last stage computes the (vocab-parallel)
  logits and the loss. Pipeline stages keep several micro-batches' activations (``engine.training.layout``).
* **parallel buffers**: what the layout's communication keeps in flight (``parallel_buffers``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from engine.layers import expand, runs
from engine.params import (
    Linear,
    attention_norm_params,
    count_params,
    layer_linears,
    lora_params,
    lora_targets,
    norm_params,
)
from engine.specs import LayerRun, LayerSpec, LoraSpec, Method, ModelSpec, Sharding, TrainingSetup
from engine.training import sharding
from engine.training.activations import ActivationCoeffs, LayerCoeffs, activation_coeffs
from engine.training.layout import Layout
from engine.training.moments import Cost, Gradients, StepContext, assemble
from engine.training.precision import ADAPTER_PLAN, FP32, dtype_plan
from engine.training.states import PAGED, Counts, ModelStates, counts, optimizer_state_bytes, weight_parts

COLUMN = frozenset({"q", "k", "v", "qkv", "q_b", "kv_b", "gate", "up", "gate_up", "shared_gate", "shared_up",
                    "shared_gate_up", "experts_gate", "experts_up", "experts_gate_up"})
ROW = frozenset({"o", "down", "shared_down", "experts_down"})


@dataclass(frozen=True, slots=True)
class Held:
    """Parameters one GPU holds, split by how they are sharded: dense (over dp x cp) and experts (over the
    expert data-parallel ranks); each both as weights and as LoRA adapters."""

    dense: float = 0.0
    expert: float = 0.0
    dense_adapters: float = 0.0
    expert_adapters: float = 0.0

    def __add__(self, o: Held) -> Held:
        return Held(self.dense + o.dense, self.expert + o.expert, self.dense_adapters + o.dense_adapters,
                    self.expert_adapters + o.expert_adapters)

    @property
    def weights(self) -> float:
        return self.dense + self.expert


@dataclass(frozen=True, slots=True)
class _Split:
    """How a layer's linears are split: tensor, expert and expert-tensor parallel sizes."""

    tp: int
    ep: int
    etp: int


def _is_expert(x: Linear) -> bool:
    return x.role.startswith("experts_")


@lru_cache(maxsize=4_096)
def layer_at(m: ModelSpec, layer: int) -> LayerSpec:
    """The kind of decoder layer ``layer`` (counting from 0)."""
    return _layers(m)[layer]


@lru_cache(maxsize=256)
def _layers(m: ModelSpec) -> tuple[LayerSpec, ...]:
    return tuple(expand(runs(m)))


def _linear(x: Linear, lay: Layout | _Split) -> tuple[float, bool]:
    """(parameters on one GPU, whether they are expert parameters) of one linear (module docstring)."""
    weight, bias = x.n_in * x.n_out, (x.n_out if x.bias else 0)
    if _is_expert(x):
        split_bias = bias / lay.etp if x.role in COLUMN else bias
        return x.count / lay.ep * (weight / lay.etp + split_bias), True
    if x.role in COLUMN:
        return x.count * (weight + bias) / lay.tp, False
    if x.role in ROW:
        return x.count * (weight / lay.tp + bias), False
    return float(x.params), False


def _adapter(x: Linear, lay: Layout | _Split, rank: int) -> tuple[float, bool]:
    """LoRA's A (r x n_in) and B (n_out x r) on one GPU: split along the dimension the base linear splits
    (B for a column-parallel linear, A for a row-parallel one), whole for a replicated one (Megatron-Bridge /
    NeMo ``ParallelLinearAdapter``)."""
    expert = _is_expert(x)
    split = lay.etp if expert else lay.tp
    copies = x.count / lay.ep if expert else x.count
    r = rank * x.rank_mult
    if x.role in COLUMN:
        return copies * r * (x.n_in + x.n_out / split), expert
    if x.role in ROW:
        return copies * r * (x.n_in / split + x.n_out), expert
    return copies * r * (x.n_in + x.n_out), expert


def layer_held(m: ModelSpec, s: TrainingSetup, lay: Layout, layer: int) -> Held:
    """What one GPU holds of decoder layer ``layer`` (cached: a planner asks for the same layers often)."""
    lora = s.lora if s.method is not Method.FULL else None
    return _layer_held(m, lora, _Split(lay.tp, lay.ep, lay.etp), layer)


@lru_cache(maxsize=65_536)
def _layer_held(m: ModelSpec, lora: LoraSpec | None, lay: _Split, layer: int) -> Held:
    dense = expert = 0.0
    kind = layer_at(m, layer)
    for x in layer_linears(kind, m.hidden_size):
        n, is_expert = _linear(x, lay)
        dense, expert = (dense, expert + n) if is_expert else (dense + n, expert)
    norms = kind.norms * norm_params(m) + attention_norm_params(kind.attention)
    adapters = [0.0, 0.0]
    if lora is not None:
        for x in lora_targets(m, kind, lora.targets):
            n, is_expert = _adapter(x, lay, lora.rank)
            adapters[is_expert] += n
    return Held(dense + norms, expert, adapters[0], adapters[1])


def ends_held(m: ModelSpec, lay: Layout, stage: int) -> Held:
    """The embedding (first stage), the final norm and the output layer (last stage), on one GPU."""
    pc = count_params(m)
    table = m.vocab_size * m.hidden_size / lay.tp
    held = 0.0
    if stage == 0:
        held += table + (pc.embedding - m.vocab_size * m.hidden_size)  # learned positions: replicated
    if stage == lay.pp - 1:
        held += norm_params(m) + (table if not m.tie_embeddings or lay.pp > 1 else 0.0)
    return Held(dense=held)


def _counts(m: ModelSpec, s: TrainingSetup, lay: Layout, held: Held) -> Counts:
    """Parameter counts on one GPU: the whole model's (``engine.training.states.counts``: QLoRA's quantized base
    too) when every GPU holds all of it, else the stage's share."""
    if lay.tp == lay.pp == lay.ep == 1:
        return counts(m, s)
    adapters = held.dense_adapters + held.expert_adapters
    if s.method is Method.FULL:
        return Counts(round(held.weights), round(held.weights), 0, 0)
    return Counts(round(held.weights + adapters), round(adapters), round(held.weights), 0)


def _states(m: ModelSpec, s: TrainingSetup, lay: Layout, held: Held) -> ModelStates:
    """Weights, gradients and optimizer states on one GPU of the stage (ZeRO over dp x cp, experts over the
    expert data-parallel ranks; ``engine.training.states`` for the bytes per parameter and their sources)."""
    full = s.method is Method.FULL
    plan = dtype_plan(s.precision) if full else ADAPTER_PLAN
    zero = {Sharding.NONE: 0, Sharding.ZERO1: 1, Sharding.ZERO2: 2, Sharding.ZERO3: 3}[s.sharding]
    c = _counts(m, s, lay, held)
    expert_share = (held.expert / held.weights if full else held.expert_adapters / max(
        held.dense_adapters + held.expert_adapters, 1.0)) if held.weights else 0.0
    weights_share = held.expert / held.weights if held.weights else 0.0

    def sharded(total: float, share: float, from_stage: int) -> int:
        if zero < from_stage:
            return math.ceil(total)
        return math.ceil(total * (1 - share) / lay.zero_group + total * share / lay.expert_dp)

    whole = count_params(m).total if full else lora_params(m, s.lora.rank, s.lora.targets)
    whole_states = optimizer_state_bytes(m, s, whole)  # exact when this GPU trains the whole model
    weights_full = sum(weight_parts(s, c).values())
    weights = sharded(weights_full, weights_share, 3)
    states = sharded(whole_states * (c.trainable / max(whole, 1)), expert_share, 1)
    host = 0
    if s.offload_params:
        host, weights = host + weights, 0
    if s.offload_optimizer:
        host, states = host + states + sharded(c.trainable * FP32, expert_share, 1), 0
    paged = s.optimizer in PAGED and not s.offload_optimizer
    divisor = lay.zero_group
    detail = f"{c.total - (0 if full else c.trainable):,} params on this GPU" + (
        "" if full else f" + {c.trainable:,} adapter params (fp32)")
    return ModelStates(
        weights=weights, gradients=sharded(c.trainable * plan.grad, expert_share, 2),
        step_gradients=sharded(c.trainable * plan.step_grad, expert_share, 2),
        optimizer_states=0 if paged else states, paged_states=states if paged else 0, host=host,
        weights_full=weights_full, counts=c, weight_detail=detail,
        divisor_weights=divisor if zero >= 3 else 1, divisor_grads=divisor if zero >= 2 else 1,
        divisor_states=divisor if zero >= 1 else 1,
    )


def tp_view(m: ModelSpec, lay: Layout) -> ModelSpec:
    """The model as one tensor-parallel rank computes it: heads / t, MLP widths / t, experts' widths / etp, the
    vocabulary / t, layer by layer (unvalidated: a view for counting activations, not a model)."""
    t = lay.tp
    update: dict[str, object] = {"num_heads": m.num_heads // t, "num_kv_heads": max(m.num_kv_heads // t, 1),
                                 "head_dim": m.head_size, "intermediate_size": m.intermediate_size / t,
                                 "vocab_size": m.vocab_size / t}
    if m.moe is not None:
        update["moe"] = m.moe.model_copy(update={"expert_intermediate_size": m.moe.expert_intermediate_size
                                                 / lay.etp})
    update["layers"] = tuple(_tp_run(r, t, lay.etp) for r in runs(m))
    return m.model_copy(update=update)


def _tp_run(r: LayerRun, t: int, etp: int) -> LayerRun:
    """One run of layers as a tensor-parallel rank computes it (unvalidated)."""
    a = r.attention.model_copy(update={"num_heads": r.attention.num_heads // t,
                                       "num_kv_heads": max(r.attention.num_kv_heads // t, 1)})
    mlp: dict[str, object] = {"intermediate_size": r.mlp.intermediate_size / t}
    e = r.mlp.moe
    if e is not None:
        shared = e.shared_width / t
        mlp["moe"] = e.model_copy(update={"expert_intermediate_size": e.expert_intermediate_size / etp,
                                          "shared_intermediate_size": shared or None})
    return r.model_copy(update={"attention": a, "mlp": r.mlp.model_copy(update=mlp)})


def _scaled(lc: LayerCoeffs, k: float, copies: int, fixed_k: float) -> LayerCoeffs:
    """A layer's coefficients on one GPU: ``k`` for what scales with its tokens, ``fixed_k`` for PEFT's merged
    expert weights (the GPU's experts, ep of them, each split etp ways)."""
    return LayerCoeffs(lc.saved * k, lc.saved_bs2 * k, lc.transient * k, lc.transient_bs2 * k, lc.checkpoint * k,
                       copies, lc.dequantized, lc.recomputed * k, lc.recomputed_bs2 * k, lc.saved_again * k,
                       lc.checkpoint_again * k, round(lc.saved_fixed * fixed_k))


def stage_coeffs(m: ModelSpec, s: TrainingSetup, lay: Layout, stage: int) -> ActivationCoeffs:
    """Activation coefficients per token of one GPU of ``stage`` (module docstring, "activations")."""
    sp, t, c = lay.sequence_parallel, lay.tp, lay.cp
    base = activation_coeffs(m, s) if sp else activation_coeffs(tp_view(m, lay), s)
    k = (1 / t if sp else 1.0) / c
    first, last = lay.stages[stage]
    per_layer = [lc for n, lc in base.segments for _ in range(n)][first : last + 1]
    kinds = _layers(m)[first : last + 1]
    autocast = dtype_plan(s.precision).autocast_copies
    compute = dtype_plan(s.precision).compute
    copies = [round(compute * _linear_weights(m, i, lay)) if autocast else 0 for i in range(first, last + 1)]
    fixed_k = (1 / lay.etp if sp else 1.0) / lay.ep  # without sp the view's experts are already split etp ways
    scaled = [_scaled(lc, k, cp, fixed_k) for lc, cp in zip(per_layer, copies, strict=True)]
    segments: list[tuple[int, LayerCoeffs]] = []
    seg_kinds: list[LayerSpec] = []
    for lc, kind in zip(scaled, kinds, strict=True):
        if segments and segments[-1][1] == lc and seg_kinds[-1] == kind:
            segments[-1] = (segments[-1][0] + 1, lc)
        else:
            segments.append((1, lc))
            seg_kinds.append(kind)
    head = stage == lay.pp - 1
    logits_k = 1 / (t * c) if sp else 1 / c  # without sp the view's vocabulary is already V / t
    return ActivationCoeffs(
        segments=tuple(segments),
        kinds=tuple(seg_kinds),
        head_saved=base.head_saved * k if head else 0.0,
        head_input=base.head_input * k if head else 0.0,
        head_copies=round(base.head_copies / (t if sp else 1)) if head else 0,
        # the loss's per-token bytes split like the logits; fused-linear-ce's weight gradient like the output layer
        loss=base.loss.scaled(logits_k if head else 0.0, (1 / t if sp else 1.0) if head else 0.0),
        end_transient=base.end_transient * k,
    )


def _linear_weights(m: ModelSpec, layer: int, lay: Layout) -> float:
    """Weights (no biases) of a layer's linears on one GPU: what autocast copies to 16 bits."""
    total = 0.0
    for x in layer_linears(layer_at(m, layer), m.hidden_size):
        n, _ = _linear(replace(x, bias=False), lay)
        total += n
    return total


def parallel_buffers(m: ModelSpec, s: TrainingSetup, lay: Layout, stage: int) -> tuple[Cost, str]:
    """Per token, while forward and backward run, on one GPU (bytes per b*s):

    * pipeline: the activation received from the previous stage and the gradient received from the next, one
      ``b x s/c x h`` tensor each (÷ t with sequence parallelism) (Megatron-LM ``p2p_communication.py``);
    * sequence parallelism: the all-gathered ``b x s/c x h`` input of a column-parallel linear, one at a time
      (Korthikanti et al. 2022, s4.2.2: gathered in forward, re-gathered in backward);
    * context parallelism: ring attention's key/value chunks, the one in use and the one arriving, each
      ``b x s/c x 2 x kv width / t`` (Liu et al. 2023, Ring Attention, arXiv:2310.01889, s3;
      Megatron-Core ``TEDotProductAttention`` with ``cp_comm_type=p2p``);
    * expert parallelism: the all-to-all's dispatched and received token copies, ``b x s/c x k x h`` each way
      (÷ t with sequence parallelism) (Megatron-Core ``MoEAlltoAllTokenDispatcher``).
    """
    plan = dtype_plan(s.precision)
    r, c, h = plan.residual, plan.compute, m.hidden_size
    sp = lay.tp if lay.sequence_parallel else 1
    per = 0.0
    parts: list[str] = []
    if lay.pp > 1:
        n = (1 if stage in (0, lay.pp - 1) else 2)
        per += n * r * h / sp
        parts.append(f"{n} x b x s x h x {r} B (pipeline send/receive)")
    if lay.sequence_parallel:
        per += c * h
        parts.append(f"b x s x h x {c} B (sequence-parallel all-gather)")
    if lay.cp > 1:
        kv = 2 * (m.num_kv_heads * m.head_size if m.mla is None else m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)
        per += 2 * c * kv / (lay.tp if m.mla is None else 1)
        parts.append(f"2 x b x s x (k, v) / t x {c} B (ring attention)")
    if lay.ep > 1 and m.moe is not None:
        per += 2 * c * m.moe.experts_per_token * h / sp
        parts.append(f"2 x b x s x top-k x h x {c} B (expert all-to-all)")
    formula = " + ".join(parts) + (" ÷ cp" if lay.cp > 1 else "")
    return Cost(0.0, per / lay.cp), formula or "none"


def _gradients(m: ModelSpec, s: TrainingSetup, lay: Layout, stage: int, st: ModelStates) -> Gradients:
    """Gradient bytes per GPU by where backward creates them (``engine.training.moments.Gradients``): the output
    layer's and the final norm's first on the last stage (the embedding's too when they are tied on one stage,
    then counted again at the end, as the embedding's own gradient is added to it)."""
    first, last = lay.stages[stage]
    full = s.method is Method.FULL
    per_byte = (dtype_plan(s.precision) if full else ADAPTER_PLAN).grad
    div = st.divisor_grads

    def grads(params: float) -> int:
        return math.ceil(params * per_byte / div)

    def trained(h: Held) -> float:
        return h.weights if full else h.dense_adapters + h.expert_adapters

    per_layer = tuple(grads(trained(layer_held(m, s, lay, i))) for i in range(first, last + 1))
    if not full:
        return Gradients(0, per_layer, 0, 0)
    table = m.vocab_size * m.hidden_size / lay.tp  # vocab-parallel
    embedding = table + count_params(m).embedding - m.vocab_size * m.hidden_size  # learned positions: whole
    shared = m.tie_embeddings and lay.pp == 1
    head = 0
    if stage == lay.pp - 1:
        head = grads(norm_params(m) + (embedding if shared else table))
    tied = math.ceil(embedding) * per_byte // div if shared else 0
    return Gradients(head=head, per_layer=per_layer, embed=0, tied=tied)


def stage_context(m: ModelSpec, s: TrainingSetup, lay: Layout, stage: int) -> StepContext:
    """The step context of one GPU of pipeline stage ``stage``."""
    first, last = lay.stages[stage]
    layers = [layer_held(m, s, lay, i) for i in range(first, last + 1)]
    ends = ends_held(m, lay, stage)
    held = sum(layers, Held()) + ends
    st = _states(m, s, lay, held)
    ac = stage_coeffs(m, s, lay, stage)
    grads = _gradients(m, s, lay, stage, st)
    buffers = sharding.buffers(s, st, lay.zero_group, max(h.weights for h in layers), ends.weights)
    pb, formula = parallel_buffers(m, s, lay, stage)
    return assemble(m, s, st, ac, grads=grads, buffers=buffers, in_flight=lay.in_flight(stage), parallel_buffers=pb,
                    parallel_formula=formula, stage=stage, stage_layers=(first, last))
