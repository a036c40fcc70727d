"""Curves: the peak against sequence length or GPU count, for the memory page's plots.

Everything but activations and logits is independent of the sequence length, and those are exact polynomials in
b*s and b*s^2 (``engine.training.activations``), so a sequence-length sweep evaluates every phase of the step on
numpy arrays at once: the same arithmetic as :func:`engine.training.estimate`, vectorised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.training.estimate import StepTable, estimate, step_table
from engine.training.layout import layout
from engine.training.result import RESERVED_RATIO

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Sweep:
    """Per-GPU bytes at each x (sequence length or GPU count)."""

    x: npt.NDArray[np.int64]
    allocated: FloatArray
    reserved: FloatArray
    device: FloatArray


def sweep_seq_len(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, lengths: Sequence[int]) -> Sweep:
    """The peak at each sequence length (same model, setup and GPU otherwise); with a parallel layout, the most
    loaded pipeline stage's at each length, as :func:`engine.training.estimate` reports it."""
    x = np.asarray(lengths, dtype=np.int64)
    if x.size and (x.min() < 1 or x.max() > 1_048_576):
        raise ValueError("seq_len must be within 1..1,048,576")
    seq = x.astype(np.float64)
    stages = [None] if not s.layout_active else list(range(layout(m, s).pp))
    per_stage = [_stage_sweep(step_table(m, s, stage=i), s.batch * seq, s.batch * seq * seq, gpu) for i in stages]
    allocated, device = (np.array([a for a, _ in per_stage]), np.array([d for _, d in per_stage]))
    top = device.argmax(axis=0)  # the most loaded stage at each length (the first on a tie, as estimate)
    cols = np.arange(x.size)
    allocated_top = allocated[top, cols]
    return Sweep(x, allocated_top, allocated_top * RESERVED_RATIO, device[top, cols])


def _stage_sweep(table: StepTable, tokens: FloatArray, bs2: FloatArray, gpu: GpuSpec) -> tuple[FloatArray, FloatArray]:
    """(allocated, device total) of one cost table at each point (b*s and b*s^2)."""
    allocated = table.values(tokens, bs2).sum(axis=1).max(axis=0)
    return allocated, allocated * RESERVED_RATIO + gpu.context_bytes + table.context.st.paged_states


def sweep_gpus(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, counts: Sequence[int]) -> Sweep:
    """The peak at each GPU count (the sharding strategy of ``s`` kept). Counts the setup cannot take are left
    out of ``x``: not a whole multiple of tp x pp x cp or of the nodes, or a layout the model refuses there
    (expert parallelism carved from too few data-parallel ranks)."""
    kept, est = [], []
    for n in counts:
        try:
            est.append(estimate(m, s.with_(gpus=n), gpu))
        except ValueError:  # pydantic's ValidationError and engine.training.layout.LayoutError are ValueErrors
            continue
        kept.append(n)
    return Sweep(
        np.asarray(kept, dtype=np.int64),
        np.array([e.peak_allocated_bytes for e in est], dtype=np.float64),
        np.array([e.reserved_bytes for e in est], dtype=np.float64),
        np.array([e.device_bytes for e in est], dtype=np.float64),
    )
