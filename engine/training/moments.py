"""The moments of a training step at which memory is counted, and what every term needs to count it.

A step runs forward (each layer saves what its backward will need), computes the logits and the loss, runs
backward (layers in reverse: each layer's saved activations are freed as its gradients appear), then the
optimizer step. The first step differs from the later ones: PyTorch creates AdamW's states lazily at the first
``step()``, so forward and backward of step 1 run without them.

Everything live at a moment is an affine function of the tokens ``b*s`` and of ``b*s^2`` (eager attention's
scores): a :class:`Cost`. A term's costs at every moment are computed once per model and setup (batch and
sequence length apart) and then evaluated for any batch and length, or for a whole sweep at once.

Two resolutions:

* **coarse** (the estimate): the moments where the running total can peak: the end of the forward (logits and
  loss), the start of backward, the first and last layer of each run of identical layers during backward
  (between them the total changes linearly), the end of backward, the optimizer step;
* **fine** (the timeline): every layer's forward and backward as well. It contains every coarse moment, so
  its maximum is the estimate's peak exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from itertools import accumulate
from typing import Any

from engine.params import count_params, layer_params, lora_targets, norm_params
from engine.specs import Checkpointing, LayerSpec, Method, ModelSpec, TrainingSetup
from engine.training.activations import ActivationCoeffs, LayerCoeffs, activation_coeffs
from engine.training.sharding import sharding_buffers
from engine.training.states import ModelStates, grad_dtype_bytes, model_states


@dataclass(frozen=True, slots=True)
class Cost:
    """Bytes at one moment: ``const + per_token * b*s + per_bs2 * b*s^2``."""

    const: float = 0.0
    per_token: float = 0.0
    per_bs2: float = 0.0

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.const + other.const, self.per_token + other.per_token, self.per_bs2 + other.per_bs2)

    def __sub__(self, other: Cost) -> Cost:
        return Cost(self.const - other.const, self.per_token - other.per_token, self.per_bs2 - other.per_bs2)

    def at(self, tokens: Any, bs2: Any) -> Any:
        """The bytes for ``tokens`` (b*s) and ``bs2`` (b*s^2): numbers or numpy arrays."""
        return self.const + self.per_token * tokens + self.per_bs2 * bs2


ZERO = Cost()


class MomentKind(StrEnum):
    FORWARD_LAYER = "forward_layer"  # just after one layer's forward
    FORWARD_END = "forward_end"  # the logits and the loss computed
    BACKWARD_START = "backward_start"  # the loss's backward (log-softmax gradients)
    BACKWARD_LAYER = "backward_layer"  # while one layer's backward runs
    BACKWARD_END = "backward_end"  # every gradient made, the embedding's last
    OPTIMIZER_STEP = "optimizer_step"


_PHASE = {
    MomentKind.FORWARD_LAYER: "forward",
    MomentKind.FORWARD_END: "forward",
    MomentKind.BACKWARD_START: "backward",
    MomentKind.BACKWARD_LAYER: "backward",
    MomentKind.BACKWARD_END: "backward",
    MomentKind.OPTIMIZER_STEP: "optimizer_step",
}


@dataclass(frozen=True, slots=True)
class Moment:
    """One moment of step 1 or step 2 (every later step is like step 2); ``layer`` counts from the bottom."""

    kind: MomentKind
    step: int
    layer: int | None = None

    @property
    def phase(self) -> str:
        """forward, backward or optimizer_step."""
        return _PHASE[self.kind]


@dataclass(frozen=True, slots=True)
class Gradients:
    """Gradient bytes per GPU by where backward creates them: the head first, then layers top-down, the
    embedding last (its gradient belongs to the head's weight when the two are tied)."""

    head: int
    per_layer: tuple[int, ...]  # bottom layer first
    embed: int
    tied: int  # the shared embedding / output weight's gradient, made last (full fine-tuning, tied)


def _gradients(m: ModelSpec, s: TrainingSetup, st: ModelStates, runs: tuple[tuple[int, int], ...],
               kinds: tuple[LayerSpec, ...]) -> Gradients:
    """Per GPU (ZeRO-2/3 divide them): the adapters' for LoRA, every parameter's for full fine-tuning; ``kinds``
    is the layer kind of each run."""
    per_byte = grad_dtype_bytes(s)

    def per_gpu(n: int) -> int:
        return -(-n * per_byte // st.divisor_grads)

    def layer(kind: LayerSpec) -> int:
        if s.method is not Method.FULL:
            return sum(x.lora_params(s.lora.rank) for x in lora_targets(m, kind, s.lora.targets))
        return layer_params(m, kind)

    per_layer = tuple(g for (lo, hi), k in zip(runs, kinds, strict=True) for g in [per_gpu(layer(k))] * (hi - lo + 1))
    if s.method is not Method.FULL:
        return Gradients(0, per_layer, 0, 0)
    pc = count_params(m)
    tied = m.tie_embeddings
    head = pc.lm_head + norm_params(m) + (pc.embedding if tied else 0)
    tied_grad = pc.embedding * per_byte // st.divisor_grads if tied else 0
    return Gradients(per_gpu(head), per_layer, per_gpu(0 if tied else pc.embedding), tied_grad)


@dataclass(frozen=True, slots=True)
class StepContext:
    """What every term of one model and setup needs, independent of batch and sequence length."""

    m: ModelSpec
    s: TrainingSetup
    st: ModelStates
    ac: ActivationCoeffs
    grads: Gradients
    buffers: dict[str, float]  # phase -> sharding buffers
    layers: tuple[LayerCoeffs, ...]  # one per decoder layer, bottom first
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
    stage: int | None = None  # the pipeline stage this context is (None: no layout)
    stage_layers: tuple[int, int] = (0, 0)  # the first and last decoder layer it holds

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


def runs_of(ac: ActivationCoeffs) -> tuple[tuple[LayerCoeffs, ...], tuple[tuple[int, int], ...]]:
    """Every layer's coefficients (bottom first) and the (first, last) layer of each run of identical ones."""
    layers: list[LayerCoeffs] = []
    bounds: list[tuple[int, int]] = []
    for n, lc in ac.segments:
        bounds.append((len(layers), len(layers) + n - 1))
        layers.extend([lc] * n)
    return tuple(layers), tuple(bounds)


def assemble(m: ModelSpec, s: TrainingSetup, st: ModelStates, ac: ActivationCoeffs, *, grads: Gradients,
             buffers: dict[str, float], **extra: Any) -> StepContext:
    """A context from its parts, with the per-layer sums every term reads (``extra``: the layout's fields)."""
    layers, bounds = runs_of(ac)
    gc = s.checkpointing is Checkpointing.FULL
    return StepContext(
        m=m, s=s, st=st, ac=ac, grads=grads, buffers=buffers, layers=layers, run_bounds=bounds, checkpointed=gc,
        offloaded=s.activation_offload,
        kept_sums=tuple(accumulate((_kept(lc, gc) for lc in layers), lambda a, b: a + b)),
        copy_sums=tuple(accumulate(lc.weight_copies for lc in layers)),
        grad_sums=tuple(accumulate(grads.per_layer)),
        **extra,
    )


def step_context(m: ModelSpec, s: TrainingSetup) -> StepContext:
    """The context of one model and setup on data-parallel GPUs (model states, activation coefficients,
    gradients, buffers); a layout's stages have their own (``engine.training.stage``)."""
    st = model_states(m, s)
    ac = activation_coeffs(m, s)
    _, bounds = runs_of(ac)
    return assemble(m, s, st, ac, grads=_gradients(m, s, st, bounds, ac.kinds), buffers=sharding_buffers(m, s, st))


def moments(c: StepContext, fine: bool = False) -> tuple[Moment, ...]:
    """The moments of steps 1 and 2, coarse (where a peak can be) or fine (every layer too)."""
    n = len(c.layers)
    if fine:
        forward = [Moment(MomentKind.FORWARD_LAYER, 0, i) for i in range(n)]
        backward = [Moment(MomentKind.BACKWARD_LAYER, 0, i) for i in reversed(range(n))]
    else:  # the last and first layer of each run, top run first (a one-layer run is listed twice); forward, with
        # activation offloading only, the last layer of each run: a layer's in-flight activations can then outweigh
        # the loss's logits at the forward's end (without offloading the forward's end holds all of them: the
        # estimate's phases stay as they were)
        forward = ([Moment(MomentKind.FORWARD_LAYER, 0, hi) for _, hi in c.run_bounds] if c.s.activation_offload
                   else [])
        backward = [Moment(MomentKind.BACKWARD_LAYER, 0, i) for lo, hi in reversed(c.run_bounds) for i in (hi, lo)]
    one_step = [
        *forward,
        Moment(MomentKind.FORWARD_END, 0),
        Moment(MomentKind.BACKWARD_START, 0),
        *backward,
        Moment(MomentKind.BACKWARD_END, 0),
        Moment(MomentKind.OPTIMIZER_STEP, 0),
    ]
    return tuple(Moment(mo.kind, step, mo.layer) for step in (1, 2) for mo in one_step)
