"""The moments of a training step at which memory is counted, and the cost of a term at one of them.

A step runs forward (each layer saves what its backward will need), computes the logits and the loss, runs
backward (layers in reverse: each layer's saved activations are freed as its gradients appear), then the
optimizer step. The first step differs from the later ones: PyTorch creates AdamW's states lazily at the first
``step()``, so forward and backward of step 1 run without them.

Everything live at a moment is an affine function of the tokens ``b*s`` and of ``b*s^2`` (eager attention's
scores): a :class:`Cost`. A term's costs at every moment are computed once per model and setup (batch and
sequence length apart) and then evaluated for any batch and length, or for a whole sweep at once. What every term
needs to count them is the step context (``engine.training.context``).

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
from typing import Any


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


def moments(run_bounds: tuple[tuple[int, int], ...], offloaded: bool, fine: bool = False) -> tuple[Moment, ...]:
    """The moments of steps 1 and 2, coarse (where a peak can be) or fine (every layer too), for layers in runs
    of identical ones (``run_bounds``: each run's first and last layer, bottom first); ``offloaded``: the forward's
    layers can peak (saved activations go to host RAM as they are saved, or DoRA's forward makes weight-sized
    temporaries)."""
    n = run_bounds[-1][1] + 1 if run_bounds else 0
    if fine:
        forward = [Moment(MomentKind.FORWARD_LAYER, 0, i) for i in range(n)]
        backward = [Moment(MomentKind.BACKWARD_LAYER, 0, i) for i in reversed(range(n))]
    else:  # the last and first layer of each run, top run first (a one-layer run is listed twice); forward, with
        # activation offloading only, the last layer of each run: a layer's in-flight activations can then outweigh
        # the loss's logits at the forward's end (without offloading the forward's end holds all of them: the
        # estimate's phases stay as they were)
        forward = ([Moment(MomentKind.FORWARD_LAYER, 0, hi) for _, hi in run_bounds] if offloaded
                   else [])
        backward = [Moment(MomentKind.BACKWARD_LAYER, 0, i) for lo, hi in reversed(run_bounds) for i in (hi, lo)]
    one_step = [
        *forward,
        Moment(MomentKind.FORWARD_END, 0),
        Moment(MomentKind.BACKWARD_START, 0),
        *backward,
        Moment(MomentKind.BACKWARD_END, 0),
        Moment(MomentKind.OPTIMIZER_STEP, 0),
    ]
    return tuple(Moment(mo.kind, step, mo.layer) for step in (1, 2) for mo in one_step)
