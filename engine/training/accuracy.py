"""How accurate the estimate is, computed (never typed in) from measurements bundled with the engine.

``catalog/gpu_runs.json`` holds real training steps run on an H200 (``torch.cuda.max_memory_allocated``);
``catalog/traced_steps.json``, when present, holds PyTorch training steps traced with fake tensors
(``calibration/``); ``catalog/stack_traces.json`` each stack's own step (``calibration/stacks/``, issue 25).
The memory page quotes :func:`summary`; ``docs/accuracy.md`` lists every row.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from engine.catalog import get_gpu, get_model
from engine.specs import ModelSpec, TrainingSetup
from engine.training.estimate import estimate


@dataclass(frozen=True, slots=True)
class Comparison:
    """One measured run against the estimate for the same setup."""

    id: str
    model: str
    described: str
    measured_bytes: int
    estimated_bytes: int
    #: the run trained exactly the parameters the engine counts (False: PEFT placed adapters elsewhere,
    #: e.g. on fused expert tensors; listed, but left out of the summary)
    comparable: bool = True
    #: the kernel packages a traced run called through registered fakes ("package version: function";
    #: calibration/kernels.py), empty for a run on PyTorch's own ops
    fake_kernels: tuple[str, ...] = ()

    @property
    def error(self) -> float:
        """Signed relative error of the estimate (+0.01: 1% above the measurement)."""
        return self.estimated_bytes / self.measured_bytes - 1


@dataclass(frozen=True, slots=True)
class Summary:
    runs: int
    median_abs_error: float
    worst_abs_error: float


def _load(name: str) -> dict[str, Any]:
    path = resources.files("engine.catalog").joinpath(name)
    if not path.is_file():
        return {"runs": []}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _compare(rows: list[dict[str, Any]], measured_key: str) -> tuple[Comparison, ...]:
    gpu = get_gpu("h200")
    out = []
    for r in rows:
        model = ModelSpec.model_validate(r["spec"]) if "spec" in r else get_model(r["model"])
        e = estimate(model, TrainingSetup.model_validate(r["setup"]), gpu)
        same = (e.total_params, e.trainable_params) == (r["total_params"], r["trainable_params"])
        out.append(Comparison(r["id"], r["model"], r["described"], r[measured_key], e.peak_allocated_bytes, same,
                              tuple(r.get("fake_kernels", ()))))
    return tuple(out)


@cache
def gpu_runs() -> tuple[Comparison, ...]:
    """The real H200 runs, each against its estimate."""
    return _compare(_load("gpu_runs.json")["runs"], "max_memory_allocated")


@cache
def traced_steps() -> tuple[Comparison, ...]:
    """The traced PyTorch steps (catalog models only), each against its estimate."""
    return _compare(_load("traced_steps.json")["runs"], "peak_bytes")


@cache
def stack_traces() -> dict[str, tuple[Comparison, ...]]:
    """Each stack's own training step traced with fake tensors (``catalog/stack_traces.json``, from
    calibration/stacks/: the rows whose rules the engine models), by stack, each against its estimate."""
    runs = _load("stack_traces.json")["runs"]
    stacks = dict.fromkeys(r["stack"] for r in runs)
    return {st: _compare([r for r in runs if r["stack"] == st], "peak_bytes") for st in stacks}


@cache
def offloaded_host() -> tuple[Comparison, ...]:
    """The traced steps that offloaded activations: the bytes that moved to host RAM (at their largest) against
    the estimate's ``offloaded_bytes``."""
    gpu = get_gpu("h200")
    out = []
    for r in _load("traced_steps.json")["runs"]:
        if "host_offloaded_peak_bytes" not in r:
            continue
        model = ModelSpec.model_validate(r["spec"]) if "spec" in r else get_model(r["model"])
        e = estimate(model, TrainingSetup.model_validate(r["setup"]), gpu)
        out.append(Comparison(r["id"], r["model"], r["described"], r["host_offloaded_peak_bytes"],
                              e.offloaded_bytes))
    return tuple(out)


def summarize(rows: tuple[Comparison, ...]) -> Summary | None:
    errors = [abs(r.error) for r in rows if r.comparable]
    if not errors:
        return None
    return Summary(len(errors), statistics.median(errors), max(errors))
