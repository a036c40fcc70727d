"""Layouts ranked by time: the planner's rows (``engine.training.planner``) with each one's step time, fastest
first for the same tokens.

Layouts differ in their data-parallel size, so one step of each covers different tokens; they are compared on the
whole run's throughput, ``tokens_per_second_per_gpu x gpus`` (the same dataset takes ``tokens / that`` seconds),
then on fewer GPUs. A layout the model cannot time sorts last, with its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.specs import GpuSpec, ModelSpec
from engine.timing.hardware import CannotTimeError
from engine.timing.step import StepTime, step_time
from engine.training.planner import PlanRow


@dataclass(frozen=True, slots=True)
class TimedRow:
    """A planner row and its step time (or why it has none)."""

    row: PlanRow
    time: StepTime | None
    error: str = ""

    @property
    def tokens_per_second(self) -> float:
        """All GPUs together (0 when not timed)."""
        return self.time.tokens_per_second_per_gpu * self.row.setup.gpus if self.time else 0.0


def timed(m: ModelSpec, gpu: GpuSpec, rows: Sequence[PlanRow]) -> list[TimedRow]:
    """Each row with its step time, in the rows' order."""
    out = []
    for r in rows:
        try:
            out.append(TimedRow(r, step_time(m, r.setup, gpu)))
        except CannotTimeError as e:
            out.append(TimedRow(r, None, str(e)))
    return out


def rank_by_time(m: ModelSpec, gpu: GpuSpec, rows: Sequence[PlanRow]) -> list[TimedRow]:
    """The rows fastest first (module docstring)."""
    return sorted(timed(m, gpu, rows), key=lambda t: (t.time is None, -t.tokens_per_second, t.row.setup.gpus))
