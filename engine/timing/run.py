"""A whole run's hours and cost, from one step's time: ``steps = dataset tokens x epochs / tokens per step``,
``run_hours = steps x step seconds / 3600``, ``gpu_hours = run_hours x GPUs``, ``cost = gpu_hours x price``
(the price per GPU-hour is the user's: none is shipped)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.timing.step import StepTime


@dataclass(frozen=True, slots=True)
class RunCost:
    """The run of ``epochs`` passes over ``dataset_tokens`` tokens at one step's time."""

    steps: int
    run_hours: float
    gpu_hours: float
    cost: float | None  # in the price's currency; None without a price

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"steps": self.steps, "run_hours": self.run_hours, "gpu_hours": self.gpu_hours}
        if self.cost is not None:
            out["cost"] = self.cost
        return out


def run_cost(t: StepTime, gpus: int, dataset_tokens: int, epochs: float, price_per_gpu_hour: float | None = None
             ) -> RunCost:
    """The run's steps, hours, GPU-hours and cost (module docstring)."""
    steps = math.ceil(dataset_tokens * epochs / t.tokens_per_step)
    hours = steps * t.step_seconds / 3600
    gpu_hours = hours * gpus
    cost = gpu_hours * price_per_gpu_hour if price_per_gpu_hour is not None else None
    return RunCost(steps, hours, gpu_hours, cost)
