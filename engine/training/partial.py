"""Freeze tuning and BAdam: some decoder layers trained in full, the others frozen (no adapter).

Which layers train, and in what dtypes:

* ``freeze`` (LLaMA-Factory 0.9.5 ``src/llamafactory/model/adapter.py`` ``_setup_freeze_tuning``):
  ``freeze_trainable_layers`` n > 0 trains the last n layers (``range(max(0, L - n), L)``), n < 0 the first -n;
  every module of them (``freeze_trainable_modules: all``); unless ``pure_bf16`` (or BAdam, or ZeRO-3) it upcasts
  the trained parameters to fp32 (``init_adapter``: ``cast_trainable_params_to_fp32``), so they train as under
  amp: fp32 weights, gradients and AdamW states, each linear's weight cast to 16 bits by autocast in the forward
  and saved for the backward;
* ``badam`` (badam 1.4 ``badam/block_optim.py`` ``BlockOptimizer``, LLaMA-Factory ``badam_mode: layer``): one
  decoder layer trains at a time (``infer_param_groups``: a block per ``layers.N.``; no embedding, no output
  layer), in the model's dtype; ``_switch_trainable_params_single_gpu`` keeps an fp32 copy of the block
  (``param.clone().float()``) for the base AdamW, whose states are reset at every switch, and ``_grad_to_hp`` gives
  that copy the gradient in fp32 (``lp_param.grad.float()``), the 16-bit one freed: the bf16-mixed regime for one
  layer. The block costed is the bottom one, the moment every layer above builds its autograd graph (the others
  peak lower).

A frozen layer below every trained one builds no autograd graph (nothing needs a gradient there) and keeps
nothing. A frozen layer above a trained one keeps what a frozen LoRA base keeps (``engine.training.saved`` with no
adapted linear). With gradient checkpointing LLaMA-Factory checkpoints the trained layers only
(``model/model_utils/checkpointing.py`` ``get_custom_gradient_checkpointing_func``: "Only applies gradient
checkpointing to trainable layers", making the first tensor argument, the hidden states, require a gradient
there): a frozen layer runs as it is, keeping all it saves, and one below the trained layers still builds no graph.
"""

from __future__ import annotations

from engine.layers import expand, runs
from engine.params import layer_linears
from engine.specs import Checkpointing, Method, ModelSpec, TrainingSetup
from engine.training.precision import FP32, DtypePlan


def trained_layers(m: ModelSpec, s: TrainingSetup) -> tuple[bool, ...]:
    """Which decoder layers train, bottom first (module docstring)."""
    n = m.num_layers
    if s.method is Method.BADAM:
        return tuple(i == 0 for i in range(n))
    k = s.freeze_layers
    first = max(0, n - k) if k > 0 else 0
    last = n if k > 0 else min(-k, n)
    return tuple(first <= i < last for i in range(n))


def graph_from(m: ModelSpec, s: TrainingSetup) -> int:
    """The first layer that builds an autograd graph: the first trained one (module docstring)."""
    return trained_layers(m, s).index(True)


def kept_whole(s: TrainingSetup) -> bool:
    """Whether a frozen layer keeps all it saves although the step checkpoints (LLaMA-Factory checkpoints only the
    trained layers: module docstring)."""
    return s.checkpointing is Checkpointing.FULL


def trained_plan(s: TrainingSetup, regime: DtypePlan) -> DtypePlan:
    """The dtypes of what trains (module docstring): fp32 for freeze tuning (LLaMA-Factory's upcast, autocast
    casting the weights), the model's dtype with an fp32 master copy and fp32 states for BAdam."""
    if s.method is Method.FREEZE:
        return DtypePlan(FP32, FP32, 0, FP32, regime.residual, regime.compute, regime.compute < FP32, FP32)
    return DtypePlan(regime.weight, regime.weight, FP32 if regime.weight < FP32 else 0, FP32, regime.residual,
                     regime.compute, regime.autocast_copies, FP32)


STEP_SOURCE = "badam 1.4 badam/block_optim.py (BlockOptimizer._update_param: hp_param.to(lp_param.dtype))"


def step_temporaries(m: ModelSpec, s: TrainingSetup, regime: DtypePlan) -> int:
    """BAdam's step writes each fp32 copy back (``BlockOptimizer._update_param``:
    ``lp_param.data.copy_(hp_param.to(lp_param.dtype).data)``): one 16-bit copy of the block's largest tensor at a
    time; freeze tuning's AdamW (fused) makes none."""
    if s.method is not Method.BADAM:
        return 0
    flags = trained_layers(m, s)
    kinds = [k for k, t in zip(expand(runs(m)), flags, strict=True) if t]
    return max(x.n_in * x.n_out for k in kinds for x in layer_linears(k, m.hidden_size)) * regime.weight
