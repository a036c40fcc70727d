"""Per-GPU peak memory of one training step: every term at every moment where the total can peak.

The moments of a step (``engine.training.moments``) and the terms (``engine.training.terms``, one function each)
are combined into a table of costs, affine in the tokens b*s and in b*s^2; it is built once per plan
(``engine.training.plan``: the model and setup resolved, batch and sequence length apart) and cached on it, then
evaluated for the batch and sequence length at hand, or for a whole sweep of them at once
(``engine.training.sweep``). The peak is the moment whose total is
largest (a tie goes to the later step: every later step peaks alike).

The result, and its three levels (allocated, reserved, device total), is ``engine.training.result.Estimate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.results import Term
from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.training.context import StepContext, stage_context
from engine.training.host import host_estimate
from engine.training.moments import Moment, moments
from engine.training.plan import Plan, resolve
from engine.training.result import RESERVED_RATIO, Estimate, Phase, RankEstimate, Verdict
from engine.training.terms import TRAINING_TERMS, TermRule, offloaded

__all__ = ["RESERVED_RATIO", "Estimate", "Phase", "Verdict", "estimate", "step_table"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class StepTable:
    """Every term's cost at every moment of one model and setup: ``coeffs[moment, term] = (const, per b*s,
    per b*s^2)``, with the rules that produced them (their formulas and sources)."""

    context: StepContext
    moments: tuple[Moment, ...]
    rules: tuple[TermRule, ...]
    coeffs: FloatArray  # shape (moments, terms, 3)
    steps: npt.NDArray[np.int64]  # the step of each moment

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.rules)

    def values(self, tokens: Any, bs2: Any) -> FloatArray:
        """Bytes per moment and term: shape (moments, terms), or (moments, terms, points) for arrays."""
        c = self.coeffs
        if np.ndim(tokens) == 0:
            out: FloatArray = c @ np.array([1.0, float(tokens), float(bs2)])
            return out
        t, q = np.asarray(tokens, dtype=np.float64), np.asarray(bs2, dtype=np.float64)
        return c[..., 0, None] + c[..., 1, None] * t + c[..., 2, None] * q


def _table(c: StepContext, fine: bool) -> StepTable:
    at = moments(c.run_bounds, c.offloaded or c.s.dora, fine)  # DoRA: its forward's weight-sized temporaries
    rules = tuple(r for r in (rule(c, at) for rule in TRAINING_TERMS) if r is not None)
    coeffs = np.array([[(r.costs[i].const, r.costs[i].per_token, r.costs[i].per_bs2) for r in rules]
                       for i in range(len(at))], dtype=np.float64)
    return StepTable(c, at, rules, coeffs.reshape(len(at), len(rules), 3), np.array([mo.step for mo in at]))


def plan_table(plan: Plan, stage: int = 0, fine: bool = False) -> StepTable:
    """The cost table of one GPU of pipeline stage ``stage`` of ``plan``, coarse (the estimate) or fine (the
    timeline), cached on the plan."""
    hit = plan.tables.get((stage, fine))
    if hit is None:
        hit = plan.tables[stage, fine] = _table(stage_context(plan, stage), fine)
    return hit


def step_table(m: ModelSpec, s: TrainingSetup, fine: bool = False, stage: int | None = None) -> StepTable:
    """The cost table of ``m`` under ``s`` (:func:`plan_table` of its plan); with a parallel layout, of one GPU of
    pipeline stage ``stage``."""
    return plan_table(resolve(m, s), stage or 0, fine)


def tokens_of(s: TrainingSetup) -> tuple[int, int]:
    """(b*s, b*s^2) of a setup."""
    return s.batch * s.seq_len, s.batch * s.seq_len * s.seq_len


def peak_index(totals: Sequence[float] | FloatArray, steps: npt.NDArray[np.int64]) -> int:
    """The moment with the largest total; among equal totals the later step, then the first listed."""
    t = np.asarray(totals)
    top = t == t.max()
    best_step = steps[top].max()
    return int(np.flatnonzero(top & (steps == best_step))[0])


def describe(table: StepTable, row: FloatArray) -> tuple[Term, ...]:
    """The terms at one moment, each with its formula, source and share of that moment's total."""
    total = float(row.sum()) or 1.0
    return tuple(Term(r.name, round(float(v)), r.formula, r.source, r.detail, float(v) / total)
                 for r, v in zip(table.rules, row, strict=True))


@dataclass(frozen=True, slots=True)
class _Peak:
    """One table evaluated: its values, the peak moment and the three levels there."""

    table: StepTable
    values: FloatArray
    index: int
    terms: tuple[Term, ...]
    allocated: int
    reserved: int
    device: int


def _peak(table: StepTable, s: TrainingSetup, gpu: GpuSpec) -> _Peak:
    values = table.values(*tokens_of(s))
    i = peak_index(values.sum(axis=1), table.steps)
    terms = describe(table, values[i])
    allocated = sum(t.bytes for t in terms)
    reserved = round(allocated * RESERVED_RATIO)
    device = reserved + gpu.context_bytes + table.context.st.paged_states
    return _Peak(table, values, i, terms, allocated, reserved, device)


def stage_fits(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, stage: int) -> bool:
    """Whether one pipeline stage of ``s``'s layout fits ``gpu``'s usable memory (a planner screens with it)."""
    return _peak(plan_table(resolve(m, s), stage), s, gpu).device <= gpu.usable_bytes


def _rank(stage: int, p: _Peak) -> RankEstimate:
    layers = p.table.context.stage_layers
    return RankEstimate(stage, layers, p.allocated, p.reserved, p.device, p.terms,
                        p.table.moments[p.index].phase, p.table.moments[p.index].step,
                        p.table.context.st.paged_states)


def estimate(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> Estimate:
    """Per-GPU memory of one training step of ``m`` under ``s`` on ``gpu`` (module docstring: method).

    The setup is resolved once (``engine.training.plan``). With a parallel layout (``s.parallel``) every
    pipeline stage is counted on one of its GPUs, and the figures are the most loaded stage's (the first of them
    on a tie); ``ranks`` lists every stage."""
    plan = resolve(m, s)
    peaks = [_peak(plan_table(plan, i), s, gpu) for i in plan.stages]
    ranks: tuple[RankEstimate, ...] = ()
    most: int | None = None
    if plan.layout_active:
        most = max(plan.stages, key=lambda i: (peaks[i].device, -i))
        ranks = tuple(_rank(i, p) for i, p in enumerate(peaks))
    top = peaks[most or 0]
    st, c = top.table.context.st, plan.counts
    # activation offload: every GPU's saved activations (and, in a pipeline, every micro-batch in flight's)
    moved = round(offloaded(top.table.context).at(*tokens_of(s)) * top.table.context.in_flight)
    return Estimate(
        model=m,
        setup=s,
        gpu=gpu,
        total_params=c.total,
        trainable_params=c.trainable,
        terms=top.terms,
        peak_allocated_bytes=top.allocated,
        reserved_bytes=top.reserved,
        device_bytes=top.device,
        host_bytes=host_estimate(m, s, moved).per_node_bytes,  # one node at its peak (host.py)
        paged_bytes=st.paged_states,
        peak_phase=top.table.moments[top.index].phase,
        peak_step=top.table.moments[top.index].step,
        moments=top.table.moments,
        model_states_bytes_per_param=(st.weights + st.gradients + st.optimizer_states) / max(c.total, 1),
        values=top.values,
        states=st,
        layout=plan.layout if plan.layout_active else None,
        ranks=ranks,
        most_loaded_stage=most,
        offloaded_bytes=moved,
    )
