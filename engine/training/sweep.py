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
from engine.training.estimate import estimate, step_table
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
    """The peak at each sequence length (same model, setup and GPU otherwise)."""
    x = np.asarray(lengths, dtype=np.int64)
    if x.size and (x.min() < 1 or x.max() > 1_048_576):
        raise ValueError("seq_len must be within 1..1,048,576")
    seq = x.astype(np.float64)
    table = step_table(m, s)
    allocated = table.values(s.batch * seq, s.batch * seq * seq).sum(axis=1).max(axis=0)
    reserved = allocated * RESERVED_RATIO
    return Sweep(x, allocated, reserved, reserved + gpu.context_bytes + table.context.st.paged_states)


def sweep_gpus(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, counts: Sequence[int]) -> Sweep:
    """The peak at each GPU count (the sharding strategy of ``s`` kept)."""
    est = [estimate(m, s.with_(gpus=n), gpu) for n in counts]
    return Sweep(
        np.asarray(counts, dtype=np.int64),
        np.array([e.peak_allocated_bytes for e in est], dtype=np.float64),
        np.array([e.reserved_bytes for e in est], dtype=np.float64),
        np.array([e.device_bytes for e in est], dtype=np.float64),
    )
