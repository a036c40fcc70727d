"""The predicted memory timeline of steps 1 and 2, layer by layer, from the same cost table as the estimate.

``engine.training.estimate`` evaluates every term at the **coarse** moments of a step (where the total can peak);
the timeline evaluates the same term functions at the **fine** moments (``engine.training.moments``: every
layer's forward and backward as well, the coarse moments among them). A fine moment that is also a coarse one
gets exactly the estimate's numbers, and between coarse moments the total changes linearly, so the timeline's
largest ``allocated_bytes`` is the estimate's ``peak_allocated_bytes``, at the same moment (``peak_index``).

Each point's ``terms`` are the bytes of every training term at that moment, rounded as the estimate rounds
them, and ``allocated_bytes`` is their sum. With a parallel layout the timeline is one GPU's of one pipeline
stage: by default the most loaded one, whose figures the estimate reports.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.training.estimate import estimate, peak_index, step_table, tokens_of
from engine.training.moments import MomentKind


@dataclass(frozen=True, slots=True)
class TimelinePoint:
    """One moment: ``step`` 1 or 2 (every later step is like 2), its phase and kind, the layer (from the bottom,
    0-based; None outside the layers), and the bytes of every term."""

    index: int
    step: int
    phase: str  # forward, backward, optimizer_step
    moment: MomentKind
    layer: int | None
    allocated_bytes: int
    terms: dict[str, int]


@dataclass(frozen=True, slots=True)
class Timeline:
    """The points of steps 1 and 2, and where the peak is."""

    points: tuple[TimelinePoint, ...]
    peak_index: int
    stage: int | None = None  # the pipeline stage (with a parallel layout)

    @property
    def peak_allocated_bytes(self) -> int:
        return self.points[self.peak_index].allocated_bytes


def timeline(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec | None = None, stage: int | None = None) -> Timeline:
    """Steps 1 and 2 of ``m`` under ``s`` at layer resolution (module docstring). With a parallel layout,
    ``stage`` defaults to the estimate's most loaded stage on ``gpu`` (which must then be given)."""
    if s.layout_active and stage is None:
        if gpu is None:
            raise ValueError("a parallel layout's timeline needs the GPU (to find the most loaded stage) or a stage")
        stage = estimate(m, s, gpu).most_loaded_stage
    stage = stage if s.layout_active else None
    tokens = tokens_of(s)
    fine = step_table(m, s, fine=True, stage=stage)
    coarse = step_table(m, s, stage=stage)
    coarse_values = coarse.values(*tokens)
    peak_moment = coarse.moments[peak_index(coarse_values.sum(axis=1), coarse.steps)]
    points = []
    for i, (mo, row) in enumerate(zip(fine.moments, fine.values(*tokens), strict=True)):
        terms = {name: round(float(v)) for name, v in zip(fine.names, row, strict=True)}
        points.append(TimelinePoint(i, mo.step, mo.phase, mo.kind, mo.layer, sum(terms.values()), terms))
    return Timeline(tuple(points), fine.moments.index(peak_moment), stage)
